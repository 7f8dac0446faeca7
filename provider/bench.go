package provider

import (
	"fmt"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/object"
)

// benchProvider is bench:NAME, a micro-benchmark (bpftrace --mode bench):
// after BEGIN, each bench program runs with BPF_PROG_TEST_RUN, repeated
// until it has run long enough to time, and its average time per run is
// printed; END follows. It is an XDP program because only those repeat
// in the kernel. Its probes are never attached.
var benchProvider = &Provider{
	Name:      "bench",
	Expand:    expandBench,
	Ctx:       CtxNone,
	UserArgs:  never,
	ProbeType: "bench",
	Phase:     Bench,
	Compile: func(_ []*Point, _ Features, probe *object.Probe) Program {
		probe.Provider = "bench"
		return Program{Type: ebpf.XDP, Ctx: CtxNone}
	},
	Attach: func(_ Attacher, p *object.Probe, _ *ebpf.Program) (int, error) {
		return 0, fmt.Errorf("%s: bench probes run in --mode bench, they are not attached", p.Name)
	},
}

// expandBench reads bench:NAME.
func expandBench(_ ExpandEnv, raw string, parts []string) ([]*Point, error) {
	if len(parts) != 1 || parts[0] == "" {
		return nil, fmt.Errorf("bench probes must have a name")
	}
	return []*Point{{Name: "bench:" + parts[0], Event: parts[0]}}, nil
}
