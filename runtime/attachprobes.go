package runtime

import (
	"fmt"
	"time"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
)

// attachProbes attaches every probe: trampolines (fentry, fexit, tp_btf)
// concurrently, the others in order. It returns how many attach points of
// the "Attached N probes" count were skipped because the kernel refused
// their probe (config missing_probes = warn or ignore).
func (s *entry) attachProbes(probes []*object.Probe) (skipped int, err error) {
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
		if s.stopped() {
			return skipped, nil
		}
		if _, refused := s.kf.refused[p.Program]; refused {
			continue
		}
		if p.Via != "" && !s.opts.Quiet {
			s.sink.Info(p.Name + ": " + p.Via)
		}
		// Tracing programs (trampolines, BTF raw tracepoints) are bound to
		// their target at load time: they attach concurrently. Iterators
		// and tracing_multi programs attach through their provider.
		if bp := s.coll.Programs[p.Program]; bp != nil && bp.Type() == ebpf.Tracing && s.AttachType(p) != ebpf.AttachTraceIter && !provider.IsTracingMulti(s.AttachType(p)) {
			tracing = append(tracing, p)
			continue
		}
		if _, err := s.attach(p); err != nil {
			if err := s.refused(p, err); err != nil {
				return skipped, err
			}
			skipped += provider.Lookup(p.Provider).AttachPoints(p)
		}
	}
	n, err := s.attachTracing(tracing)
	skipped += n
	if err != nil {
		return skipped, err
	}
	if n := len(s.kf.skipped); n > 0 {
		s.sink.Info(fmt.Sprintf("skipped %d function%s the kernel refused: %s", n, plural(n), provider.SkippedList(s.kf.skipped)))
	}
	return skipped, nil
}

// refused handles the kernel's refusal to attach probe p as config
// missing_probes says, as bpftrace 0.26 does: the error when it is "error",
// else nil after a warning ("warn") or quietly ("ignore").
func (s *entry) refused(p *object.Probe, err error) error {
	switch s.prog.MissingProbes {
	case "warn":
		s.sink.Warning(err.Error())
		s.sink.Warning("Unable to attach probe: " + p.Name + ". Skipping.")
		return nil
	case "ignore":
		return nil
	}
	return err
}

// attachTracing attaches one-target Tracing programs (fentry, fexit, tp_btf)
// through their providers, which skip the targets of a wildcard that the
// kernel refuses, and says how long it took. It returns how many attach
// points were skipped (see attachProbes).
func (s *entry) attachTracing(probes []*object.Probe) (skipped int, err error) {
	if len(probes) == 0 {
		return 0, nil
	}
	start := time.Now()
	perKind := map[string]int{}
	got := 0
	var firstErr error
	for _, p := range probes {
		n, err := s.attach(p)
		if err == nil {
			if n > 0 {
				got++
				perKind[p.Provider]++
			}
			continue
		}
		if err := s.refused(p, err); err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		skipped++
	}
	if firstErr != nil {
		return skipped, firstErr
	}
	if got == 0 && skipped == 0 {
		return 0, fmt.Errorf("the kernel refused every function (%s)", provider.SkippedList(s.Skipped()))
	}
	for _, def := range provider.All() {
		if n := perKind[def.Name]; n > 1 {
			s.Note(fmt.Sprintf("%s: attached %d functions through %d trampolines in %.2fs", def.Name, n, n, time.Since(start).Seconds()))
		}
	}
	return skipped, nil
}
