package lang

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
)

// libraryDirs are searched for uprobe:LIB:func when LIB is not a path.
var libraryDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"}

// resolveBinary finds the file of uprobe:TARGET:...: a path, an executable
// on PATH (bash), or a library by name (libc, libc.so.6).
func resolveBinary(target string) (string, error) {
	if strings.Contains(target, "/") {
		if _, err := os.Stat(target); err != nil {
			return "", fmt.Errorf("uprobe target %s: %w", target, err)
		}
		return target, nil
	}
	for _, dir := range libraryDirs {
		// libc.so itself is usually a linker script: prefer the versioned
		// shared object, and accept only ELF files.
		for _, pattern := range []string{target, "lib" + target + ".so.*", target + ".so.*", "lib" + target + ".so", target + ".so"} {
			matches, _ := filepath.Glob(filepath.Join(dir, pattern))
			sort.Strings(matches)
			for _, m := range matches {
				if isELF(m) {
					return m, nil
				}
			}
		}
	}
	if p, err := exec.LookPath(target); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("uprobe target %q not found (not a path, an executable on PATH, or a library)", target)
}

// isELF reports whether file is a regular ELF file.
func isELF(file string) bool {
	if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := elf.Open(file)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// elfFunctions lists the function symbols of an ELF file.
func elfFunctions(file string) (map[string]bool, error) {
	f, err := elf.Open(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	defer f.Close()
	funcs := map[string]bool{}
	for _, get := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
		syms, err := get()
		if err != nil {
			continue
		}
		for _, s := range syms {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
				name, _, _ := strings.Cut(s.Name, "@") // versioned names: malloc@@GLIBC_2.2.5
				funcs[name] = true
			}
		}
	}
	return funcs, nil
}

// expandUprobe expands uprobe:BINARY:FUNC[+OFF], uprobe:BINARY:0xADDR and
// wildcards over the binary's function symbols (uretprobe likewise).
func expandUprobe(c *checker, ap *ast.AttachPoint, parts []string) ([]*AttachPoint, error) {
	kind := lookupProvider(splitAttach(ap.Raw)[0]).name
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("%s must be %s:BINARY:FUNCTION, got %q", kind, kind, ap.Raw)
	}
	bin, err := resolveBinary(parts[0])
	if err != nil {
		return nil, err
	}
	fn := parts[1]
	if strings.HasPrefix(fn, "0x") {
		if _, err := strconv.ParseUint(fn, 0, 64); err != nil {
			return nil, fmt.Errorf("invalid address %q", fn)
		}
		return []*AttachPoint{{Name: kind + ":" + bin + ":" + fn, Module: bin, Func: fn}}, nil
	}
	var offset uint64
	if i := strings.IndexByte(fn, '+'); i >= 0 {
		v, err := strconv.ParseUint(fn[i+1:], 0, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid uprobe offset %q", fn[i+1:])
		}
		fn, offset = fn[:i], v
	}
	funcs, err := elfFunctions(bin)
	if err != nil {
		return nil, err
	}
	var names []string
	if hasGlob(fn) {
		for name := range funcs {
			if ok, _ := path.Match(fn, name); ok {
				names = append(names, name)
			}
		}
		sort.Strings(names)
		if len(names) == 0 {
			return nil, fmt.Errorf("no functions of %s match %s", bin, fn)
		}
	} else {
		if !funcs[fn] {
			return nil, fmt.Errorf("function %s not found in %s", fn, bin)
		}
		names = []string{fn}
	}
	var out []*AttachPoint
	for _, n := range names {
		pt := &AttachPoint{Name: kind + ":" + bin + ":" + n, Module: bin, Func: n, Offset: offset}
		if offset != 0 {
			pt.Name += fmt.Sprintf("+%d", offset)
		}
		out = append(out, pt)
	}
	return out, nil
}

// elfSymbol returns the address of a symbol (function or object) of an
// ELF file.
func elfSymbol(file, name string) (uint64, error) {
	f, err := elf.Open(file)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", file, err)
	}
	defer f.Close()
	for _, get := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
		syms, err := get()
		if err != nil {
			continue
		}
		for _, s := range syms {
			base, _, _ := strings.Cut(s.Name, "@")
			if base == name && s.Value != 0 {
				return s.Value, nil
			}
		}
	}
	return 0, fmt.Errorf("no symbol %s in %s", name, file)
}
