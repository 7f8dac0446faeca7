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
// does not depend on which one fired is served by one tracing_multi link
// where the kernel has it (one program, one trampoline per function,
// attached and detached together), else a large one by one kprobe_multi
// link (arguments then come from pt_regs): separate trampolines cost
// ~140 ms each to detach.
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
		Args:            ArgsFuncProto,
		Ctx:             CtxBTFArgs,
		Func:            true,
		UserArgs:        never,
		ProbeType:       name,
		DPath:           true,
		Kfuncs:          true,
		SharesProgram:   true,
		PidFilter:       true,
		KernelFeatures:  true,
		Compile: func(pts []*Point, f Features, probe *object.Probe) Program {
			probe.Provider = name
			probe.Targets = funcTargets(pts)
			if f.TracingMulti && len(pts) > 1 && allVmlinux(pts) {
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
				return a.AttachTracingMulti(p, prog)
			}
			l, err := link.AttachTracing(link.TracingOptions{Program: prog, AttachType: a.AttachType(p)})
			if err != nil {
				return 0, fmt.Errorf("attach %s: %w", p.Name, err)
			}
			a.Push(l)
			return max(len(p.Targets), 1), nil
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
		p.Retval = RetvalAfterArgs
	}
	return p
}

// Attach types of trampolines over many functions (enum bpf_attach_type;
// Linux 7.3): a program loaded with one of them attaches through one
// tracing_multi link to functions named by their BTF IDs. Its context is
// that of bpf_multi_func, a function without parameters: arguments and
// the return value are read with bpf_get_func_arg and bpf_get_func_ret.
const (
	AttachTraceFsession      = ebpf.AttachType(58)
	AttachTraceFentryMulti   = ebpf.AttachType(59)
	AttachTraceFexitMulti    = ebpf.AttachType(60)
	AttachTraceFsessionMulti = ebpf.AttachType(61)
)

// IsTracingMulti reports whether at is an attach type of tracing_multi
// links.
func IsTracingMulti(at ebpf.AttachType) bool {
	return at == AttachTraceFentryMulti || at == AttachTraceFexitMulti || at == AttachTraceFsessionMulti
}

// allVmlinux reports whether every point is a function of vmlinux: a
// tracing_multi link names functions by vmlinux BTF IDs.
func allVmlinux(pts []*Point) bool {
	for _, pt := range pts {
		if pt.Module != "" && pt.Module != "vmlinux" {
			return false
		}
	}
	return true
}
