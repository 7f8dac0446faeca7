package runtime

import (
	"fmt"
	"io"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
)

// AttachKprobes implements provider.Attacher: it attaches a kprobe or kretprobe program to its targets:
// through one kprobe_multi link when the program was loaded for it, else
// one kprobe per target, attached by a bounded pool of goroutines and
// detached the same way.
func (s *entry) AttachKprobes(p *object.Probe, bp *ebpf.Program, ret bool) (int, error) {
	if s.AttachType(p) == ebpf.AttachTraceKprobeMulti {
		return s.attachKprobeMulti(p, bp, ret)
	}
	start := time.Now()
	links := make([]link.Link, len(p.Targets))
	errs := make([]error, len(p.Targets))
	parallel(len(p.Targets), attachWorkers, func(i int) {
		t, err := provider.TargetAs[provider.FuncTarget](p, p.Targets[i])
		if err != nil {
			errs[i] = err
			return
		}
		fn := t.Func
		opts := &link.KprobeOptions{Offset: t.Offset, TraceFSPrefix: "gotrace"}
		if ret {
			links[i], errs[i] = link.Kretprobe(fn, bp, opts)
		} else {
			links[i], errs[i] = link.Kprobe(fn, bp, opts)
		}
	})
	var got []io.Closer
	var firstErr error
	for i, t := range p.Targets {
		if errs[i] == nil {
			got = append(got, links[i])
			continue
		}
		if len(p.Targets) > 1 {
			s.kf.skip(t.String())
			continue
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("attach %s to %s: %w", p.Name, t, errs[i])
		}
	}
	s.attached.push(closeGroup(got))
	if firstErr != nil {
		return 0, firstErr
	}
	if len(got) == 0 {
		return 0, fmt.Errorf("attach %s: the kernel refused every function (%s)", p.Name, skippedList(s.kf.skipped))
	}
	if len(p.Targets) > 1 && !s.opts.Quiet {
		s.sink.Info(fmt.Sprintf("%s: attached %d functions through %d separate %ss in %.2fs (no kprobe_multi)",
			p.Provider, len(got), len(got), p.Provider, time.Since(start).Seconds()))
	}
	return len(got), nil
}
