package provider

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/object"
)

// UprobeMultiMin is the number of targets from which a uprobe probe is
// loaded for uprobe_multi links, where the kernel has them (Linux 6.6):
// one link per binary instead of a perf event per function (1,000
// functions: 85 s of separate uprobes against 1.9 s for one link).
const UprobeMultiMin = 2

// WantsUprobeMulti reports whether probe p is better served by uprobe_multi
// links, where the kernel has them: a uprobe or uretprobe probe of at least
// UprobeMultiMin targets. The runtime loads its program with the attach
// type AttachTraceUprobeMulti, and the provider's Attach then creates the
// links.
func WantsUprobeMulti(p *object.Probe) bool {
	return (p.Provider == uprobeProvider.Name || p.Provider == uretprobeProvider.Name) && len(p.Targets) >= UprobeMultiMin
}

// attachUprobeMulti attaches p's targets through one uprobe_multi link per
// binary: the file offsets this package resolves go in one link; a target
// the library has to find by its symbol gets a link of its own.
func attachUprobeMulti(a Attacher, p *object.Probe, prog *ebpf.Program, ret bool, syms uprobeSymbols) (int, error) {
	type group struct {
		ex    *link.Executable
		addrs []uint64
	}
	groups := map[string]*group{}
	var order []string
	attach := func(ex *link.Executable, symbols []string, opts *link.UprobeMultiOptions) error {
		var l link.Link
		var err error
		if ret {
			l, err = ex.UretprobeMulti(symbols, prog, opts)
		} else {
			l, err = ex.UprobeMulti(symbols, prog, opts)
		}
		if err != nil {
			return err
		}
		a.Push(l)
		return nil
	}
	for _, target := range p.Targets {
		t, err := resolveUprobe(a, p, target, ret, syms)
		if err != nil {
			return 0, err
		}
		g := groups[t.file]
		if g == nil {
			ex, err := link.OpenExecutable(t.file)
			if err != nil {
				return 0, fmt.Errorf("attach %s: %w", p.Name, err)
			}
			g = &group{ex: ex}
			groups[t.file] = g
			order = append(order, t.file)
		}
		if t.sym != "" {
			opts := &link.UprobeMultiOptions{Offsets: []uint64{t.opts.Offset}, PID: uint32(t.opts.PID)}
			if err := attach(g.ex, []string{t.sym}, opts); err != nil {
				return 0, fmt.Errorf("attach %s to %s: %w", p.Name, target, err)
			}
			continue
		}
		g.addrs = append(g.addrs, t.opts.Address)
	}
	for _, file := range order {
		g := groups[file]
		if len(g.addrs) == 0 {
			continue
		}
		if err := attach(g.ex, nil, &link.UprobeMultiOptions{Addresses: g.addrs, PID: uint32(tracedPid(a))}); err != nil {
			return 0, fmt.Errorf("attach %s: %d functions of %s through one uprobe_multi link: %w", p.Name, len(g.addrs), file, err)
		}
	}
	return len(p.Targets), nil
}
