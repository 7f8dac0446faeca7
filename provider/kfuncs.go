package provider

import (
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/btfnames"
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
// function.
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

// HasGlob reports whether s is a wildcard pattern.
func HasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// kfuncExpander expands kind:[module:]function[+offset] attach points.
// offsets: the kind takes an offset (kprobe); needBTF: the function must be
// in BTF (trampolines).
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
		if module == "vmlinux" {
			module = ""
		}
		if module != "" {
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
		if env == nil {
			return nil, fmt.Errorf("kernel functions are unavailable: no environment")
		}
		spec, err := env.BTF()
		if err != nil || spec == nil {
			if needBTF {
				return nil, fmt.Errorf("%s needs kernel BTF (/sys/kernel/btf/vmlinux): %v", kind, err)
			}
			if HasGlob(fn) {
				return nil, fmt.Errorf("wildcards need kernel BTF (/sys/kernel/btf/vmlinux): %v", err)
			}
			return []*Point{{Name: kind + ":" + fn, Func: fn, Offset: offset}}, nil
		}
		var traceable map[string]bool
		if fl, ok := env.(FunctionLister); ok {
			traceable, _ = fl.TraceableFunctions()
		}
		var names []string
		protos := map[string]*btf.FuncProto{}
		if HasGlob(fn) {
			// Match the names, then decode only the matches.
			funcs, err := kernelFuncs(spec)
			if err != nil {
				return nil, fmt.Errorf("%s: kernel BTF: %w", kind, err)
			}
			for _, f := range funcs.Funcs() {
				if ok, _ := path.Match(fn, f.Name); ok && (traceable == nil || traceable[f.Name]) {
					names = append(names, f.Name)
				}
			}
			if len(names) == 0 {
				return nil, fmt.Errorf("no kernel functions match %s", fn)
			}
			sort.Strings(names)
			for _, n := range names {
				protos[n] = funcProto(spec, funcs, n)
			}
		} else {
			proto, ok := protoByName(spec, fn)
			if !ok && needBTF {
				return nil, fmt.Errorf("kernel function %s not found in BTF", fn)
			}
			protos[fn] = proto
			if traceable != nil && !traceable[fn] {
				return nil, fmt.Errorf("kernel function %s cannot be traced (not in available_filter_functions)", fn)
			}
			names = []string{fn}
		}
		out := make([]*Point, 0, len(names))
		for _, n := range names {
			pt := &Point{Name: kind + ":" + n, Func: n, Offset: offset}
			if offset != 0 {
				pt.Name += fmt.Sprintf("+%d", offset)
			}
			pt.Proto = protos[n]
			out = append(out, pt)
		}
		return out, nil
	}
}

// funcTargets are the kernel functions of the points, with their offsets.
func funcTargets(pts []*Point) []string {
	var targets []string
	for _, pp := range pts {
		target := pp.Func
		if pp.Offset != 0 {
			target += fmt.Sprintf("+%d", pp.Offset)
		}
		targets = append(targets, target)
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
		for _, n := range names {
			if !matchModule(pattern, n) {
				continue
			}
			if trampoline {
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
			for i, p := range proto.Params {
				name := p.Name
				if name == "" {
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
