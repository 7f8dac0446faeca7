package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

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
		Name:    name,
		Aliases: []string{alias},
		Expand:  kfuncExpander(name, !ret, false),
		// A module-qualified wildcard is one program per match.
		ProgramPerMatch: func(parts []string, _ int) bool { return len(parts) > 1 && wildAt(parts, 0) },
		Ctx:             CtxPtRegs,
		Func:            true,
		UserArgs:        never,
		ProbeType:       name,
		MultiLink:       KprobeMultiLink,
		SharesProgram:   true,
		PidFilter:       true,
		KernelFeatures:  true,
		Compile: func(pts []*Point, f Features, probe *object.Probe) Program {
			probe.Provider = name
			probe.Targets = funcTargets(pts)
			// kprobe_multi attaches through ftrace: a function without an
			// ftrace location needs a kprobe of its own, and one program
			// cannot be both.
			if f.KprobeMulti && len(pts) > 1 && !slices.ContainsFunc(pts, func(pt *Point) bool { return pt.NoFtrace }) {
				return Program{Type: ebpf.Kprobe, AttachType: ebpf.AttachTraceKprobeMulti, Ctx: CtxPtRegs}
			}
			return Program{Type: ebpf.Kprobe, AttachType: ebpf.AttachNone, Ctx: CtxPtRegs}
		},
		Require: requireKprobes,
		Attach: func(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
			if t, ok := p.Targets[0].(FuncTarget); ok && t.ByAddr && len(p.Targets) == 1 {
				if err := attachKprobeAt(a, prog, t.Addr, ret); err != nil {
					return 0, fmt.Errorf("Unable to attach probe: %s: %w", p.Name, err)
				}
				return 1, nil
			}
			n, err := attachKprobes(a, p, prog, ret)
			if err != nil && len(p.Targets) == 1 {
				err = explainKprobeRefusal(a, p, err)
			}
			return n, err
		},
		List:          funcLister(name, false, ret),
		ListAll:       !ret, // bpftrace's kernel list has kprobe, not kretprobe
		AttachReverse: !ret,
	}
	if ret {
		p.RetvalType = retvalProto(false)
	} else {
		p.ArgsType, p.ArgN, p.Override = ArgsBuilder.RegisterArgs, true, true
	}
	return p
}

// explainKprobeRefusal says why the kernel refused the kprobe of p on its
// one function, when the symbol table tells: the function does not exist
// (attached all the same with --unsafe), or kprobe events refuse a
// function without an ftrace location (notrace, or __init code) unless the
// kernel has CONFIG_KPROBE_EVENTS_ON_NOTRACE, and the error the kernel
// gives for it (EINVAL) comes back from cilium/ebpf as the failure of its
// retry with the architecture's syscall prefix ("token __x64_NAME: not
// found"), which misleads.
func explainKprobeRefusal(a Attacher, p *object.Probe, err error) error {
	t, terr := TargetAs[FuncTarget](p, p.Targets[0])
	if terr != nil {
		return err
	}
	fn := t.Func
	env, terr := a.Tracefs()
	if terr != nil {
		return err
	}
	syms, _ := env.KernelSymbols()
	if syms == nil {
		return err
	}
	if syms.Count(fn) == 0 && syms.LoadedModule(fn) == "" {
		// The not-traceable warning came first (--unsafe): bpftrace's
		// error, and why.
		return fmt.Errorf("Unable to attach probe: %s: the kernel has no function %s (kallsyms lists it neither in vmlinux nor in a loaded module)", p.Name, fn)
	}
	if has, known := syms.HasFtrace(fn); known && !has {
		return fmt.Errorf("%s: the kernel refused a kprobe on %s: the function has no ftrace location (it is not in available_filter_functions: marked notrace, or __init code freed after boot), and kprobe events refuse such functions unless the kernel is built with CONFIG_KPROBE_EVENTS_ON_NOTRACE", p.Name, fn)
	}
	return err
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
