package provider

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/object"
)

// beginProvider is BEGIN: run once before the other probes attach.
var beginProvider = special("begin", "BEGIN", Begin)

// endProvider is END: run once at exit.
var endProvider = special("end", "END", End)

// special builds BEGIN and END: raw tracepoint programs run with
// BPF_PROG_TEST_RUN, without a context.
func special(name, alias string, phase Phase) *Provider {
	return &Provider{
		Name:      name,
		Aliases:   []string{alias},
		Bare:      alias,
		Expand:    expandSpecial,
		Ctx:       CtxNone,
		UserArgs:  never,
		ProbeType: "special",
		Phase:     phase,
		Listing:   func(*Point) (string, bool) { return "", false },
		Compile: func(_ []*Point, _ Features, probe *object.Probe) Program {
			probe.Provider = name
			return Program{Type: ebpf.RawTracepoint, Ctx: CtxNone}
		},
		Attach: func(Attacher, *object.Probe, *ebpf.Program) (int, error) {
			return 0, fmt.Errorf("%s probes run once, they are not attached", name)
		},
	}
}

func expandSpecial(_ ExpandEnv, raw string, parts []string) ([]*Point, error) {
	if len(parts) != 0 {
		return nil, fmt.Errorf("%s takes no arguments", SplitAttach(raw)[0])
	}
	return []*Point{{Name: strings.ToLower(raw)}}, nil
}
