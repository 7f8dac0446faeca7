package tracefs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// Well-known files read by TraceableFunctions.
const (
	// KprobeBlacklist lists the functions kprobes refuse (debugfs).
	KprobeBlacklist = "/sys/kernel/debug/kprobes/blacklist"
	// Kallsyms is the kernel symbol table.
	Kallsyms = "/proc/kallsyms"
)

// funcList caches the traceable function list of an Env.
type funcList struct {
	once  sync.Once
	funcs map[string]bool
	err   error
}

// TraceableFunctions implements lang.FunctionLister: the vmlinux functions
// in available_filter_functions, minus those on the kprobe blacklist
// (/sys/kernel/debug/kprobes/blacklist, when debugfs is mounted and
// readable) and minus names that kallsyms lists more than once (static
// functions of the same name in several files: a name cannot select one of
// them). Functions of kernel modules are left out. The list is read once
// and cached.
//
// When available_filter_functions cannot be read (no CONFIG_FUNCTION_TRACER,
// or reading it is refused, as with lockdown on some kernels) it returns
// nil, nil: the kernel does not say, and wildcards are not filtered.
func (e *Env) TraceableFunctions() (map[string]bool, error) {
	e.funcs.once.Do(func() {
		e.funcs.funcs, e.funcs.err = readTraceable(e.root)
	})
	return e.funcs.funcs, e.funcs.err
}

func readTraceable(root string) (map[string]bool, error) {
	data, err := os.ReadFile(filepath.Join(root, "available_filter_functions"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, nil
		}
		return nil, fmt.Errorf("read traceable functions: %w", err)
	}
	funcs := make(map[string]bool, bytes.Count(data, []byte("\n")))
	for line := range strings.Lines(string(data)) {
		name := strings.TrimSpace(line)
		if name == "" || strings.ContainsAny(name, " \t[") {
			continue // "name [module]": a module's function
		}
		funcs[name] = true
	}
	if bl, err := os.ReadFile(KprobeBlacklist); err == nil {
		for line := range strings.Lines(string(bl)) {
			// "0xADDR-0xADDR\tname" (addresses are 0 without privileges)
			f := strings.Fields(line)
			if len(f) >= 2 {
				delete(funcs, f[1])
			}
		}
	}
	if dups, err := duplicateSymbols(Kallsyms); err == nil {
		for name := range dups {
			delete(funcs, name)
		}
	}
	return funcs, nil
}

// duplicateSymbols returns the vmlinux text symbols that kallsyms lists more
// than once.
func duplicateSymbols(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	seen := make(map[string]bool, 1<<16)
	dups := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		// "ADDR TYPE NAME [MODULE]"
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) != 3 || (f[1] != "t" && f[1] != "T") {
			continue
		}
		if seen[f[2]] {
			dups[f[2]] = true
		}
		seen[f[2]] = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return dups, nil
}
