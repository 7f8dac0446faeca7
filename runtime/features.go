package runtime

import (
	"github.com/cilium/ebpf/features"
	"github.com/cilium/ebpf/rlimit"

	"github.com/gotrace/gotrace/codegen"
)

// DefaultFentryMultiThreshold is the size from which an fentry wildcard is
// served by one kprobe_multi link: separate trampolines take ~140 ms each
// to detach (measured on 6.12 under emulation), one kprobe_multi link
// detaches 1000 functions in 0.24 s.
const DefaultFentryMultiThreshold = 64

// Features probes the running kernel for the choices code generation
// depends on. kprobe_multi needs Linux 5.18 with CONFIG_FPROBE; it is
// feature-probed, never inferred from the kernel version.
func Features() codegen.Options {
	_ = rlimit.RemoveMemlock()
	var o codegen.Options
	if features.HaveBPFLinkKprobeMulti() == nil {
		o.KprobeMulti = true
		o.FentryMultiThreshold = DefaultFentryMultiThreshold
	}
	return o
}
