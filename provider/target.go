package provider

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/tracefs"
)

// Target is what the command line says about the traced process and the
// script's permissions, for expansion and listing: uprobe:*:f with -p
// searches the process's mapped binaries, a path of a process in another
// mount namespace is read through /proc/PID/root, and some attach points
// are refused without --unsafe.
type Target struct {
	Pid    int  // -p (or -c's child), 0 for none
	Unsafe bool // --unsafe
	// TraceableFunctions is --traceable-functions: the file that lists
	// the kernel functions that can be traced, in place of
	// available_filter_functions; a function it does not list is not
	// traceable (a warning, then No matches, or an attempt with --unsafe).
	TraceableFunctions string
	// NoCppDemangle is config cpp_demangle = false: the func builtin of
	// a uprobe on a C++ function gives its mangled name.
	NoCppDemangle bool
}

// targetEnv is an environment carrying a Target; it forwards the optional
// extensions of the environment it wraps.
type targetEnv struct {
	ExpandEnv
	t Target
}

// WithTarget returns env with t attached, for Expand and List hooks to read
// with TargetOf. FunctionLister, KernelSymbols, Binaries and ListEnv are
// forwarded.
func WithTarget(env ExpandEnv, t Target) ExpandEnv {
	if env == nil || t == (Target{}) {
		return env
	}
	return targetEnv{env, t}
}

// WithListTarget is WithTarget for -l's environment.
func WithListTarget(env ListEnv, t Target) ListEnv {
	if env == nil || t == (Target{}) {
		return env
	}
	return targetEnv{env, t}
}

// TargetOf returns the Target env carries (none when it carries none).
func TargetOf(env ExpandEnv) Target {
	if e, ok := env.(targetEnv); ok {
		return e.t
	}
	return Target{}
}

// TraceableFunctions implements FunctionLister: the file of
// --traceable-functions when given.
func (e targetEnv) TraceableFunctions() (map[string]bool, error) {
	if e.t.TraceableFunctions != "" {
		return readFunctionList(e.t.TraceableFunctions)
	}
	if fl, ok := e.ExpandEnv.(FunctionLister); ok {
		return fl.TraceableFunctions()
	}
	return nil, nil
}

// KernelSymbols implements KernelSymbols.
func (e targetEnv) KernelSymbols() (*tracefs.Symbols, error) {
	if ks, ok := e.ExpandEnv.(KernelSymbols); ok {
		return ks.KernelSymbols()
	}
	return nil, nil
}

// ResolveBinary implements Binaries.
func (e targetEnv) ResolveBinary(target string) (string, error) {
	if b, ok := e.ExpandEnv.(Binaries); ok {
		return b.ResolveBinary(target)
	}
	return "", ErrNoHostFiles
}

// ELFSymbols implements Binaries.
func (e targetEnv) ELFSymbols(file string) ([]ELFSymbol, error) {
	if b, ok := e.ExpandEnv.(Binaries); ok {
		return b.ELFSymbols(file)
	}
	return nil, ErrNoHostFiles
}

// TracepointFormat implements ListEnv.
func (e targetEnv) TracepointFormat(category, event string) (*tracefs.Format, error) {
	if l, ok := e.ExpandEnv.(ListEnv); ok {
		return l.TracepointFormat(category, event)
	}
	return nil, fmt.Errorf("tracepoint %s:%s: no tracepoint formats", category, event)
}

// pidRoot is the prefix under which the files of process pid are seen:
// "/proc/PID/root" when it lives in another mount namespace, else "".
func pidRoot(pid int) string {
	self, err1 := os.Readlink("/proc/self/ns/mnt")
	other, err2 := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/mnt")
	if err1 != nil || err2 != nil || self == other {
		return ""
	}
	return "/proc/" + strconv.Itoa(pid) + "/root"
}

// pidBinaries lists the files process pid runs: its executable first,
// then the files it maps, each once, under /proc/PID/root, as bpftrace
// lists them (the same file in any mount namespace, and the name -l and
// probe show).
func pidBinaries(pid int) ([]string, error) {
	root := "/proc/" + strconv.Itoa(pid) + "/root"
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		p = root + p
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	if exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil && !strings.Contains(exe, "(deleted)") {
		add(exe)
	}
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/maps")
	if err != nil {
		return nil, fmt.Errorf("read the mappings of process %d: %w", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// 7fc8ee4fa000-7fc8ee4fb000 r--p 00000000 00:1f 27168296 /usr/lib/libc.so.6
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || !strings.HasPrefix(fields[5], "/") || strings.Contains(sc.Text(), "(deleted)") {
			continue
		}
		add(strings.Join(fields[5:], " "))
	}
	return out, sc.Err()
}

// pidExecutable completes the parts of a uprobe attach point that leaves
// out its binary with -p (uprobe:FUNCTION, uprobe:cpp:FUNCTION): the
// process's executable, under /proc/PID/root as bpftrace names it.
func pidExecutable(pid int, parts []string) []string {
	if pid == 0 || !(len(parts) == 1 || len(parts) == 2 && parts[0] == LangCpp) {
		return parts
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return parts
	}
	return append([]string{"/proc/" + strconv.Itoa(pid) + "/root" + exe}, parts...)
}
