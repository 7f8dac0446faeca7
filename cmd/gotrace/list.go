package main

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace"
)

// listProviders maps the provider names and aliases -l accepts to the
// canonical name.
var listProviders = map[string]string{
	"tracepoint": "tracepoint", "t": "tracepoint",
	"kprobe": "kprobe", "k": "kprobe",
	"kretprobe": "kretprobe", "kr": "kretprobe",
	"fentry": "fentry", "f": "fentry", "kfunc": "fentry",
	"fexit": "fexit", "fr": "fexit", "kretfunc": "fexit",
	"rawtracepoint": "rawtracepoint", "rt": "rawtracepoint",
}

// listOrder is the order providers are listed in when the pattern names
// none.
var listOrder = []string{"kprobe", "kretprobe", "fentry", "fexit", "rawtracepoint", "tracepoint"}

// listProbes implements -l and -lv: it prints the probes matching the
// pattern in args (all probes without one) the way bpftrace does, with
// their arguments when verbose: BTF parameters (and retval for fexit) for
// kernel functions, format fields for tracepoints.
func listProbes(stdout, stderr io.Writer, args []string, verbose bool) int {
	pattern := "*"
	switch len(args) {
	case 0:
	case 1:
		pattern = args[0]
	default:
		fmt.Fprintf(stderr, "gotrace: -l takes one pattern, got %q\n", args)
		return 1
	}
	provs := listOrder
	rest := "*"
	if prov, r, ok := strings.Cut(pattern, ":"); ok {
		if canon, known := listProviders[prov]; known {
			provs, rest = []string{canon}, r
		} else if hasMeta(prov) {
			provs = nil
			for _, p := range listOrder {
				if ok, _ := path.Match(prov, p); ok {
					provs = append(provs, p)
				}
			}
			rest = r
		} else {
			fmt.Fprintf(stderr, "gotrace: unknown probe type %q in %q\n", prov, pattern)
			return 1
		}
	} else if pattern != "*" {
		// A bare pattern matches function and event names of every type.
		rest = pattern
	}
	env := gotrace.NewKernelEnv()
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	status := 0
	for _, prov := range provs {
		var err error
		switch prov {
		case "tracepoint":
			err = listTracepoints(w, env, rest, verbose)
		case "rawtracepoint":
			err = listRawTracepoints(w, env, rest, verbose)
		default:
			err = listFunctions(w, env, prov, rest, verbose)
		}
		if err != nil {
			w.Flush()
			fmt.Fprintf(stderr, "gotrace: -l %s: %v\n", prov, err)
			status = 1
		}
	}
	return status
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[") }

// match matches a glob; a pattern without a module part also matches
// "vmlinux:"-qualified names.
func match(pattern, name string) bool {
	if m, rest, ok := strings.Cut(pattern, ":"); ok {
		if ok, _ := path.Match(m, "vmlinux"); !ok {
			return false
		}
		pattern = rest
	}
	ok, _ := path.Match(pattern, name)
	return ok
}

// listFunctions lists kprobe/kretprobe/fentry/fexit targets: the traceable
// functions (available_filter_functions minus the kprobe blacklist and
// ambiguous names) when the kernel says, else every function in BTF.
func listFunctions(w io.Writer, env *gotrace.KernelEnv, prov, pattern string, verbose bool) error {
	traceable, err := env.TraceableFunctions()
	if err != nil {
		return err
	}
	spec, btfErr := env.BTF()
	funcs := map[string]*btf.Func{}
	if btfErr == nil {
		for t, err := range spec.All() {
			if err != nil {
				break
			}
			if f, ok := t.(*btf.Func); ok {
				funcs[f.Name] = f
			}
		}
	} else if prov == "fentry" || prov == "fexit" || traceable == nil {
		return btfErr
	}
	var names []string
	if traceable != nil {
		for n := range traceable {
			if prov == "fentry" || prov == "fexit" {
				if funcs[n] == nil {
					continue
				}
			}
			names = append(names, n)
		}
	} else {
		for n := range funcs {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	kfunc := prov == "fentry" || prov == "fexit"
	for _, n := range names {
		if !match(pattern, n) {
			continue
		}
		if kfunc {
			fmt.Fprintf(w, "%s:vmlinux:%s\n", prov, n)
		} else {
			fmt.Fprintf(w, "%s:%s\n", prov, n)
		}
		if !verbose {
			continue
		}
		f := funcs[n]
		if f == nil {
			continue
		}
		proto, ok := f.Type.(*btf.FuncProto)
		if !ok {
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
			fmt.Fprintf(w, "    %s\n", declare(p.Type, name))
		}
		if prov == "fexit" || prov == "kretprobe" {
			if _, isVoid := proto.Return.(*btf.Void); !isVoid {
				fmt.Fprintf(w, "    %s\n", declare(proto.Return, "retval"))
			}
		}
	}
	return nil
}

// listRawTracepoints lists the BTF raw tracepoints (btf_trace_<event>).
func listRawTracepoints(w io.Writer, env *gotrace.KernelEnv, pattern string, verbose bool) error {
	spec, err := env.BTF()
	if err != nil {
		return err
	}
	type rt struct {
		name  string
		proto *btf.FuncProto
	}
	var list []rt
	for t, err := range spec.All() {
		if err != nil {
			break
		}
		td, ok := t.(*btf.Typedef)
		if !ok || !strings.HasPrefix(td.Name, "btf_trace_") {
			continue
		}
		name := strings.TrimPrefix(td.Name, "btf_trace_")
		if !match(pattern, name) {
			continue
		}
		var proto *btf.FuncProto
		if ptr, ok := td.Type.(*btf.Pointer); ok {
			proto, _ = ptr.Target.(*btf.FuncProto)
		}
		// __bpf_trace_<event> has the same prototype with parameter names.
		var named *btf.Func
		if spec.TypeByName("__bpf_trace_"+name, &named) == nil {
			if np, ok := named.Type.(*btf.FuncProto); ok && proto != nil && len(np.Params) == len(proto.Params) {
				proto = np
			}
		}
		list = append(list, rt{name, proto})
	}
	slices.SortFunc(list, func(a, b rt) int { return strings.Compare(a.name, b.name) })
	for _, r := range list {
		fmt.Fprintf(w, "rawtracepoint:vmlinux:%s\n", r.name)
		if !verbose || r.proto == nil || len(r.proto.Params) == 0 {
			continue
		}
		for i, p := range r.proto.Params[1:] { // without void *__data
			name := p.Name
			if name == "" {
				name = "arg" + strconv.Itoa(i)
			}
			fmt.Fprintf(w, "    %s\n", declare(p.Type, name))
		}
	}
	return nil
}

// listTracepoints lists tracepoints, with their format fields when verbose.
func listTracepoints(w io.Writer, env *gotrace.KernelEnv, pattern string, verbose bool) error {
	if !strings.Contains(pattern, ":") {
		pattern = "*:" + pattern
	}
	names, err := env.Tracepoints(pattern)
	if err != nil {
		return err
	}
	for _, n := range names {
		fmt.Fprintf(w, "tracepoint:%s\n", n)
		if !verbose {
			continue
		}
		cat, ev, _ := strings.Cut(n, ":")
		f, err := env.TracepointFormat(cat, ev)
		if err != nil {
			continue
		}
		for _, fl := range f.Fields {
			switch {
			case fl.DataLoc:
				fmt.Fprintf(w, "    %s %s\n", fl.CType, fl.Name)
			case fl.ArrayLen > 0:
				fmt.Fprintf(w, "    %s %s[%d]\n", fl.CType, fl.Name, fl.ArrayLen)
			default:
				fmt.Fprintf(w, "    %s %s\n", fl.CType, fl.Name)
			}
		}
	}
	return nil
}

// declare renders a C declaration of name with type t the way bpftrace
// lists arguments: "struct file * file", "const char * buf",
// "long unsigned int vlen"; __user and other type tags are dropped.
func declare(t btf.Type, name string) string {
	return cType(t, 0) + " " + name
}

// cType renders a BTF type as C.
func cType(t btf.Type, depth int) string {
	if depth > 16 {
		return "?"
	}
	switch v := t.(type) {
	case nil, *btf.Void:
		return "void"
	case *btf.Int:
		return v.Name
	case *btf.Typedef:
		return v.Name
	case *btf.Struct:
		return "struct " + v.Name
	case *btf.Union:
		return "union " + v.Name
	case *btf.Enum:
		return "enum " + v.Name
	case *btf.Fwd:
		return v.Kind.String() + " " + v.Name
	case *btf.Const:
		return "const " + cType(v.Type, depth+1)
	case *btf.Volatile:
		return "volatile " + cType(v.Type, depth+1)
	case *btf.Restrict:
		return cType(v.Type, depth+1)
	case *btf.TypeTag:
		return cType(v.Type, depth+1)
	case *btf.Pointer:
		if _, ok := v.Target.(*btf.FuncProto); ok {
			return "void *" // function pointer
		}
		inner := cType(v.Target, depth+1)
		if strings.HasSuffix(inner, "*") {
			return inner + "*"
		}
		return inner + " *"
	case *btf.Array:
		return fmt.Sprintf("%s[%d]", cType(v.Type, depth+1), v.Nelems)
	case *btf.Float:
		return v.Name
	}
	return t.TypeName()
}
