package codegen_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestHugeValueFailsFast: a 100 MB struct printed or stored by value is
// refused by the checker, at the value, before any code is generated (it
// once took 15.7 s and 2.4 GB, and a larger struct hundreds of millions of
// instructions).
func TestHugeValueFailsFast(t *testing.T) {
	const src = "struct S { char x[100000000]; }\nBEGIN { $p = (struct S *)0; print(*$p); $v = *$p; }\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := compileScript(t, "big.bt", src, codegen.Options{})
	runtime.ReadMemStats(&after)
	var errs syntax.ErrorList
	if !errors.As(err, &errs) || len(errs) != 2 || errs[0].Pos.String() != "big.bt:2:35" || errs[1].Pos.String() != "big.bt:2:46" ||
		!strings.Contains(errs[0].Msg, "struct S is 100000000 bytes: values larger than 256 bytes cannot be copied by value") {
		t.Errorf("got %v, want the value refused at big.bt:2:35 and big.bt:2:46", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 64<<20 {
		t.Errorf("compiling allocated %d MB", n>>20)
	}
}

// TestTooManyInstructions: a probe past the kernel's 1,000,000
// instructions is refused at the statement that crosses the limit, not
// with the kernel's "argument list too long" after generating it all.
func TestTooManyInstructions(t *testing.T) {
	const src = "BEGIN {\n\t$c = 0;\n\tunroll(100) { unroll(100) { unroll(100) { $c = $c + 1; } } }\n}\n"
	_, err := compileScript(t, "huge.bt", src, codegen.Options{})
	var cerr *codegen.Error
	if !errors.Is(err, codegen.ErrTooLarge) || !errors.As(err, &cerr) || cerr.Pos.Line != 3 {
		t.Errorf("got %v, want a program too large at huge.bt:3", err)
	}
}

// TestScratchLimit: a probe whose values outgrow the 512-byte stack is
// compiled with its frame in a scratch map value; past the 64 KiB a
// probe's scratch value holds, it is refused at the expression whose
// temporary crosses the limit.
func TestScratchLimit(t *testing.T) {
	const body = "tracepoint:syscalls:sys_enter_execve { @map[str(args.filename)] = str(args.filename); for ($kv : @map) { print($kv); } }\n"
	_, err := compileScript(t, "scratch.bt", "config = { max_strlen = 20000 }\n"+body, codegen.Options{})
	var cerr *codegen.Error
	if !errors.Is(err, codegen.ErrScratchLimit) || !errors.As(err, &cerr) || cerr.Pos.String() != "scratch.bt:2:40" ||
		!strings.Contains(err.Error(), "a probe's values are limited to 65536 bytes: this probe needs 80000 bytes") {
		t.Errorf("got %v, want the scratch limit at scratch.bt:2:40", err)
	}
	// With strings of 9999 bytes it fits, with a tuple holding one more.
	fits := "config = { max_strlen = 9999 }\n" + strings.Replace(body, " }\n", " print((1, (2, @map[str(args.filename)]))); }\n", 1)
	if _, err := compileScript(t, "scratch.bt", fits, codegen.Options{}); err != nil {
		t.Errorf("max_strlen 9999: %v", err)
	}
}

// TestScratchPerTarget: the programs of a trampoline wildcard, one per
// function, each have a scratch value of their own (two of them can run
// at once on one CPU, one program cannot).
func TestScratchPerTarget(t *testing.T) {
	prog, err := compileScript(t, "t.bt", `config = { max_strlen = 1024 } fentry:vfs_read, fentry:vfs_write { printf("%s\n", str(0)); }`, codegen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name, spec := range prog.Collection.Programs {
		refs := map[string]bool{}
		for _, ins := range spec.Instructions {
			if r := ins.Reference(); strings.HasPrefix(r, "scratch_") {
				refs[r] = true
				if prog.Collection.Maps[r] == nil {
					t.Errorf("%s uses %s, which is not declared", name, r)
				}
			}
		}
		if len(refs) != 1 || !refs["scratch_"+name] {
			t.Errorf("%s uses the scratch maps %v, want scratch_%s", name, refs, name)
		}
		names = append(names, name)
	}
	n := 0
	for name := range prog.Collection.Maps {
		if strings.HasPrefix(name, "scratch_") {
			n++
		}
	}
	if len(names) != 2 || n != 2 {
		t.Errorf("programs %v and %d scratch maps, want 2 of each", names, n)
	}
}

// TestVerifierLimits: string comparisons and searches whose code the
// verifier would give up on (more than 8,192 branches left to explore)
// are refused at the call, and their limits compile.
func TestVerifierLimits(t *testing.T) {
	for _, tc := range []struct{ src, err string }{
		{`config = { max_strlen = 9999 } BEGIN { @ = strncmp(str(0), str(0), 3072); }`, ""},
		{`config = { max_strlen = 9999 } BEGIN { @ = strncmp(str(0), str(0), 5000); }`, "t.bt:1:44: error: too complex for the BPF verifier: strncmp() compares at most 3072 bytes, not 5000"},
		{`config = { max_strlen = 2048 } BEGIN { @ = strcontains(str(0), str(0)); }`, ""},
		{`config = { max_strlen = 3000 } BEGIN { @ = strcontains(str(0), str(0)); }`, "t.bt:1:44: error: too complex for the BPF verifier: strcontains() searches for a needle of at most 2048 bytes, not 3000 (str(p, n) reads a shorter one)"},
		{`config = { max_strlen = 3000 } BEGIN { @ = strstr(str(0), str(0, 100)); }`, ""},
	} {
		_, err := compileScript(t, "t.bt", tc.src, codegen.Options{})
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err || !errors.Is(err, codegen.ErrVerifierLimit)) {
			t.Errorf("%s: got %v, want %q", tc.src, err, tc.err)
		}
	}
}
