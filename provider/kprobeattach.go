package provider

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/object"
)

// attachKprobes attaches a kprobe or kretprobe (ret) program to its
// targets: through one kprobe_multi link when the program was loaded for
// it (a kprobe session's program too, with the session attach type),
// else one kprobe per target, detached together. The kernel serialises
// kprobe attach (attaching from 16 goroutines was no faster than one at a
// time, cmd/kbench), so the targets attach one after the other. In a
// wildcard, the functions the kernel refuses are skipped.
func attachKprobes(a Attacher, p *object.Probe, bp *ebpf.Program, ret bool) (int, error) {
	switch a.AttachType(p) {
	case ebpf.AttachTraceKprobeMulti:
		return attachKprobeMulti(a, p, bp, ret, false)
	case ebpf.AttachTraceKprobeSession:
		return attachKprobeMulti(a, p, bp, false, true)
	}
	start := time.Now()
	var got []io.Closer
	var firstErr error
	for _, target := range p.Targets {
		t, err := TargetAs[FuncTarget](p, target)
		if err != nil {
			return 0, err
		}
		opts := &link.KprobeOptions{Offset: t.Offset, TraceFSPrefix: "gotrace"}
		var l link.Link
		if ret {
			l, err = link.Kretprobe(t.Func, bp, opts)
		} else {
			l, err = link.Kprobe(t.Func, bp, opts)
		}
		if err == nil {
			got = append(got, l)
			continue
		}
		if len(p.Targets) > 1 {
			a.Skip(t.String())
			continue
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("attach %s to %s: %w", p.Name, t, err)
		}
	}
	a.PushAll(got)
	if firstErr != nil {
		return 0, firstErr
	}
	if len(got) == 0 {
		return 0, fmt.Errorf("attach %s: the kernel refused every function (%s)", p.Name, SkippedList(a.Skipped()))
	}
	if len(p.Targets) > 1 {
		a.Note(fmt.Sprintf("%s: attached %d functions through %d separate %ss in %.2fs (no kprobe_multi)",
			p.Provider, len(got), len(got), p.Provider, time.Since(start).Seconds()))
	}
	return len(got), nil
}

// SkippedList renders the names of the targets the kernel refused, up to
// 8, sorted, for messages.
func SkippedList(names []string) string {
	names = slices.Clone(names)
	slices.Sort(names)
	const show = 8
	if len(names) > show {
		return strings.Join(names[:show], ", ") + ", ..."
	}
	return strings.Join(names, ", ")
}
