package provider

import (
	"cmp"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/object"
)

// fentryProvider is fentry:[vmlinux:]FUNCTION: a BPF trampoline whose
// arguments are typed by BTF. A probe of several functions whose body
// reads the same shape in each (each args field's slot and type, retval's
// type: lang/check/shape.go) is served by one tracing_multi link where the
// kernel has it (one program, one trampoline per function, attached and
// detached together; tracingmulti.go), else, when it reads neither, a
// large one by one kprobe_multi link (arguments then come from pt_regs):
// separate trampolines cost ~140 ms each to detach.
var fentryProvider = trampoline("fentry", []string{"f", "kfunc"}, ebpf.AttachTraceFEntry)

// fexitProvider is fexit:[vmlinux:]FUNCTION: a trampoline run on return,
// with the arguments and retval.
var fexitProvider = trampoline("fexit", []string{"fr", "kretfunc"}, ebpf.AttachTraceFExit)

func trampoline(name string, aliases []string, at ebpf.AttachType) *Provider {
	exit := at == ebpf.AttachTraceFExit
	p := &Provider{
		Name:            name,
		Aliases:         aliases,
		Expand:          kfuncExpander(name, false, true),
		ProgramPerMatch: wildTarget,
		ArgsType:        ArgsBuilder.ProtoArgs,
		Ctx:             CtxBTFArgs,
		Func:            true,
		UserArgs:        never,
		ProbeType:       name,
		DPath:           true,
		Kfuncs:          true,
		VmlinuxInName:   true,
		SharesProgram:   true,
		SharesByShape:   true,
		PidFilter:       true,
		KernelFeatures:  true,
		Compile: func(pts []*Point, f Features, probe *object.Probe) Program {
			probe.Provider = name
			probe.Targets = funcTargets(pts)
			overMax := f.TracingMultiMax > 0 && len(pts) > f.TracingMultiMax && f.KprobeMulti && !exit
			if f.TracingMulti && len(pts) > 1 && allVmlinux(pts) && !overMax {
				probe.Via = fmt.Sprintf("%d functions served by one tracing_multi link", len(pts))
				multi := AttachTraceFentryMulti
				if exit {
					multi = AttachTraceFexitMulti
				}
				return Program{Type: ebpf.Tracing, AttachType: multi, Ctx: CtxBTFArgs}
			}
			if !exit && f.KprobeMulti && f.FentryMultiThreshold > 0 && len(pts) >= f.FentryMultiThreshold {
				probe.Provider = kprobeProvider.Name
				probe.Via = fmt.Sprintf("fentry wildcard of %d functions served by one kprobe_multi link", len(pts))
				return Program{Type: ebpf.Kprobe, AttachType: ebpf.AttachTraceKprobeMulti, Ctx: CtxPtRegs}
			}
			return Program{Type: ebpf.Tracing, AttachType: at, Ctx: CtxBTFArgs}
		},
		Attach: func(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
			if IsTracingMulti(a.AttachType(p)) {
				return attachTracingMulti(a, p, prog)
			}
			return attachTrampoline(a, p, prog)
		},
		List: funcLister(name, true, exit),
		// Trampolines are listed with their module: fentry:vmlinux:vfs_read.
		Listing: func(pt *Point) (string, bool) {
			return name + ":" + cmp.Or(pt.Module, "vmlinux") + ":" + pt.Func, true
		},
		ListAll:       !exit, // bpftrace's kernel list has fentry, not fexit
		AttachReverse: true,
	}
	if exit {
		p.RetvalType = retvalProto(true)
	}
	return p
}

// attachTrampoline links a Tracing program, which the kernel bound to its
// one target when it loaded it (fentry, fexit, tp_btf). A target of a
// wildcard that the kernel refuses is skipped: no attach point, no error.
func attachTrampoline(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
	l, err := link.AttachTracing(link.TracingOptions{Program: prog, AttachType: a.AttachType(p)})
	if err != nil {
		if p.Group.Wildcard() {
			target := p.Name
			if len(p.Targets) == 1 {
				target = p.Targets[0].String()
			}
			a.Skip(target)
			return 0, nil
		}
		return 0, fmt.Errorf("attach %s: %w", p.Name, err)
	}
	a.Push(l)
	return max(len(p.Targets), 1), nil
}
