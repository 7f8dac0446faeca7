package provider

import (
	"fmt"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/object"
)

// benchProvider is bench:NAME, a micro-benchmark (bpftrace --mode bench):
// after BEGIN, each bench program runs with BPF_PROG_TEST_RUN, repeated
// until it has run long enough to time, and its average time per run is
// printed; END follows.
var benchProvider = testRun("bench", Bench, "--mode bench")

// testProvider is test:NAME, a unit test of the script (bpftrace --test,
// or --mode test): after BEGIN, each test program runs once with
// BPF_PROG_TEST_RUN and passes when it returns 0 without an error or a
// non-zero exit(); a summary is printed, and END follows.
var testProvider = testRun("test", Test, "--test")

// testRun defines the kinds whose programs the runtime runs itself,
// BPF_PROG_TEST_RUN, in one mode of the command line: XDP programs, the
// only ones the kernel repeats. Their probes are never attached.
func testRun(name string, phase Phase, mode string) *Provider {
	return &Provider{
		Name: name,
		Expand: func(_ ExpandEnv, raw string, parts []string) ([]*Point, error) {
			if len(parts) != 1 || parts[0] == "" {
				return nil, fmt.Errorf("%s probes must have a name", name)
			}
			return []*Point{{Name: name + ":" + parts[0], Event: parts[0]}}, nil
		},
		Ctx:       CtxNone,
		UserArgs:  never,
		ProbeType: name,
		Phase:     phase,
		Compile: func(_ []*Point, _ Features, probe *object.Probe) Program {
			probe.Provider = name
			return Program{Type: ebpf.XDP, Ctx: CtxNone}
		},
		Attach: func(_ Attacher, p *object.Probe, _ *ebpf.Program) (int, error) {
			return 0, fmt.Errorf("%s: %s probes run with %s, they are not attached", p.Name, name, mode)
		},
	}
}
