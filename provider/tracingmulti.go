package provider

import (
	"fmt"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/bisect"
	"github.com/gotrace/gotrace/internal/btfnames"
	"github.com/gotrace/gotrace/internal/tracingmulti"
	"github.com/gotrace/gotrace/object"
)

// Attach types of trampolines over many functions (enum bpf_attach_type;
// Linux 7.3): a program loaded with one of them attaches through one
// tracing_multi link to functions named by their BTF IDs. Its context is
// that of bpf_multi_func, a function without parameters: arguments and
// the return value are read with bpf_get_func_arg and bpf_get_func_ret.
const (
	AttachTraceFsession      = ebpf.AttachType(58)
	AttachTraceFentryMulti   = ebpf.AttachType(59)
	AttachTraceFexitMulti    = ebpf.AttachType(60)
	AttachTraceFsessionMulti = ebpf.AttachType(61)
)

// IsTracingMulti reports whether at is an attach type of tracing_multi
// links.
func IsTracingMulti(at ebpf.AttachType) bool {
	return at == AttachTraceFentryMulti || at == AttachTraceFexitMulti || at == AttachTraceFsessionMulti
}

// allVmlinux reports whether every point is a function of vmlinux: a
// tracing_multi link names functions by vmlinux BTF IDs.
func allVmlinux(pts []*Point) bool {
	for _, pt := range pts {
		if pt.Module != "" && pt.Module != "vmlinux" {
			return false
		}
	}
	return true
}

// attachTracingMulti attaches a program loaded with a tracing_multi attach
// type to every target of p through one link. Functions whose prototype
// the kernel refuses for trampolines are skipped first; when the kernel
// still refuses the set, the functions it refuses are found by bisection,
// skipped, and the rest attached in one link.
func attachTracingMulti(a Attacher, p *object.Probe, bp *ebpf.Program) (int, error) {
	start := time.Now()
	at := a.AttachType(p)
	ids, byID, err := trampolineIDs(a, p)
	if err != nil {
		return 0, fmt.Errorf("attach %s: %w", p.Name, err)
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("attach %s: no function a trampoline can take (%s)", p.Name, SkippedList(a.Skipped()))
	}
	try := func(ids []uint32) (*tracingmulti.Link, error) { return tracingmulti.Attach(bp, at, ids, nil) }
	l, err := try(ids)
	if err != nil {
		if len(ids) == 1 {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		var bad []uint32
		good := bisect.Refused(ids, try, &bad)
		var names []string
		for _, b := range bad {
			a.Skip(byID[b])
			names = append(names, byID[b])
		}
		if len(good) == 0 {
			return 0, fmt.Errorf("attach %s: the kernel refused every function (%s): %w", p.Name, SkippedList(names), err)
		}
		if l, err = try(good); err != nil {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		ids = good
	}
	a.Push(l)
	a.Note(fmt.Sprintf("%s: attached %d functions through one tracing_multi link in %.2fs",
		p.Provider, len(ids), time.Since(start).Seconds()))
	return len(ids), nil
}

// trampolineIDs returns the vmlinux BTF IDs of p's functions that a
// trampoline can take, and each ID's name. Those whose prototype the
// kernel refuses for trampolines are skipped (btfnames.TrampolineRefusals)
// rather than left to the link, which would fail as a whole.
func trampolineIDs(a Attacher, p *object.Probe) ([]uint32, map[uint32]string, error) {
	ix, err := btfnames.ReadFile(btfnames.KernelPath)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, len(p.Targets))
	all := make([]btf.TypeID, len(p.Targets))
	for i, target := range p.Targets {
		t, err := TargetAs[FuncTarget](p, target)
		if err != nil {
			return nil, nil, err
		}
		id, ok := ix.Func(t.Func)
		if !ok {
			return nil, nil, fmt.Errorf("function %s is not in the kernel's BTF", t.Func)
		}
		names[i], all[i] = t.Func, id
	}
	refused, err := ix.TrampolineRefusals(all)
	if err != nil {
		return nil, nil, err
	}
	ids := make([]uint32, 0, len(all))
	byID := make(map[uint32]string, len(all))
	for i, id := range all {
		if refused[id] != "" {
			a.Skip(names[i])
			continue
		}
		ids = append(ids, uint32(id))
		byID[uint32(id)] = names[i]
	}
	return ids, byID, nil
}
