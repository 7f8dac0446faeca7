package provider

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/object"
)

// kprobeProvider is kprobe:[vmlinux:]FUNCTION[+OFFSET]: arguments in
// pt_regs, wildcards through one kprobe_multi link when the kernel has it.
var kprobeProvider = kprobe("kprobe", "k", false)

// kretprobeProvider is kretprobe:[vmlinux:]FUNCTION: retval in pt_regs.
var kretprobeProvider = kprobe("kretprobe", "kr", true)

func kprobe(name, alias string, ret bool) *Provider {
	p := &Provider{
		Name:           name,
		Aliases:        []string{alias},
		Expand:         kfuncExpander(name, !ret, false),
		Ctx:            CtxPtRegs,
		Func:           true,
		UserArgs:       never,
		ProbeType:      name,
		SharesProgram:  true,
		PidFilter:      true,
		KernelFeatures: true,
		Compile: func(pts []*Point, f Features, probe *object.Probe) Program {
			probe.Provider = name
			probe.Targets = funcTargets(pts)
			if f.KprobeMulti && len(pts) > 1 {
				return Program{Type: ebpf.Kprobe, AttachType: ebpf.AttachTraceKprobeMulti, Ctx: CtxPtRegs}
			}
			return Program{Type: ebpf.Kprobe, AttachType: ebpf.AttachNone, Ctx: CtxPtRegs}
		},
		Require: requireKprobes,
		Attach: func(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
			return a.AttachKprobes(p, prog, ret)
		},
		List:          funcLister(name, false, ret),
		ListAll:       !ret, // bpftrace's kernel list has kprobe, not kretprobe
		AttachReverse: !ret,
	}
	if ret {
		p.Retval = RetvalProto
	} else {
		p.Args, p.ArgN, p.Override = ArgsFuncProto, true, true
	}
	return p
}

// requireKprobes refuses a kernel without kprobes: it has neither the
// kprobe PMU (/sys/bus/event_source/devices/kprobe, Linux 4.17+) nor
// tracefs's kprobe_events, which exist exactly when CONFIG_KPROBES (with
// CONFIG_KPROBE_EVENTS) is set. Everything is feature-probed, never
// inferred from the kernel version.
func requireKprobes(a Attacher, p *object.Probe) error {
	if _, err := os.Stat("/sys/bus/event_source/devices/kprobe/type"); err == nil {
		return nil
	}
	env, err := a.Tracefs()
	if err != nil {
		return fmt.Errorf("%s: cannot tell whether this kernel has kprobes: %w", probeLabel(p), err)
	}
	events := filepath.Join(env.Root(), "kprobe_events")
	if _, err := os.Stat(events); err == nil {
		return nil
	}
	return fmt.Errorf("%s: this kernel has no kprobes (CONFIG_KPROBES is not set: %s is missing)", probeLabel(p), events)
}

// probeLabel names a probe in messages: its name, and how many more
// functions it covers.
func probeLabel(p *object.Probe) string {
	if n := len(p.Targets); n > 1 {
		return fmt.Sprintf("%s (and %d more functions)", p.Name, n-1)
	}
	return p.Name
}
