// Command compile measures how gotrace's compile time and memory grow with
// the size of a script: for each size it generates scripts of that many
// statements (straight-line assignments, an if/else-if chain, printf
// calls), compiles them kernel-free against the pinned test BTF (parse,
// check, code generation, jump layout) and renders the instructions as
// --emit=asm does, then prints the time and the bytes allocated.
//
//	go run ./bench/compile [-sizes 1000,10000,30000] [-kinds assign,elseif,printf] [-cpuprofile f] [-memprofile f]
//
// Compile time should grow near-linearly with the script's size.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/tracefs"
)

func main() {
	sizes := flag.String("sizes", "1000,10000,30000", "comma-separated statement counts (a script has at most 500,000 tokens)")
	kinds := flag.String("kinds", strings.Join(kindNames(), ","), "comma-separated script shapes")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	memprofile := flag.String("memprofile", "", "write an allocation profile to this file at the end")
	flag.Parse()
	root, err := moduleRoot()
	if err != nil {
		fail(err)
	}
	path, err := testbtf.Path()
	if err != nil {
		fail(err)
	}
	spec, err := testbtf.Load(path)
	if err != nil {
		fail(err)
	}
	env := tracefs.NewEnv(filepath.Join(root, "testdata", "tracefs"), tracefs.WithBTF(spec))
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer pprof.StopCPUProfile()
	}
	if *memprofile != "" {
		runtime.MemProfileRate = 64 << 10
		defer func() {
			f, err := os.Create(*memprofile)
			if err != nil {
				fail(err)
			}
			defer f.Close()
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fail(err)
			}
		}()
	}
	fmt.Printf("%-8s %8s %10s %12s %12s %10s\n", "script", "stmts", "bytes", "time", "allocated", "insns")
	for _, k := range strings.Split(*kinds, ",") {
		gen, ok := Kinds[k]
		if !ok {
			fail(fmt.Errorf("unknown kind %q (want one of %s)", k, strings.Join(kindNames(), ", ")))
		}
		for _, s := range strings.Split(*sizes, ",") {
			n, err := strconv.Atoi(s)
			if err != nil {
				fail(fmt.Errorf("bad size %q", s))
			}
			r, err := Measure(gen(n), env)
			if err != nil {
				fmt.Printf("%-8s %8d %10d error: %v\n", k, n, len(gen(n)), firstLine(err.Error()))
				continue
			}
			fmt.Printf("%-8s %8d %10d %12s %9.1f MB %10d\n", k, n, r.Bytes, r.Time.Round(time.Millisecond), float64(r.Alloc)/(1<<20), r.Insns)
		}
	}
}

// Result is one measured compile.
type Result struct {
	Bytes int           // script size
	Time  time.Duration // parse, check, codegen and asm rendering
	Alloc uint64        // bytes allocated
	Insns int           // instructions generated
}

// Measure compiles src kernel-free and renders its instructions.
func Measure(src string, env gotrace.Env) (Result, error) {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	s, err := gotrace.Compile("bench.bt", src, gotrace.Options{Env: env, Features: &gotrace.Features{LongJumps: true}})
	insns := 0
	if err == nil {
		for _, p := range s.Program.Collection.Programs {
			fmt.Fprintf(io.Discard, "%v\n", p.Instructions)
			insns += len(p.Instructions)
		}
	}
	d := time.Since(start)
	runtime.ReadMemStats(&after)
	return Result{Bytes: len(src), Time: d, Alloc: after.TotalAlloc - before.TotalAlloc, Insns: insns}, err
}

// Kinds generate scripts of n statements.
var Kinds = map[string]func(n int) string{
	"assign": func(n int) string {
		var b strings.Builder
		b.WriteString("BEGIN { $c = 0;\n")
		for i := 0; i < n; i++ {
			b.WriteString("\t$c = $c + 1;\n")
		}
		b.WriteString("\tprintf(\"%d\\n\", $c); exit(); }\n")
		return b.String()
	},
	"elseif": func(n int) string {
		var b strings.Builder
		b.WriteString("BEGIN { $x = 5;\n\tif ($x == 0) { @a = 0; }\n")
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, "\telse if ($x == %d) { @a = %d; }\n", i, i)
		}
		b.WriteString("\texit(); }\n")
		return b.String()
	},
	"printf": func(n int) string {
		var b strings.Builder
		b.WriteString("BEGIN {\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "\tprintf(\"line %d %%d\\n\", %d);\n", i, i)
		}
		b.WriteString("\texit(); }\n")
		return b.String()
	},
}

func kindNames() []string { return []string{"assign", "elseif", "printf"} }

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "compile:", err)
	os.Exit(1)
}
