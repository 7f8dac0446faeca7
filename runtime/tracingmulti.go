package runtime

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

// AttachTracingMulti implements provider.Attacher: it attaches a program
// loaded with a tracing_multi attach type to every target of p through one
// link. When the kernel refuses the set (a function without a trampoline,
// one with variable arguments), the functions it refuses are found by
// bisection, skipped, and the rest attached in one link.
func (s *entry) AttachTracingMulti(p *object.Probe, bp *ebpf.Program) (int, error) {
	start := time.Now()
	at := s.AttachType(p)
	ids, byID, err := s.trampolineIDs(p.Targets)
	if err != nil {
		return 0, fmt.Errorf("attach %s: %w", p.Name, err)
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("attach %s: no function a trampoline can take (%s)", p.Name, skippedList(s.kf.skipped))
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
			s.kf.skip(byID[b])
			names = append(names, byID[b])
		}
		if len(good) == 0 {
			return 0, fmt.Errorf("attach %s: the kernel refused every function (%s): %w", p.Name, skippedList(names), err)
		}
		if l, err = try(good); err != nil {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		ids = good
	}
	s.attached.push(l)
	if !s.opts.Quiet {
		s.sink.Info(fmt.Sprintf("%s: attached %d functions through one tracing_multi link in %.2fs",
			p.Provider, len(ids), time.Since(start).Seconds()))
	}
	return len(ids), nil
}

// trampolineIDs returns the vmlinux BTF IDs of the functions names that a
// trampoline can take, and each ID's name. Those whose prototype the
// kernel refuses for trampolines are skipped (btfnames.TrampolineRefusals)
// rather than left to the link, which would fail as a whole.
func (s *entry) trampolineIDs(names []string) ([]uint32, map[uint32]string, error) {
	ix, err := btfnames.ReadFile(btfnames.KernelPath)
	if err != nil {
		return nil, nil, err
	}
	all := make([]btf.TypeID, len(names))
	for i, name := range names {
		id, ok := ix.Func(name)
		if !ok {
			return nil, nil, fmt.Errorf("function %s is not in the kernel's BTF", name)
		}
		all[i] = id
	}
	refused, err := ix.TrampolineRefusals(all)
	if err != nil {
		return nil, nil, err
	}
	ids := make([]uint32, 0, len(all))
	byID := make(map[uint32]string, len(all))
	for i, id := range all {
		if refused[id] != "" {
			s.kf.skip(names[i])
			continue
		}
		ids = append(ids, uint32(id))
		byID[uint32(id)] = names[i]
	}
	return ids, byID, nil
}
