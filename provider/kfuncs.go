package provider

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/btfnames"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/tracefs"
)

// This file holds what the kernel-function providers (kprobe, kretprobe,
// fentry, fexit) share: expansion over BTF and the traceable functions, and
// listing.

// kernelFuncs returns the function names of spec, read without decoding
// the types (see internal/btfnames); funcProto decodes one of them.
func kernelFuncs(spec *btf.Spec) (*btfnames.Index, error) {
	return btfnames.For(spec)
}

// funcProto returns the prototype of the BTF function name, or nil.
func funcProto(spec *btf.Spec, ix *btfnames.Index, name string) *btf.FuncProto {
	id, ok := ix.Func(name)
	if !ok {
		return nil
	}
	return protoByID(spec, id)
}

// protoByID returns the prototype of the BTF function id, or nil.
func protoByID(spec *btf.Spec, id btf.TypeID) *btf.FuncProto {
	t, err := spec.TypeByID(id)
	if err != nil {
		return nil
	}
	if f, ok := t.(*btf.Func); ok {
		proto, _ := f.Type.(*btf.FuncProto)
		return proto
	}
	return nil
}

// protoByName returns the prototype of the BTF function name, found
// through the spec's name index; ok is false when there is no such
// function. For one name this is cheaper than the raw BTF's name index
// (internal/btfnames), which a wildcard needs anyway.
//
// cilium/ebpf indexes names without a CO-RE flavour suffix ("___..."): by
// name, ___bpf_prog_run is not found and foo___bar would find foo. So only
// a function of exactly that name is taken, and names with "___" are
// looked up in the name index of the raw BTF.
func protoByName(spec *btf.Spec, name string) (proto *btf.FuncProto, ok bool) {
	if strings.Contains(name, "___") {
		ix, err := btfnames.For(spec)
		if err != nil {
			return nil, false
		}
		proto := funcProto(spec, ix, name)
		return proto, proto != nil
	}
	types, err := spec.AnyTypesByName(name)
	if err != nil {
		return nil, false
	}
	for _, t := range types {
		if f, isFunc := t.(*btf.Func); isFunc && f.Name == name {
			proto, _ = f.Type.(*btf.FuncProto)
			return proto, true
		}
	}
	return nil, false
}

// ErrNoMatch is what the error of a wildcard that matches nothing wraps: as
// in bpftrace, a probe with other attach points drops it quietly.
var ErrNoMatch = errors.New("the wildcard matches nothing")

// noMatch is an error wrapping ErrNoMatch with its own message.
type noMatch string

func (e noMatch) Error() string        { return string(e) }
func (e noMatch) Is(target error) bool { return target == ErrNoMatch }

// HasGlob reports whether s is a wildcard pattern.
func HasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// kfuncExpander expands kind:[module:]function[+offset] attach points.
// offsets: the kind takes an offset (kprobe); needBTF: the function must be
// in BTF (trampolines).
//
// A kprobe attaches with a breakpoint wherever the kernel lets it: an exact
// name is accepted when kallsyms lists it once and it is not on the kprobe
// blacklist, even when available_filter_functions lacks it (the kernel
// decides at attach). Wildcards match the names available_filter_functions
// spells (compiler suffixes such as .isra.0 included). Trampolines need
// the function in BTF and in available_filter_functions.
func kfuncExpander(kind string, offsets, needBTF bool) func(ExpandEnv, string, []string) ([]*Point, error) {
	return func(env ExpandEnv, raw string, parts []string) ([]*Point, error) {
		var module, fn string
		switch len(parts) {
		case 1:
			fn = parts[0]
		case 2:
			module, fn = parts[0], parts[1]
		default:
			return nil, fmt.Errorf("%s must be %s:[module:]function, got %q", kind, kind, raw)
		}
		if module == "vmlinux" || HasGlob(module) && matchGlob(module, "vmlinux") {
			module = "" // vmlinu*:FUNCTION is the kernel's own function
		}
		if HasGlob(module) {
			return nil, noMatch(fmt.Sprintf("No matches for %s %s:%s.", kind, module, fn))
		}
		if module != "" {
			if ks, ok := env.(KernelSymbols); ok && !needBTF {
				if syms, _ := ks.KernelSymbols(); syms != nil && syms.Modular() && !syms.ModuleLoaded(module) {
					// bpftrace 0.26's words
					return nil, fmt.Errorf("specified module %s in probe %s:%s:%s is not loaded.", module, kind, module, fn)
				}
			}
			return nil, fmt.Errorf("kernel module functions are not supported yet (%s)", module)
		}
		var offset uint64
		if i := strings.IndexByte(fn, '+'); i >= 0 {
			if !offsets {
				return nil, fmt.Errorf("only kprobes take an offset")
			}
			v, err := strconv.ParseUint(fn[i+1:], 0, 64)
			if err != nil {
				return nil, fmt.Errorf("invalid kprobe offset %q", fn[i+1:])
			}
			fn, offset = fn[:i], v
		}
		if fn == "" {
			return nil, fmt.Errorf("%s needs a function name", kind)
		}
		if addr, ok := kprobeAddress(fn); ok && !needBTF && module == "" {
			// kprobe:ADDRESS: the kernel is given the address unchecked.
			if !TargetOf(env).Unsafe {
				return nil, fmt.Errorf("Probing by address requires --unsafe")
			}
			name := strconv.FormatUint(addr, 10) // bpftrace's name: kprobe:305419896
			return []*Point{{Name: kind + ":" + name, Func: name, NoFtrace: true}}, nil
		}
		if env == nil {
			return nil, fmt.Errorf("kernel functions are unavailable: no environment")
		}
		var traceable map[string]bool
		fl, listed := env.(FunctionLister)
		given := TargetOf(env).TraceableFunctions // --traceable-functions
		if given != "" {
			var err error
			if traceable, err = readFunctionList(given); err != nil {
				return nil, err
			}
			listed = false
		}
		var traceableDone chan struct{}
		if listed {
			// The traceable list (read once per Env) and BTF's names are
			// read at the same time.
			traceableDone = make(chan struct{})
			go func() {
				defer close(traceableDone)
				traceable, _ = fl.TraceableFunctions()
			}()
		}
		spec, btfErr := env.BTF()
		if listed {
			<-traceableDone
		}
		if btfErr == nil && spec == nil {
			btfErr = fmt.Errorf("no BTF")
		}
		if btfErr != nil {
			spec = nil
			if needBTF {
				return nil, fmt.Errorf("%s needs kernel BTF (/sys/kernel/btf/vmlinux): %v", kind, btfErr)
			}
		}
		// The symbol table is read only where it decides: reading
		// /proc/kallsyms alone costs ~50 ms of kernel time.
		var syms *tracefs.Symbols
		symsRead := false
		kernelSyms := func() *tracefs.Symbols {
			if !symsRead {
				symsRead = true
				if ks, ok := env.(KernelSymbols); ok {
					syms, _ = ks.KernelSymbols()
				}
			}
			return syms
		}
		var names []string
		noFtrace := map[string]bool{}
		// The prototypes: a wildcard's matches by ID, decoded when used;
		// a single function's decoded.
		ids := map[string]btf.TypeID{}
		protos := map[string]*btf.FuncProto{}
		switch {
		case HasGlob(fn):
			var ix *btfnames.Index
			if spec != nil {
				var err error
				if ix, err = kernelFuncs(spec); err != nil {
					return nil, fmt.Errorf("%s: kernel BTF: %w", kind, err)
				}
			}
			if !needBTF && traceable == nil {
				kernelSyms()
			}
			var err error
			if names, err = matchKernelFuncs(fn, needBTF, ix, traceable, syms); err != nil {
				return nil, fmt.Errorf("%s: %w", kind, err)
			}
			if len(names) == 0 {
				return nil, noMatch(fmt.Sprintf("no kernel functions match %s", fn))
			}
			for _, n := range names {
				if ix != nil {
					if id, ok := ix.Func(n); ok {
						ids[n] = id
					}
				}
			}
		case needBTF:
			proto, ok := protoByName(spec, fn)
			if !ok {
				if syms := kernelSyms(); syms != nil {
					if v := renamedVariants(syms, fn); len(v) > 0 {
						kp := "kprobe"
						if kind == "fexit" {
							kp = "kretprobe"
						}
						return nil, fmt.Errorf("kernel function %s not found in BTF: the compiler renamed it (%s), and BTF describes no renamed function; %s:%s attaches to it", fn, strings.Join(v, ", "), kp, v[0])
					}
				}
				return nil, fmt.Errorf("No matches for %s %s.", kind, fn) // bpftrace's words: BTF has no such function
			}
			protos[fn] = proto
			if traceable != nil && !traceable[fn] {
				return nil, fmt.Errorf("kernel function %s cannot be traced (not in available_filter_functions)", fn)
			}
			names = []string{fn}
		default:
			var inBTF bool
			if spec != nil {
				protos[fn], inBTF = protoByName(spec, fn)
			}
			// A name available_filter_functions lists (which leaves out
			// the blacklist and ambiguous names) needs no more checks,
			// nor, when that list cannot be read, one that BTF has: the
			// kernel decides at attach.
			var missing *NotTraceable
			if given != "" && !traceable[fn] {
				missing = &NotTraceable{Func: fn} // the list the user gave decides, as in bpftrace
			} else if !traceable[fn] && (traceable != nil || !inBTF) {
				if err := checkKprobeFunc(kind, fn, offset, kernelSyms()); err != nil && !errors.As(err, &missing) {
					return nil, err
				}
			}
			if missing != nil {
				missing.Msg = fmt.Sprintf("No matches for %s %s.", kind, strings.Join(parts, ":"))
				if !TargetOf(env).Unsafe {
					return nil, missing
				}
				// --unsafe: the warning alone, and the kernel is asked
				// all the same, as bpftrace does.
				// Named as bpftrace names it in the attach error: with
				// the module when the script wrote one.
				name := kind + ":" + fn
				if len(parts) == 2 {
					name = kind + ":" + parts[0] + ":" + fn
				}
				pt := &Point{Name: name, Func: fn, Offset: offset, NoFtrace: true}
				if offset != 0 {
					pt.Name += fmt.Sprintf("+%d", offset)
				}
				pt.SetProto(protos[fn])
				missing.Points = []*Point{pt}
				return nil, missing
			}
			switch {
			case syms != nil && syms.Count(fn) == 0:
				noFtrace[fn] = true // a module's function: one kprobe of its own
			case syms != nil:
				has, known := syms.HasFtrace(fn)
				noFtrace[fn] = known && !has
			case traceable != nil:
				noFtrace[fn] = !traceable[fn]
			}
			names = []string{fn}
		}
		out := make([]*Point, 0, len(names))
		for _, n := range names {
			pt := &Point{Name: kind + ":" + n, Func: n, Offset: offset, NoFtrace: noFtrace[n]}
			if offset != 0 {
				pt.Name += fmt.Sprintf("+%d", offset)
			}
			if id, ok := ids[n]; ok {
				pt.setLazyProto(spec, id)
			} else {
				pt.SetProto(protos[n])
			}
			out = append(out, pt)
		}
		return out, nil
	}
}

// matchKernelFuncs returns the kernel functions a wildcard matches,
// sorted. Trampolines (needBTF) take the functions of BTF that are
// traceable; kprobes take the names of available_filter_functions as the
// kernel spells them (suffixes included), else, when it cannot be read,
// the functions kallsyms lists once with a BTF name (their own or, for a
// renamed function, the base name's), else the functions of BTF. As in
// bpftrace, a function's .part.N fragment is matched only by a pattern
// that says .part.
func matchKernelFuncs(pattern string, needBTF bool, ix *btfnames.Index, traceable map[string]bool, syms *tracefs.Symbols) ([]string, error) {
	parts := strings.Contains(pattern, ".part.")
	var names []string
	add := func(n string) {
		if ok, _ := path.Match(pattern, n); ok && (parts || !strings.Contains(n, ".part.")) {
			names = append(names, n)
		}
	}
	inBTF := func(n string) bool {
		if ix == nil {
			return false
		}
		_, ok := ix.Func(n)
		return ok
	}
	switch {
	case needBTF || (traceable == nil && syms == nil):
		if ix == nil {
			return nil, fmt.Errorf("wildcards need kernel BTF (/sys/kernel/btf/vmlinux) or available_filter_functions")
		}
		for _, f := range ix.Funcs() {
			if traceable == nil || traceable[f.Name] {
				add(f.Name)
			}
		}
	case traceable != nil:
		for n := range traceable {
			add(n)
		}
	default:
		if ix == nil {
			return nil, fmt.Errorf("wildcards need kernel BTF (/sys/kernel/btf/vmlinux) or available_filter_functions")
		}
		for _, n := range syms.Names() {
			base, _, _ := strings.Cut(n, ".")
			if syms.Count(n) == 1 && !syms.Blacklisted(n) && !tracefs.AvoidFunc(n) && !strings.HasSuffix(n, ".cold") && inBTF(base) {
				add(n)
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// checkKprobeFunc refuses an exact kprobe the kernel would refuse for want
// of the function: kallsyms does not list it (in vmlinux or a loaded
// module), lists it more than once, or it is on the kprobe blacklist.
// Without a symbol table the kernel decides.
func checkKprobeFunc(kind, fn string, offset uint64, syms *tracefs.Symbols) error {
	if syms == nil {
		return nil
	}
	switch n := syms.Count(fn); {
	case n == 0 && syms.LoadedModule(fn) != "":
		return nil // the kernel finds functions of loaded modules by name
	case n == 0:
		return missingFuncError(kind, fn, offset, syms)
	case n > 1:
		return fmt.Errorf("kernel function %s is ambiguous: /proc/kallsyms lists %d functions of that name (static functions of several files), and the kernel refuses a kprobe on a name that does not select one", fn, n)
	case syms.Blacklisted(fn):
		return fmt.Errorf("kernel function %s is on the kprobe blacklist (%s): the kernel refuses kprobes on it", fn, tracefs.KprobeBlacklist)
	}
	return nil
}

// missingFuncError says why the kernel has no function fn: the compiler
// renamed it, it lives in a module that is not loaded, or it was inlined.
func missingFuncError(kind, fn string, offset uint64, syms *tracefs.Symbols) error {
	if v := renamedVariants(syms, fn); len(v) > 0 {
		off := ""
		if offset != 0 {
			off = fmt.Sprintf("+%d", offset)
		}
		alts := make([]string, len(v))
		for i, n := range v {
			alts[i] = kind + ":" + n + off
		}
		if len(alts) > 3 {
			alts = append(alts[:2], kind+":"+fn+".*"+off)
		}
		return fmt.Errorf("No matches for %s %s: the compiler renamed the function; did you mean %s?", kind, fn, orList(alts))
	}
	if m := syms.Module(fn); m != "" {
		return fmt.Errorf("No matches for %s %s: the function is in kernel module %s, which is not loaded.", kind, fn, m)
	}
	return &NotTraceable{Func: fn, Msg: fmt.Sprintf("No matches for %s %s.", kind, fn)}
}

// NotTraceable is the error of a kernel function that /proc/kallsyms does
// not list: bpftrace's checker warns that Func "is not traceable (either
// non-existing, inlined, or marked as "notrace")" and then errors with
// Msg, "No matches for kprobe NAME.", as the missing_probes config says.
type NotTraceable struct {
	Func, Msg string
	// Points, when set, are attached all the same (--unsafe): the
	// warning is said, not the error.
	Points []*Point
}

func (e *NotTraceable) Error() string { return e.Msg }

// Warning is bpftrace's warning for e, said before its error.
func (e *NotTraceable) Warning() string {
	return fmt.Sprintf(`%s is not traceable (either non-existing, inlined, or marked as "notrace"); attaching to it will likely fail`, e.Func)
}

// renamedVariants returns the functions kallsyms lists once that are fn
// renamed by the compiler (fn.isra.0, fn.constprop.0, fn.part.0), without
// the .cold fragments, which are not function entries.
func renamedVariants(syms *tracefs.Symbols, fn string) []string {
	var out []string
	for _, v := range syms.Variants(fn) {
		if !strings.HasSuffix(v, ".cold") && syms.Count(v) == 1 {
			out = append(out, v)
		}
	}
	return out
}

// orList joins "a", "a or b", "a, b or c".
func orList(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// RenamedFunc splits the name of a function the compiler renamed
// (lookup_fast.constprop.0) into the source name and the suffix; ok is
// false for other names. BTF describes no renamed function: the compiler
// may have changed its arguments.
func RenamedFunc(name string) (base, suffix string, ok bool) {
	i := strings.IndexByte(name, '.')
	if i <= 0 {
		return name, "", false
	}
	return name[:i], name[i:], true
}

// funcTargets are the kernel functions of the points, with their offsets,
// and the address of kprobe:ADDRESS.
func funcTargets(pts []*Point) []object.Target {
	var targets []object.Target
	for _, pp := range pts {
		t := FuncTarget{Func: pp.Func, Offset: pp.Offset}
		t.Addr, t.ByAddr = kprobeAddress(pp.Func)
		targets = append(targets, t)
	}
	return targets
}

// matchModule matches a glob; a pattern without a module part also
// matches "vmlinux:"-qualified names.
func matchModule(pattern, name string) bool {
	if m, rest, ok := strings.Cut(pattern, ":"); ok {
		if ok, _ := path.Match(m, "vmlinux"); !ok {
			return false
		}
		pattern = rest
	}
	ok, _ := path.Match(pattern, name)
	return ok
}

// matchGlob matches a glob pattern against a name.
func matchGlob(pattern, name string) bool { return MatchGlob(pattern, name) }

// MatchGlob reports whether name matches the shell pattern (path.Match: *
// does not cross '/').
func MatchGlob(pattern, name string) bool {
	ok, _ := path.Match(pattern, name)
	return ok
}

// funcLister lists kernel-function targets of kind: the traceable
// functions (available_filter_functions minus the kprobe blacklist and
// ambiguous names) when the kernel says, else every function in BTF.
// Trampolines list only functions in BTF, as kind:vmlinux:name; retval
// says the listing shows the return value.
func funcLister(kind string, trampoline, retval bool) func(io.Writer, ListEnv, string, bool) error {
	return func(w io.Writer, env ListEnv, pattern string, verbose bool) error {
		var traceable map[string]bool
		if fl, ok := env.(FunctionLister); ok {
			var err error
			if traceable, err = fl.TraceableFunctions(); err != nil {
				return err
			}
		}
		spec, btfErr := env.BTF()
		funcs := &btfnames.Index{}
		if btfErr == nil {
			if funcs, btfErr = kernelFuncs(spec); btfErr != nil {
				return btfErr
			}
		} else if trampoline || traceable == nil {
			return btfErr
		}
		var names []string
		if traceable != nil {
			for n := range traceable {
				if _, ok := funcs.Func(n); trampoline && !ok {
					continue
				}
				names = append(names, n)
			}
		} else {
			for _, f := range funcs.Funcs() {
				names = append(names, f.Name)
			}
		}
		slices.Sort(names)
		// bpftrace 0.27.1 names the module of a trampoline always, and of
		// a kprobe when the pattern names one (kprobe:*:vfs_read lists
		// kprobe:vmlinux:vfs_read, kprobe:vfs_read kprobe:vfs_read)
		withModule := trampoline || strings.Contains(pattern, ":")
		for _, n := range names {
			if !matchModule(pattern, n) {
				continue
			}
			if withModule {
				fmt.Fprintf(w, "%s:vmlinux:%s\n", kind, n)
			} else {
				fmt.Fprintf(w, "%s:%s\n", kind, n)
			}
			if !verbose {
				continue
			}
			proto := funcProto(spec, funcs, n)
			if proto == nil {
				continue
			}
			// a kprobe reads its arguments as argN, and a kretprobe has
			// only retval: bpftrace 0.27.1 lists them so
			for i, p := range proto.Params {
				if !trampoline && retval {
					break
				}
				name := p.Name
				if name == "" || !trampoline {
					name = "arg" + strconv.Itoa(i)
				}
				if _, isVoid := p.Type.(*btf.Void); isVoid && i == len(proto.Params)-1 {
					fmt.Fprintf(w, "    ...\n") // varargs
					continue
				}
				fmt.Fprintf(w, "    %s\n", Declare(p.Type, name))
			}
			if retval {
				if _, isVoid := proto.Return.(*btf.Void); !isVoid {
					fmt.Fprintf(w, "    %s\n", Declare(proto.Return, "retval"))
				}
			}
		}
		return nil
	}
}

// readFunctionList reads the file of --traceable-functions, in
// available_filter_functions' format.
func readFunctionList(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--traceable-functions: %w", err)
	}
	return tracefs.ParseFunctionList(data), nil
}
