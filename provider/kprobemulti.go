package provider

import (
	"errors"
	"fmt"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/internal/bisect"
	"github.com/gotrace/gotrace/object"
)

// attachKprobeMulti attaches every target through one kprobe_multi link.
// When the kernel refuses the set, the functions it refuses are found by
// bisection, skipped, and the rest attached in one link.
//
// session attaches a kprobe session's program (ret is then false): it
// runs at entry and at return of every function.
func attachKprobeMulti(a Attacher, p *object.Probe, bp *ebpf.Program, ret, session bool) (int, error) {
	start := time.Now()
	try := func(syms []string) (link.Link, error) {
		opts := link.KprobeMultiOptions{Symbols: syms, Session: session}
		if ret {
			return link.KretprobeMulti(bp, opts)
		}
		return link.KprobeMulti(bp, opts)
	}
	syms := make([]string, 0, len(p.Targets))
	for _, target := range p.Targets {
		t, err := TargetAs[FuncTarget](p, target)
		if err != nil {
			return 0, err
		}
		if t.Offset != 0 {
			return 0, fmt.Errorf("attach %s: kprobe_multi cannot attach at an offset (%s)", p.Name, t)
		}
		syms = append(syms, t.Func)
	}
	l, err := try(syms)
	if err != nil {
		if len(syms) == 1 {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		if errors.Is(err, ebpf.ErrNotSupported) {
			return 0, fmt.Errorf("attach %s: kprobe_multi: %w", p.Name, err)
		}
		var bad []string
		good := bisect.Refused(syms, try, &bad)
		for _, b := range bad {
			a.Skip(b)
		}
		if len(good) == 0 {
			return 0, fmt.Errorf("attach %s: the kernel refused every function (%s): %w", p.Name, SkippedList(bad), err)
		}
		if l, err = try(good); err != nil {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		syms = good
	}
	a.Push(l)
	if len(syms) > 1 {
		a.Note(fmt.Sprintf("%s: attached %d functions through one kprobe_multi link in %.2fs",
			p.Provider, len(syms), time.Since(start).Seconds()))
	}
	return len(syms), nil
}
