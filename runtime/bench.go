package runtime

import (
	"fmt"
	"strings"
	"time"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
)

// runOnce reports whether every probe of probes ran to completion when
// attached (provider.RunsOnce: iterators), so that the run ends once their
// events are printed.
func runOnce(probes []*object.Probe) bool {
	for _, p := range probes {
		if def := provider.Lookup(p.Provider); def == nil || !def.RunsOnce {
			return false
		}
	}
	return len(probes) > 0
}

// benchInput is the packet the XDP bench programs run on: the kernel wants
// at least an Ethernet header's worth.
var benchInput = make([]byte, 14)

// runBenches runs the bench probes (provider.Bench), in script order, as
// bpftrace --mode bench does: each program repeats in the kernel, ten to a
// thousand times more until the runs take a millisecond, and its average
// time per run is printed (a table, or one JSON object per bench). What
// the programs print while being timed is dropped; a program that returns
// non-zero skips its benchmark.
func (s *entry) runBenches(benches []*object.Probe) error {
	names := make([]string, len(benches))
	width := len("Benchmark")
	width = max(width, 40)
	for i, p := range benches {
		names[i] = strings.TrimPrefix(p.Name, "bench:")
		width = max(width, len(names[i]))
	}
	for i, p := range benches {
		bp, err := s.program(p)
		if err != nil {
			return err
		}
		iters := 1
		var avg time.Duration
		skipped := false
		for {
			ret, d, err := bp.Benchmark(benchInput, iters, nil)
			if err != nil {
				return fmt.Errorf("run %s: %w", p.Name, err)
			}
			if err := s.drain(true); err != nil {
				return err
			}
			if ret != 0 {
				skipped = true
				break
			}
			total := d * time.Duration(iters)
			switch {
			case total < time.Microsecond:
				iters *= 1000
				continue
			case total < 10*time.Microsecond:
				iters *= 100
				continue
			case total < 100*time.Microsecond:
				iters *= 10
				continue
			case total < time.Millisecond:
				iters *= 2
				continue
			}
			avg = d
			break
		}
		if skipped {
			continue
		}
		if err := s.sink.Benchmark(i == 0, width, names[i], avg, iters); err != nil {
			return err
		}
	}
	return s.flush()
}
