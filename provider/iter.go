package provider

import (
	"fmt"
	"io"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/object"
)

// iterProvider is iter:OBJECT, a BPF iterator (task, task_file,
// task_vma, ...): the program runs once per object when gotrace reads the
// iterator, right after attaching; ctx points to the kernel's struct
// bpf_iter__OBJECT (ctx.task, ctx.file, ctx.vma). Requires Linux 5.8 or
// later. iter:OBJECT:PIN pins the iterator instead (under /sys/fs/bpf
// unless PIN is absolute), for reading it later with cat. The run ends
// once the iteration's events are printed (provider.RunsOnce).
var iterProvider = &Provider{
	Name:            "iter",
	ProgramPerMatch: wildTarget,
	Aliases:         []string{"it"},
	Expand:          expandIter,
	Ctx:             CtxIter,
	CtxStruct:       func(pt *Point) string { return iterStructPrefix + pt.Data.(iterPoint).object },
	UserArgs:        never,
	ProbeType:       "iter",
	Kfuncs:          true,
	Compile: func(pts []*Point, _ Features, probe *object.Probe) Program {
		probe.Provider = "iter"
		for _, pt := range pts {
			probe.Targets = append(probe.Targets, FuncTarget{Func: pt.Data.(iterPoint).object})
		}
		probe.Pin = pts[0].Data.(iterPoint).pin
		return Program{Type: ebpf.Tracing, AttachType: ebpf.AttachTraceIter, Ctx: CtxIter}
	},
	Attach:        attachIter,
	RunsOnce:      true,
	List:          listIters,
	ListAll:       true,
	AttachReverse: true,
}

// expandIter reads iter:OBJECT; the iterator must be in the kernel's BTF.
func expandIter(env ExpandEnv, raw string, parts []string) ([]*Point, error) {
	if len(parts) == 0 || parts[0] == "" {
		return nil, fmt.Errorf("iter should specify a iterator's name")
	}
	if len(parts) > 2 {
		return nil, fmt.Errorf("iter must be iter:OBJECT[:PIN], got %q", raw)
	}
	if HasGlob(parts[0]) {
		return nil, fmt.Errorf("iter probes do not take wildcards (%s)", parts[0])
	}
	if env == nil {
		return nil, fmt.Errorf("iter probes need the kernel's BTF: no environment")
	}
	spec, err := env.BTF()
	if err != nil || spec == nil {
		return nil, fmt.Errorf("iter probes need the kernel's BTF: %v", err)
	}
	if _, err := iterContext(spec, parts[0]); err != nil {
		return nil, fmt.Errorf("iter %s not available for your kernel version.", parts[0])
	}
	it := iterPoint{object: parts[0]}
	if len(parts) == 2 && parts[1] != "" {
		it.pin = parts[1]
		if !strings.HasPrefix(it.pin, "/") {
			it.pin = "/sys/fs/bpf/" + it.pin
		}
	}
	return []*Point{{Name: "iter:" + parts[0], Data: it}}, nil
}

// iterPoint is the Point.Data of an iter point: the iterator's object
// (task, task_file, ...) and the path its link is pinned at ("" to run it).
type iterPoint struct {
	object, pin string
}

// attachIter creates the iterator and reads it to its end, which runs the
// program once per object; what the program prints goes through the
// events as usual.
func attachIter(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
	it, err := link.AttachIter(link.IterOptions{Program: prog})
	if err != nil {
		return 0, fmt.Errorf("attach %s: %w", p.Name, err)
	}
	if p.Pin != "" {
		// The pin keeps the iterator after gotrace exits.
		defer it.Close()
		if err := it.Pin(p.Pin); err != nil {
			return 0, fmt.Errorf("Failed to pin iter probe link: %w", err)
		}
		fmt.Fprintf(a.Stdout(), "Program pinned to %s\n", p.Pin)
		return 1, nil
	}
	a.Push(it)
	rd, err := it.Open()
	if err != nil {
		return 0, fmt.Errorf("attach %s: open the iterator: %w", p.Name, err)
	}
	defer rd.Close()
	if _, err := io.Copy(io.Discard, rd); err != nil {
		return 0, fmt.Errorf("run %s: %w", p.Name, err)
	}
	return 1, nil
}

// iterStructPrefix names the context struct of an iterator program.
const iterStructPrefix = "bpf_iter__"

// listIters lists iter:OBJECT for every iterator of the kernel: a
// function bpf_iter_OBJECT (DEFINE_BPF_ITER_FUNC) with a context struct
// bpf_iter__OBJECT in BTF.
func listIters(w io.Writer, env ListEnv, pattern string, _ bool) error {
	if env == nil {
		return nil
	}
	spec, err := env.BTF()
	if err != nil {
		return fmt.Errorf("iterators are declared in the kernel's BTF: %w", err)
	}
	ix, err := kernelFuncs(spec)
	if err != nil {
		return err
	}
	for _, f := range ix.Funcs() {
		name, ok := strings.CutPrefix(f.Name, "bpf_iter_")
		if !ok || strings.HasPrefix(name, "_") || !matchGlob(pattern, name) {
			continue
		}
		if _, err := iterContext(spec, name); err == nil {
			fmt.Fprintf(w, "iter:%s\n", name)
		}
	}
	return nil
}

// iterContext returns the context struct of iterator name, bpf_iter__NAME.
func iterContext(spec *btf.Spec, name string) (*btf.Struct, error) {
	var s *btf.Struct
	if err := spec.TypeByName(iterStructPrefix+name, &s); err != nil {
		return nil, fmt.Errorf("no iterator %s (struct %s%s is not in the kernel's BTF)", name, iterStructPrefix, name)
	}
	return s, nil
}
