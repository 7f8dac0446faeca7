package lang

import (
	"sort"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
)

// stdlibImports are the names bpftrace 0.26's import finds in its
// embedded standard library: its BPF C sources and headers by path, and
// the directories holding them (which import their files).
var stdlibImports = func() map[string]bool {
	files := []string{
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
	m := map[string]bool{}
	for _, f := range files {
		m[f] = true
		m[f[:strings.LastIndexByte(f, '/')]] = true
	}
	return m
}()

// checkImports accepts the imports of bpftrace 0.26's standard library
// packages. Their C sources serve the standard library's macros, which
// are gotrace builtins; the functions a script may call directly after
// importing them are builtins that ask Imported (__always_true() of
// stdlib/test). Scripts and other C sources cannot be imported: gotrace
// has no C interop.
func (c *checker) checkImports(file *ast.File) {
	c.imports = map[string]bool{}
	for _, im := range file.Imports {
		if !stdlibImports[im.Path] {
			c.errorf(im, "Unable to find suitable path for import %q: gotrace imports only the packages of bpftrace 0.26's standard library (%s); it does not import scripts or C sources", im.Path, strings.Join(stdlibPackages(), ", "))
			continue
		}
		c.imports[im.Path] = true
	}
}

// stdlibPackages lists the directories of stdlibImports.
func stdlibPackages() []string {
	var out []string
	for name := range stdlibImports {
		if !strings.Contains(name[strings.LastIndexByte(name, '/')+1:], ".") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Imported reports whether the script imports the standard library file
// path (stdlib/test/test.bpf.c), by its name or its directory's.
func (c *checker) Imported(path string) bool {
	return c.imports[path] || c.imports[path[:max(strings.LastIndexByte(path, '/'), 0)]]
}
