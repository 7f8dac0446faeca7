package tracefs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Well-known files of the running kernel (LiveKernel).
const (
	// KprobeBlacklist lists the functions kprobes refuse (debugfs).
	KprobeBlacklist = "/sys/kernel/debug/kprobes/blacklist"
	// Kallsyms is the kernel symbol table.
	Kallsyms = "/proc/kallsyms"
	// ProcModules lists the loaded kernel modules.
	ProcModules = "/proc/modules"
)

// KernelFiles names the files beside tracefs that say which kernel
// functions exist and which kprobes may attach to. An empty name is a file
// the Env does not read.
type KernelFiles struct {
	Kallsyms  string // /proc/kallsyms
	Blacklist string // the kprobe blacklist (debugfs)
	Modules   string // /proc/modules: present when the kernel loads modules
	// ModuleSymbols is depmod's modules.symbols of the running kernel
	// ("alias symbol:NAME MODULE" for each exported symbol of each module),
	// which names the module of a function that is not loaded.
	ModuleSymbols string
}

// LiveKernel returns the files of the running kernel.
func LiveKernel() KernelFiles {
	f := KernelFiles{Kallsyms: Kallsyms, Blacklist: KprobeBlacklist, Modules: ProcModules}
	var uts unix.Utsname
	if unix.Uname(&uts) == nil {
		f.ModuleSymbols = filepath.Join("/lib/modules", unix.ByteSliceToString(uts.Release[:]), "modules.symbols")
	}
	return f
}

// WithKernelFiles makes the Env read the kernel's symbol table, kprobe
// blacklist and module lists from files (LiveKernel for the running
// kernel). Without it an Env reads none of them: TraceableFunctions is then
// available_filter_functions as it stands, and KernelSymbols returns nil.
func WithKernelFiles(files KernelFiles) Option {
	return func(e *Env) { e.files = files }
}

// funcList caches the traceable function list and symbols of an Env.
type funcList struct {
	once     sync.Once
	funcs    map[string]bool
	syms     *Symbols
	symsRead bool // syms was read (it is nil when it cannot be)
	symsOnce sync.Once
	err      error
}

// TraceableFunctions implements provider.FunctionLister: the vmlinux functions
// in available_filter_functions, minus those on the kprobe blacklist (when
// it can be read), minus names that kallsyms lists more than once (static
// functions of the same name in several files: a name cannot select one of
// them), and minus the functions bpftrace 0.26 keeps from wildcards because
// tracing them can hang the machine (arch_cpu_idle, default_idle,
// bpf_dispatcher_xdp_func, rcu_*) or that are not functions
// (__ftrace_invalid_address__*). Functions of kernel modules are left out.
// The list is read once and cached.
//
// When available_filter_functions cannot be read (no CONFIG_FUNCTION_TRACER,
// or reading it is refused, as with lockdown on some kernels) it returns
// nil, nil: the kernel does not say, and wildcards are not filtered.
func (e *Env) TraceableFunctions() (map[string]bool, error) {
	e.loadFuncs()
	return e.funcs.funcs, e.funcs.err
}

// KernelSymbols returns what the kernel's symbol table says about its
// functions, or nil, nil when the Env reads no symbol table (see
// WithKernelFiles) or it cannot be read.
func (e *Env) KernelSymbols() (*Symbols, error) {
	e.loadFuncs()
	e.funcs.symsOnce.Do(func() {
		if !e.funcs.symsRead && e.funcs.err == nil {
			// available_filter_functions could not be read: the table
			// alone.
			e.funcs.syms, _ = readSymbols(e.files)
			e.funcs.symsRead = true
		}
	})
	return e.funcs.syms, e.funcs.err
}

// loadFuncs reads available_filter_functions and, when it can be read, the
// symbol table that filters it. Where it cannot, the symbol table is left
// for KernelSymbols to read when asked: /proc/kallsyms alone costs about
// 50 ms of kernel time, which a script on a function of BTF need not pay.
func (e *Env) loadFuncs() {
	e.funcs.once.Do(func() {
		e.funcs.syms, e.funcs.funcs, e.funcs.symsRead, e.funcs.err = readFuncs(e.root, e.files)
	})
}

// AvoidFunc reports the functions bpftrace 0.26 leaves out of the traceable
// list (from the kernel's kprobe_multi selftest): tracing them can make the
// machine unstable.
func AvoidFunc(name string) bool {
	switch name {
	case "arch_cpu_idle", "default_idle", "bpf_dispatcher_xdp_func":
		return true
	}
	return strings.HasPrefix(name, "__ftrace_invalid_address__") || strings.HasPrefix(name, "rcu_")
}

func readFuncs(root string, files KernelFiles) (syms *Symbols, funcs map[string]bool, symsRead bool, err error) {
	// The kernel formats both lists line by line as they are read, which
	// is most of their cost (about a second each in an emulated guest):
	// the symbol table is read alongside available_filter_functions.
	// The list is opened first: where it cannot be (no ftrace, a locked
	// down kernel), the symbol table is not read at all.
	affFile, err := os.Open(filepath.Join(root, "available_filter_functions"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, nil, false, nil
		}
		return nil, nil, false, fmt.Errorf("read traceable functions: %w", err)
	}
	defer affFile.Close()
	symsDone := make(chan *Symbols, 1)
	go func() {
		// A symbol table that cannot be read leaves the kernel to
		// decide, as when there is none.
		s, _ := readSymbols(files)
		symsDone <- s
	}()
	data, err := io.ReadAll(affFile)
	if err != nil {
		<-symsDone
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, nil, false, nil
		}
		return nil, nil, false, fmt.Errorf("read traceable functions: %w", err)
	}
	aff := ParseFunctionList(data)
	syms = <-symsDone
	funcs = make(map[string]bool, len(aff))
	for name := range aff {
		if AvoidFunc(name) {
			continue
		}
		if syms != nil && (syms.blacklist[name] || syms.text[name].n > 1) {
			continue
		}
		funcs[name] = true
	}
	if syms != nil {
		syms.ftrace = aff
		syms.ftraceAddrs = map[uint64]bool{}
		for name := range aff {
			if s, ok := syms.text[name]; ok && s.addr != 0 {
				syms.ftraceAddrs[s.addr] = true
			}
		}
	}
	return syms, funcs, true, nil
}

// Symbols is what the kernel's symbol table (/proc/kallsyms), its kprobe
// blacklist, available_filter_functions and the module lists say about
// the kernel's (vmlinux) functions.
type Symbols struct {
	text      map[string]textSym // vmlinux text symbols
	modText   map[string]string  // text symbols of loaded modules → module
	namesOnce sync.Once
	names     []string // the keys of text, sorted (sortedNames)
	blacklist map[string]bool
	modular   bool            // the kernel loads modules
	modules   map[string]bool // the loaded modules (/proc/modules)

	ftrace      map[string]bool // available_filter_functions (vmlinux), nil when unreadable
	ftraceAddrs map[uint64]bool // their addresses

	modSymsPath string
	modOnce     sync.Once
	modSyms     map[string]string // exported symbol → module
}

type textSym struct {
	addr uint64 // 0 when kallsyms hides addresses
	n    int    // how many times kallsyms lists the name
}

// readSymbols reads the symbol files; nil, nil when there is no symbol
// table to read.
func readSymbols(files KernelFiles) (*Symbols, error) {
	if files.Kallsyms == "" {
		return nil, nil
	}
	f, err := os.Open(files.Kallsyms)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			return nil, nil
		}
		return nil, err
	}
	defer f.Close()
	s := &Symbols{text: make(map[string]textSym, 1<<16), modText: map[string]string{}, modSymsPath: files.ModuleSymbols}
	err = ReadKallsyms(f, func(sym Kallsym) bool {
		if sym.Type != 't' && sym.Type != 'T' {
			return true
		}
		if sym.Module != nil {
			if _, ok := s.modText[string(sym.Name)]; !ok {
				s.modText[string(sym.Name)] = string(bytes.Trim(sym.Module, "[]"))
			}
			return true
		}
		ts, seen := s.text[string(sym.Name)]
		if !seen {
			ts.addr = sym.Addr()
		}
		ts.n++
		s.text[string(sym.Name)] = ts
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", files.Kallsyms, err)
	}
	s.blacklist = map[string]bool{}
	if files.Blacklist != "" {
		if bl, err := os.ReadFile(files.Blacklist); err == nil {
			for line := range strings.Lines(string(bl)) {
				// "0xADDR-0xADDR\tname [module]" (addresses are 0 without privileges)
				if f := strings.Fields(line); len(f) == 2 {
					s.blacklist[f[1]] = true
				}
			}
		}
	}
	if files.Modules != "" {
		data, err := os.ReadFile(files.Modules)
		s.modular = err == nil
		s.modules = map[string]bool{}
		for line := range strings.Lines(string(data)) {
			// "name size refcount deps state addr"
			if f := strings.Fields(line); len(f) > 0 {
				s.modules[f[0]] = true
			}
		}
	}
	return s, nil
}

// Count returns how many times kallsyms lists name as a vmlinux text
// symbol: 0 for none, more than 1 for static functions of the same name in
// several files (which a kprobe by name cannot select: the kernel refuses
// it).
func (s *Symbols) Count(name string) int { return s.text[name].n }

// Names returns the vmlinux text symbols, sorted, each once.
func (s *Symbols) Names() []string {
	s.namesOnce.Do(func() {
		s.names = make([]string, 0, len(s.text))
		for n := range s.text {
			s.names = append(s.names, n)
		}
		sort.Strings(s.names)
	})
	return s.names
}

// Variants returns the symbols that are name with a suffix the compiler
// adds when it specialises or splits a function (name.isra.0,
// name.constprop.0, name.part.0, name.cold), sorted.
func (s *Symbols) Variants(name string) []string {
	prefix := name + "."
	names := s.Names()
	var out []string
	for i := sort.SearchStrings(names, prefix); i < len(names) && strings.HasPrefix(names[i], prefix); i++ {
		out = append(out, names[i])
	}
	return out
}

// LoadedModule returns the loaded module kallsyms lists a function name
// in, "" when there is none.
func (s *Symbols) LoadedModule(name string) string { return s.modText[name] }

// Blacklisted reports whether name is on the kprobe blacklist.
func (s *Symbols) Blacklisted(name string) bool { return s.blacklist[name] }

// ModuleLoaded reports whether the module is loaded (/proc/modules, or a
// function kallsyms lists in it).
func (s *Symbols) ModuleLoaded(module string) bool {
	if s.modules[module] {
		return true
	}
	for _, m := range s.modText {
		if m == module {
			return true
		}
	}
	return false
}

// Modular reports whether the kernel loads modules (/proc/modules exists).
func (s *Symbols) Modular() bool { return s.modular }

// Module returns the module that exports name according to depmod's
// modules.symbols, or "" when it does not say.
func (s *Symbols) Module(name string) string {
	s.modOnce.Do(func() {
		if s.modSymsPath == "" {
			return
		}
		data, err := os.ReadFile(s.modSymsPath)
		if err != nil {
			return
		}
		s.modSyms = map[string]string{}
		for line := range strings.Lines(string(data)) {
			// "alias symbol:NAME MODULE"
			f := strings.Fields(line)
			if len(f) == 3 && f[0] == "alias" && strings.HasPrefix(f[1], "symbol:") {
				s.modSyms[strings.TrimPrefix(f[1], "symbol:")] = f[2]
			}
		}
	})
	return s.modSyms[name]
}

// HasFtrace reports whether ftrace can attach at the entry of name: it is
// in available_filter_functions, or it is another name of a function that
// is (kallsyms gives both the same address, as __x64_sys_getpid and
// __ia32_sys_getpid). known is false when the kernel does not say
// (available_filter_functions or kallsyms addresses cannot be read).
//
// Kprobe events (and so BPF kprobes) refuse a function without an ftrace
// location unless the kernel has CONFIG_KPROBE_EVENTS_ON_NOTRACE; for a
// renamed function (name.isra.0) the kernel looks at the function of the
// base name.
func (s *Symbols) HasFtrace(name string) (ok, known bool) {
	if s.ftrace == nil {
		return false, false
	}
	if s.ftrace[name] {
		return true, true
	}
	sym, found := s.text[name]
	if !found || sym.addr == 0 {
		return false, found && len(s.ftraceAddrs) > 0
	}
	if s.ftraceAddrs[sym.addr] {
		return true, true
	}
	if base, _, renamed := strings.Cut(name, "."); renamed && base != "" {
		if b, ok := s.text[base]; ok && b.addr != 0 {
			return s.ftraceAddrs[b.addr] || s.ftrace[base], true
		}
	}
	return false, true
}

// NewSymbols returns a Symbols for tests: text lists the vmlinux text
// symbols (a name twice for a duplicate), at addresses 0x1000 apart, or at
// the same address as the previous one when the name is prefixed with "=",
// and functions of loaded modules as "name [module]";
// ftrace is available_filter_functions (nil: unreadable).
func NewSymbols(text, blacklist, ftrace []string, modular bool, moduleSymbols map[string]string) *Symbols {
	s := &Symbols{text: map[string]textSym{}, modText: map[string]string{}, blacklist: map[string]bool{}, modular: modular, modSyms: moduleSymbols}
	s.modOnce.Do(func() {})
	addr := uint64(0xffffffff81000000)
	for _, n := range text {
		if name, mod, ok := strings.Cut(n, " "); ok {
			s.modText[name] = strings.Trim(mod, "[]")
			continue
		}
		if alias, ok := strings.CutPrefix(n, "="); ok {
			n = alias
		} else {
			addr += 0x1000
		}
		ts := s.text[n]
		if ts.n == 0 {
			ts.addr = addr
		}
		ts.n++
		s.text[n] = ts
	}
	for _, n := range blacklist {
		s.blacklist[n] = true
	}
	if ftrace != nil {
		s.ftrace, s.ftraceAddrs = map[string]bool{}, map[uint64]bool{}
		for _, n := range ftrace {
			s.ftrace[n] = true
			if ts, ok := s.text[n]; ok {
				s.ftraceAddrs[ts.addr] = true
			}
		}
	}
	return s
}

// ParseFunctionList reads a list of functions in the format of
// available_filter_functions, one a line, leaving out those of modules
// ("name [module]").
func ParseFunctionList(data []byte) map[string]bool {
	funcs := make(map[string]bool, bytes.Count(data, []byte("\n")))
	for line := range strings.Lines(string(data)) {
		name := strings.TrimSpace(line)
		if name == "" || strings.ContainsAny(name, " \t[") {
			continue // "name [module]": a module's function
		}
		funcs[name] = true
	}
	return funcs
}
