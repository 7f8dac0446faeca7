package provider

import (
	"testing"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/object"
)

// TestTracingMultiChoice: where the kernel has tracing_multi, an fentry or
// fexit probe of several vmlinux functions is one program of a multi
// attach type; one function keeps its trampoline; an fentry probe of more
// than TracingMultiMax functions goes to kprobe_multi when the kernel has
// it, an fexit probe (which kprobe_multi does not serve) stays on
// tracing_multi.
func TestTracingMultiChoice(t *testing.T) {
	pts := func(n int, module string) []*Point {
		var out []*Point
		for i := range n {
			out = append(out, &Point{Func: string(rune('a' + i)), Module: module})
		}
		return out
	}
	all := Features{TracingMulti: true, TracingMultiMax: 3, KprobeMulti: true, FentryMultiThreshold: 2}
	for _, c := range []struct {
		name string
		def  *Provider
		pts  []*Point
		f    Features
		want ebpf.AttachType
	}{
		{"fentry of 2", fentryProvider, pts(2, ""), all, AttachTraceFentryMulti},
		{"fexit of 2", fexitProvider, pts(2, "vmlinux"), all, AttachTraceFexitMulti},
		{"fentry of 1", fentryProvider, pts(1, ""), all, ebpf.AttachTraceFEntry},
		{"fentry over the max", fentryProvider, pts(4, ""), all, ebpf.AttachTraceKprobeMulti},
		{"fexit over the max", fexitProvider, pts(4, ""), all, AttachTraceFexitMulti},
		{"fentry over the max, no kprobe_multi", fentryProvider, pts(4, ""), Features{TracingMulti: true, TracingMultiMax: 3}, AttachTraceFentryMulti},
		{"no tracing_multi", fexitProvider, pts(2, ""), Features{KprobeMulti: true}, ebpf.AttachTraceFExit},
	} {
		prog := c.def.Compile(c.pts, c.f, &object.Probe{})
		if prog.AttachType != c.want {
			t.Errorf("%s: attach type %v, want %v", c.name, prog.AttachType, c.want)
		}
		if IsTracingMulti(prog.AttachType) != (c.want == AttachTraceFentryMulti || c.want == AttachTraceFexitMulti) {
			t.Errorf("%s: IsTracingMulti(%v) wrong", c.name, prog.AttachType)
		}
	}
}
