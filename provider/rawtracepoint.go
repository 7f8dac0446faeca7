package provider

import (
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/internal/btfnames"
	"github.com/gotrace/gotrace/object"
)

// rawTracepointProvider is rawtracepoint:[vmlinux:]EVENT: a BTF raw
// tracepoint (tp_btf) whose arguments are typed by btf_trace_EVENT.
var rawTracepointProvider = &Provider{
	Name:            "rawtracepoint",
	Aliases:         []string{"rt"},
	Expand:          expandRawTracepoint,
	ArgsType:        ArgsBuilder.ProtoArgs,
	Ctx:             CtxBTFArgs,
	ArgN:            true,
	UserArgs:        never,
	ProbeType:       "rawtracepoint",
	Kfuncs:          true,
	VmlinuxInName:   true,
	SharesProgram:   true,
	ProgramPerMatch: wildTarget,
	PidFilter:       true,
	KernelFeatures:  true,
	Compile: func(pts []*Point, _ Features, probe *object.Probe) Program {
		probe.Provider = "rawtracepoint"
		probe.Targets = funcTargets(pts)
		return Program{Type: ebpf.Tracing, AttachType: ebpf.AttachTraceRawTp, Ctx: CtxBTFArgs}
	},
	Attach: func(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
		if prog.Type() == ebpf.Tracing {
			// tp_btf: the target was fixed when loading.
			return attachTrampoline(a, p, prog)
		}
		for _, t := range p.Targets {
			ft, err := TargetAs[FuncTarget](p, t)
			if err != nil {
				return 0, err
			}
			name := ft.Func
			if i := strings.LastIndexByte(name, ':'); i >= 0 {
				name = name[i+1:]
			}
			l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: name, Program: prog})
			if err != nil {
				return 0, fmt.Errorf("attach %s to %s: %w", p.Name, t, err)
			}
			a.Push(l)
		}
		return len(p.Targets), nil
	},
	List:    listRawTracepoints,
	ListAll: true,
}

// rawTracepointProto returns the prototype of a raw tracepoint from its
// btf_trace_<event> typedef, with parameter names from
// __bpf_trace_<event> when it has the same prototype.
func rawTracepointProto(spec *btf.Spec, ix *btfnames.Index, name string, td *btf.Typedef) *btf.FuncProto {
	ptr, ok := td.Type.(*btf.Pointer)
	if !ok {
		return nil
	}
	proto, ok := ptr.Target.(*btf.FuncProto)
	if !ok {
		return nil
	}
	if np := funcProto(spec, ix, "__bpf_trace_"+name); np != nil && len(np.Params) == len(proto.Params) {
		proto = np
	}
	return proto
}

// typedef decodes the typedef with ID id, or returns nil.
func typedef(spec *btf.Spec, id btf.TypeID) *btf.Typedef {
	t, err := spec.TypeByID(id)
	if err != nil {
		return nil
	}
	td, _ := t.(*btf.Typedef)
	return td
}

// expandRawTracepoint expands rawtracepoint:[module:]event through the BTF
// typedefs btf_trace_<event>.
func expandRawTracepoint(env ExpandEnv, raw string, parts []string) ([]*Point, error) {
	var ev string
	switch len(parts) {
	case 1:
		ev = parts[0]
	case 2:
		switch mod := parts[0]; {
		case mod == "vmlinux" || HasGlob(mod) && matchGlob(mod, "vmlinux"):
		case HasGlob(mod) || !moduleHasBTF(mod):
			return nil, fmt.Errorf("No matches for rawtracepoint %s:%s.", mod, parts[1])
		default:
			return nil, fmt.Errorf("kernel module raw tracepoints are not supported yet (%s)", mod)
		}
		ev = parts[1]
	default:
		return nil, fmt.Errorf("rawtracepoint must be rawtracepoint:[module:]event, got %q", raw)
	}
	if env == nil {
		return nil, fmt.Errorf("raw tracepoints are unavailable: no environment")
	}
	spec, err := env.BTF()
	if err != nil || spec == nil {
		return nil, fmt.Errorf("raw tracepoints need kernel BTF (/sys/kernel/btf/vmlinux): %v", err)
	}
	ix, err := btfnames.For(spec)
	if err != nil {
		return nil, fmt.Errorf("raw tracepoints: kernel BTF: %w", err)
	}
	var out []*Point
	add := func(name string, td *btf.Typedef) {
		proto := rawTracepointProto(spec, ix, name, td)
		if proto == nil || len(proto.Params) == 0 {
			return
		}
		p := *proto
		p.Params = proto.Params[1:] // drop void *__data
		pt := &Point{Name: "rawtracepoint:" + name, Func: name}
		pt.SetProto(&p)
		out = append(out, pt)
	}
	for _, e := range ix.Typedefs("btf_trace_") {
		name := strings.TrimPrefix(e.Name, "btf_trace_")
		if ok, _ := path.Match(ev, name); !ok {
			continue
		}
		if td := typedef(spec, e.ID); td != nil {
			add(name, td)
		}
	}
	if !HasGlob(ev) && len(out) == 0 {
		// bpftrace's words; the reason follows.
		return nil, fmt.Errorf("Probe has no valid attach points: no raw tracepoint %s in the kernel's BTF", ev)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no raw tracepoints match %s", ev)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Func < out[j].Func })
	return out, nil
}

// moduleHasBTF reports whether a loaded kernel module has BTF
// (/sys/kernel/btf/MODULE).
func moduleHasBTF(mod string) bool {
	_, err := os.Stat("/sys/kernel/btf/" + mod)
	return err == nil && !strings.Contains(mod, "/")
}

// listRawTracepoints lists the BTF raw tracepoints (btf_trace_<event>).
func listRawTracepoints(w io.Writer, env ListEnv, pattern string, verbose bool) error {
	spec, err := env.BTF()
	if err != nil {
		return err
	}
	ix, err := btfnames.For(spec)
	if err != nil {
		return err
	}
	type rt struct {
		name  string
		proto *btf.FuncProto
	}
	var list []rt
	for _, e := range ix.Typedefs("btf_trace_") {
		name := strings.TrimPrefix(e.Name, "btf_trace_")
		if !matchModule(pattern, name) {
			continue
		}
		var proto *btf.FuncProto
		if verbose {
			if td := typedef(spec, e.ID); td != nil {
				proto = rawTracepointProto(spec, ix, name, td)
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
			fmt.Fprintf(w, "    %s\n", Declare(p.Type, name))
		}
	}
	return nil
}
