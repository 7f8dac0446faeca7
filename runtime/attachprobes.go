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

// attachProbes attaches every probe: trampolines (fentry, fexit, tp_btf)
// concurrently, the others in order. It returns what the "Attaching N
// probes" count would have been reduced by skipped functions.
func (s *session) attachProbes(probes []*object.Probe) error {
	var tracing []*object.Probe
	// Kinds whose handlers run in reverse attach order attach last to
	// first, after the others, so that probes on one event run in script
	// order (bpftrace does the same).
	var ordered, reversed []*object.Probe
	for _, p := range probes {
		if def := provider.Lookup(p.Provider); def != nil && def.AttachReverse {
			reversed = append(reversed, p)
		} else {
			ordered = append(ordered, p)
		}
	}
	for i := len(reversed) - 1; i >= 0; i-- {
		ordered = append(ordered, reversed[i])
	}
	for _, p := range ordered {
		if s.stop.Load() {
			return nil
		}
		if _, refused := s.kf.refused[p.Program]; refused {
			continue
		}
		if p.Via != "" && !s.opts.Quiet {
			fmt.Fprintf(s.stderr, "%s: %s\n", p.Name, p.Via)
		}
		// Tracing programs (trampolines, BTF raw tracepoints) are bound to
		// their target at load time: they attach concurrently. Iterators
		// attach through their provider.
		if bp := s.coll.Programs[p.Program]; bp != nil && bp.Type() == ebpf.Tracing && s.AttachType(p) != ebpf.AttachTraceIter {
			tracing = append(tracing, p)
			continue
		}
		if _, err := s.attach(p); err != nil {
			return err
		}
	}
	if err := s.attachTracing(tracing); err != nil {
		return err
	}
	if n := len(s.kf.skipped); n > 0 {
		fmt.Fprintf(s.stderr, "skipped %d function%s the kernel refused: %s\n", n, plural(n), skippedList(s.kf.skipped))
	}
	return nil
}

// attachTracing attaches one-target Tracing programs (fentry, fexit, tp_btf)
// concurrently. Their links are detached concurrently too.
func (s *session) attachTracing(probes []*object.Probe) error {
	if len(probes) == 0 {
		return nil
	}
	start := time.Now()
	links := make([]link.Link, len(probes))
	errs := make([]error, len(probes))
	parallel(len(probes), attachWorkers, func(i int) {
		p := probes[i]
		bp := s.coll.Programs[p.Program]
		links[i], errs[i] = link.AttachTracing(link.TracingOptions{Program: bp, AttachType: s.AttachType(p)})
	})
	var got []io.Closer
	var firstErr error
	for i, p := range probes {
		if errs[i] == nil {
			got = append(got, links[i])
			continue
		}
		target := p.Name
		if len(p.Targets) == 1 {
			target = p.Targets[0]
		}
		if s.isWildcard(p) {
			s.kf.skip(target)
			continue
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("attach %s: %w", p.Name, errs[i])
		}
	}
	s.attached.push(closeGroup(got))
	if firstErr != nil {
		return firstErr
	}
	if len(got) == 0 {
		return fmt.Errorf("the kernel refused every function (%s)", skippedList(s.kf.skipped))
	}
	if !s.opts.Quiet {
		perKind := map[string]int{}
		for i, p := range probes {
			if errs[i] == nil {
				perKind[p.Provider]++
			}
		}
		for _, def := range provider.All() {
			if n := perKind[def.Name]; n > 1 {
				fmt.Fprintf(s.stderr, "%s: attached %d functions through %d trampolines in %.2fs\n", def.Name, n, n, time.Since(start).Seconds())
			}
		}
	}
	return nil
}
