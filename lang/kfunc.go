package lang

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// FunctionLister is an optional extension of Env: environments that know
// which kernel functions can be traced (available_filter_functions minus the
// kprobe blacklist) implement it, and wildcards expand only to those.
type FunctionLister interface {
	// TraceableFunctions returns the traceable functions, or nil when the
	// kernel does not say (the list is then not filtered).
	TraceableFunctions() (map[string]bool, error)
}

// kernelFuncs returns the BTF functions of the kernel by name, built once
// per check.
func (c *checker) kernelFuncs(spec *btf.Spec) map[string]*btf.Func {
	if c.funcs != nil {
		return c.funcs
	}
	c.funcs = map[string]*btf.Func{}
	for t, err := range spec.All() {
		if err != nil {
			break
		}
		if f, ok := t.(*btf.Func); ok {
			c.funcs[f.Name] = f
		}
	}
	return c.funcs
}

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// expandKfunc expands kprobe, kretprobe, fentry and fexit attach points.
func expandKfunc(c *checker, ap *ast.AttachPoint, parts []string) ([]*AttachPoint, error) {
	kind := lookupProvider(splitAttach(ap.Raw)[0]).name
	var module, fn string
	switch len(parts) {
	case 1:
		fn = parts[0]
	case 2:
		module, fn = parts[0], parts[1]
	default:
		return nil, fmt.Errorf("%s must be %s:[module:]function, got %q", kind, kind, ap.Raw)
	}
	if module == "vmlinux" {
		module = ""
	}
	if module != "" {
		return nil, fmt.Errorf("kernel module functions are not supported yet (%s)", module)
	}
	var offset uint64
	if i := strings.IndexByte(fn, '+'); i >= 0 {
		if kind != "kprobe" {
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
	if c.env == nil {
		return nil, fmt.Errorf("kernel functions are unavailable: no environment")
	}
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		if kind == "fentry" || kind == "fexit" {
			return nil, fmt.Errorf("%s needs kernel BTF (/sys/kernel/btf/vmlinux): %v", kind, err)
		}
		if hasGlob(fn) {
			return nil, fmt.Errorf("wildcards need kernel BTF (/sys/kernel/btf/vmlinux): %v", err)
		}
		return []*AttachPoint{{Name: kind + ":" + fn, Func: fn, Offset: offset}}, nil
	}
	funcs := c.kernelFuncs(spec)
	var traceable map[string]bool
	if fl, ok := c.env.(FunctionLister); ok {
		traceable, _ = fl.TraceableFunctions()
	}
	var names []string
	if hasGlob(fn) {
		for name := range funcs {
			if ok, _ := path.Match(fn, name); ok && (traceable == nil || traceable[name]) {
				names = append(names, name)
			}
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("no kernel functions match %s", fn)
		}
		sort.Strings(names)
	} else {
		if _, ok := funcs[fn]; !ok && (kind == "fentry" || kind == "fexit") {
			return nil, fmt.Errorf("kernel function %s not found in BTF", fn)
		}
		if traceable != nil && !traceable[fn] {
			return nil, fmt.Errorf("kernel function %s cannot be traced (not in available_filter_functions)", fn)
		}
		names = []string{fn}
	}
	out := make([]*AttachPoint, 0, len(names))
	for _, n := range names {
		pt := &AttachPoint{Name: kind + ":" + n, Func: n, Offset: offset}
		if offset != 0 {
			pt.Name += fmt.Sprintf("+%d", offset)
		}
		if f := funcs[n]; f != nil {
			pt.Proto, _ = f.Type.(*btf.FuncProto)
		}
		out = append(out, pt)
	}
	return out, nil
}

// expandRawTracepoint expands rawtracepoint:[module:]event through the BTF
// typedefs btf_trace_<event>.
func expandRawTracepoint(c *checker, ap *ast.AttachPoint, parts []string) ([]*AttachPoint, error) {
	var ev string
	switch len(parts) {
	case 1:
		ev = parts[0]
	case 2:
		if parts[0] != "vmlinux" {
			return nil, fmt.Errorf("kernel module raw tracepoints are not supported yet (%s)", parts[0])
		}
		ev = parts[1]
	default:
		return nil, fmt.Errorf("rawtracepoint must be rawtracepoint:[module:]event, got %q", ap.Raw)
	}
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return nil, fmt.Errorf("raw tracepoints need kernel BTF (/sys/kernel/btf/vmlinux): %v", err)
	}
	var out []*AttachPoint
	add := func(name string, td *btf.Typedef) {
		ptr, ok := td.Type.(*btf.Pointer)
		if !ok {
			return
		}
		proto, ok := ptr.Target.(*btf.FuncProto)
		if !ok || len(proto.Params) == 0 {
			return
		}
		// The typedef's parameters have no names; the __bpf_trace_<event>
		// function has the same prototype with names.
		var named *btf.Func
		if spec.TypeByName("__bpf_trace_"+name, &named) == nil {
			if np, ok := named.Type.(*btf.FuncProto); ok && len(np.Params) == len(proto.Params) {
				proto = np
			}
		}
		p := *proto
		p.Params = proto.Params[1:] // drop void *__data
		out = append(out, &AttachPoint{Name: "rawtracepoint:" + name, Func: name, Proto: &p})
	}
	if !hasGlob(ev) {
		var td *btf.Typedef
		if err := spec.TypeByName("btf_trace_"+ev, &td); err != nil {
			return nil, fmt.Errorf("raw tracepoint %s not found in BTF", ev)
		}
		add(ev, td)
		return out, nil
	}
	for t, err := range spec.All() {
		if err != nil {
			break
		}
		td, ok := t.(*btf.Typedef)
		if !ok || !strings.HasPrefix(td.Name, "btf_trace_") {
			continue
		}
		name := strings.TrimPrefix(td.Name, "btf_trace_")
		if ok, _ := path.Match(ev, name); ok {
			add(name, td)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no raw tracepoints match %s", ev)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Func < out[j].Func })
	return out, nil
}

// kfuncArgs builds the args record of a kernel-function probe from its BTF
// prototype: field i is parameter i, at offset 8*i in the argument array.
func (c *checker) kfuncArgs(pt *AttachPoint) (*types.Type, string) {
	if pt.Proto == nil {
		return nil, fmt.Sprintf("args is not available for %s: no BTF prototype", pt.Name)
	}
	rec := &types.Type{Kind: types.Record, Name: "args"}
	for i, p := range pt.Proto.Params {
		// Without a __user tag the address space of an argument is unknown:
		// it is read with the helpers that work for both (x86).
		t := btfToType(p.Type, types.NoAS)
		if t == nil || t.Kind == types.Struct || t.Kind == types.Array {
			// passed by value in several registers: not addressable as one slot
			continue
		}
		if pt.Provider == "kprobe" && i >= 6 {
			break // only register arguments
		}
		name := p.Name
		if name == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		rec.Fields = append(rec.Fields, types.Field{Name: name, Type: t, Offset: 8 * i})
	}
	return rec, ""
}
