package preamble

import (
	"sort"
	"strings"
)

// stdlibImports are the names bpftrace 0.26's import finds in its
// embedded standard library: its BPF C sources and headers by path, and
// the directories holding them (which import their files). Their C
// sources serve the standard library's macros, which are gotrace
// builtins; the functions a script may call directly after importing them
// are builtins that ask Imported (__always_true() of stdlib/test).
var stdlibImports = func() map[string]bool {
	m := map[string]bool{}
	for _, f := range stdlibFiles {
		m[f] = true
		m[f[:strings.LastIndexByte(f, '/')]] = true
	}
	return m
}()

// stdlibFiles are the files of bpftrace 0.26's standard library that
// import finds.
var stdlibFiles = []string{
	"stdlib/base.bpf.c",
	"stdlib/map/map.bpf.c",
	"stdlib/process/process.bpf.c",
	"stdlib/stack/dwunwind.bpf.c", "stdlib/stack/dwunwind_defs.h",
	"stdlib/strings/strings.bpf.c", "stdlib/strings/strings.h", "stdlib/strings/errors.h", "stdlib/strings/signal.h", "stdlib/strings/syscall.h",
	"stdlib/system/system.bpf.c",
	"stdlib/task/task.bpf.c", "stdlib/task/vma.bpf.c",
	"stdlib/test/test.bpf.c",
	"stdlib/usdt/usdt.bpf.c",
}

// similarStdlib returns the standard library files whose names are like
// name, for the hint of an import that is not found: their longest common
// substring is longer than one byte and at least half the shorter name, as
// bpftrace judges.
func similarStdlib(name string) []string {
	var out []string
	for _, f := range stdlibFiles {
		if similar(name, f) {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

func similar(a, b string) bool {
	common := 0
	for i := range len(a) {
		for j := i + common + 1; j <= len(a) && strings.Contains(b, a[i:j]); j++ {
			common = j - i
		}
	}
	return common > 1 && common >= min(len(a), len(b))/2
}

// Imported reports whether the script imports the standard library file
// path (stdlib/test/test.bpf.c), by its name or its directory's.
func (c *Preamble) Imported(path string) bool {
	return c.imports[path] || c.imports[path[:max(strings.LastIndexByte(path, '/'), 0)]]
}
