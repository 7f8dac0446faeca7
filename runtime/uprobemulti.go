package runtime

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/features"

	"github.com/gotrace/gotrace/provider"
)

// chooseUprobeMulti loads the programs of the uprobe probes with several
// targets (provider.WantsUprobeMulti) for uprobe_multi links, where the
// kernel has them (feature-probed): spec is the copy of the collection
// that is loaded. Elsewhere each target keeps a perf event of its own.
func (s *entry) chooseUprobeMulti(spec *ebpf.CollectionSpec) {
	probed, have := false, false
	for _, p := range s.prog.Probes {
		ps := spec.Programs[p.Program]
		if ps == nil || ps.Type != ebpf.Kprobe || !provider.WantsUprobeMulti(p) {
			continue
		}
		if !probed {
			probed, have = true, !s.opts.NoUprobeMulti && features.HaveBPFLinkUprobeMulti() == nil
		}
		if !have {
			return
		}
		ps.AttachType = ebpf.AttachTraceUprobeMulti
		if s.uprobeMulti == nil {
			s.uprobeMulti = map[string]bool{}
		}
		s.uprobeMulti[p.Program] = true
	}
}
