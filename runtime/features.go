package runtime

import (
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/features"

	"github.com/gotrace/gotrace/provider"
)

// SyscallPerfEnv names the environment variable that chooses how syscall
// tracepoints are served: "perf" keeps them on one perf event each (the
// path bpftrace takes), for comparison and as a way out; "raw" serves them
// by the dispatchers however few there are; unset or any other value
// chooses by SyscallDispatchMin.
const SyscallPerfEnv = "GOTRACE_SYSCALL_TRACEPOINTS"

// SyscallDispatchMin is the number of syscall tracepoints (attach points,
// both directions together) from which the dispatchers serve them. Below
// it each keeps its perf event: the dispatchers' raw tracepoint programs
// run on every syscall of the machine, traced or not, and a dispatched
// event costs a tail call more than a perf-event one (bench/events); what
// they save is the teardown, an RCU grace period for each perf event
// closed (about 30 ms each when closed concurrently, docs/benchmarks.md),
// which a handful of tracepoints does not make worth that cost.
const SyscallDispatchMin = 8

// WantSyscallDispatch reports whether a program with n syscall tracepoint
// attach points is better served by the dispatchers, where the kernel has
// them (HaveSyscallRawTp): SyscallPerfEnv is "raw", or n is at least
// SyscallDispatchMin.
func WantSyscallDispatch(n int) bool {
	return n > 0 && (n >= SyscallDispatchMin || os.Getenv(SyscallPerfEnv) == "raw")
}

// DefaultFentryMultiThreshold is the size from which an fentry wildcard is
// served by one kprobe_multi link: separate trampolines take ~140 ms each
// to detach (measured on 6.12 under emulation), one kprobe_multi link
// detaches 1000 functions in 0.24 s.
const DefaultFentryMultiThreshold = 64

// DefaultTracingMultiMax is the most functions an fentry probe attaches
// through one tracing_multi link where kprobe_multi can serve it instead
// (provider.Features.TracingMultiMax): its attach and detach grow by
// 1-2 ms a function under emulation, kprobe_multi's by about 0.3 ms.
const DefaultTracingMultiMax = 2000

// Features probes the running kernel for the choices code generation
// depends on (all of provider.Features but LongJumps, which HaveLongJumps
// probes when a program needs it); spec is the kernel's BTF (nil skips the
// probes that need it).
// Every choice is feature-probed, never inferred from the kernel version:
//   - kprobe_multi links (Linux 5.18 with CONFIG_FPROBE);
//   - direct loads through BTF-typed pointers in trampoline and BTF raw
//     tracepoint programs (Linux 5.5), probed by loading a tp_btf program
//     that reads sched_switch's prev->pid;
//   - raw tracepoint programs (Linux 4.17), for syscall tracepoints;
//   - kprobe session links (Linux 6.10), for a kprobe and a kretprobe on
//     the same functions;
//   - tracing_multi links (Linux 7.3), HaveTracingMulti, and fentry/fexit
//     sessions over them, HaveFsession.
//
// cache, when not nil, is where the probe finds its attach target: pass the
// cache spec came from, so that the kernel's BTF is not parsed twice.
func Features(spec *btf.Spec, cache *btf.Cache) provider.Features {
	_ = raiseMemlock()
	var o provider.Features
	if features.HaveBPFLinkKprobeMulti() == nil {
		o.KprobeMulti = true
		o.FentryMultiThreshold = DefaultFentryMultiThreshold
		o.KprobeSession = features.HaveBPFLinkKprobeSession() == nil
	}
	if HaveTracingMulti() {
		o.TracingMulti = true
		o.TracingMultiMax = DefaultTracingMultiMax
		o.Fsession = HaveFsession(spec)
	}
	o.DirectBTFLoads = haveDirectBTFLoads(spec, cache)
	o.SyscallRawTp = HaveSyscallRawTp()
	return o
}

// HaveLongJumps reports whether the kernel has gotol, the unconditional
// jump with a 32-bit distance (BPF_JMP32 | BPF_JA, part of the v4 ISA,
// Linux 6.4 or later), probed by loading a program that uses it.
func HaveLongJumps() bool {
	_ = raiseMemlock()
	return features.HaveV4ISA() == nil
}

// HaveSyscallRawTp reports whether syscall tracepoints can be served by the
// dispatchers on the raw tracepoints sys_enter and sys_exit: x86-64, raw
// tracepoint programs (Linux 4.17), and SyscallPerfEnv not "perf".
func HaveSyscallRawTp() bool {
	return provider.SyscallsSupported() && os.Getenv(SyscallPerfEnv) != "perf" &&
		features.HaveProgramType(ebpf.RawTracepoint) == nil
}

// haveDirectBTFLoads loads a tp_btf program on sched_switch that reads
// prev->pid with a plain load from the BTF-typed argument.
func haveDirectBTFLoads(spec *btf.Spec, cache *btf.Cache) bool {
	if spec == nil {
		return false
	}
	var task *btf.Struct
	if spec.TypeByName("task_struct", &task) != nil {
		return false
	}
	off := -1
	for _, m := range task.Members {
		if m.Name == "pid" {
			off = int(m.Offset / 8)
		}
	}
	if off < 0 {
		return false
	}
	// A collection, not ebpf.NewProgramWithOptions, which would look up
	// sched_switch in a kernel BTF of its own.
	coll, err := ebpf.NewCollectionWithOptions(&ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{"probe": {
		Type:       ebpf.Tracing,
		AttachType: ebpf.AttachTraceRawTp,
		AttachTo:   "sched_switch",
		License:    "GPL",
		Instructions: asm.Instructions{
			// sched_switch(bool preempt, struct task_struct *prev, ...)
			asm.LoadMem(asm.R1, asm.R1, 8, asm.DWord),
			asm.LoadMem(asm.R0, asm.R1, int16(off), asm.Word),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		},
	}}}, ebpf.CollectionOptions{Programs: ebpf.ProgramOptions{KernelTypes: spec}, Cache: cache})
	if err != nil {
		return false
	}
	coll.Close()
	return true
}

// HaveTracingMulti reports whether the kernel loads fentry programs for
// tracing_multi links: a program of attach type
// provider.AttachTraceFentryMulti, which kernels without them refuse
// (EINVAL: an attach type they do not know).
func HaveTracingMulti() bool {
	return loads(&ebpf.ProgramSpec{
		Type:         ebpf.Tracing,
		AttachType:   provider.AttachTraceFentryMulti,
		License:      "GPL",
		Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()},
	})
}

// loads reports whether the kernel loads the program of spec.
func loads(spec *ebpf.ProgramSpec) bool {
	_ = raiseMemlock()
	prog, err := ebpf.NewProgram(spec)
	if err != nil {
		return false
	}
	prog.Close()
	return true
}

// HaveFsession reports whether the kernel loads fentry/fexit session
// programs for tracing_multi links: a program of attach type
// provider.AttachTraceFsessionMulti that asks bpf_session_is_return(ctx)
// (its ID from spec, the kernel's BTF), which kernels without sessions
// refuse.
func HaveFsession(spec *btf.Spec) bool {
	if spec == nil {
		return false
	}
	var fn *btf.Func
	if spec.TypeByName("bpf_session_is_return", &fn) != nil {
		return false
	}
	id, err := spec.TypeID(fn)
	if err != nil {
		return false
	}
	return loads(&ebpf.ProgramSpec{
		Type:       ebpf.Tracing,
		AttachType: provider.AttachTraceFsessionMulti,
		License:    "GPL",
		Instructions: asm.Instructions{
			{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Constant: int64(id)},
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		},
	})
}

// HaveDPath reports whether the kernel has the bpf_d_path helper for
// path(): it loads an fentry program on dentry_open, one of the few
// functions the kernel lets call it, that calls it on the function's
// first argument (a struct path). The library's helper probe cannot tell:
// a trampoline program needs a function to attach to.
func HaveDPath() bool {
	return loads(&ebpf.ProgramSpec{
		Type:       ebpf.Tracing,
		AttachType: ebpf.AttachTraceFEntry,
		AttachTo:   "dentry_open",
		License:    "GPL",
		Instructions: asm.Instructions{
			asm.LoadMem(asm.R1, asm.R1, 0, asm.DWord),
			asm.Mov.Imm(asm.R6, 0),
			asm.StoreMem(asm.RFP, -8, asm.R6, asm.DWord),
			asm.Mov.Reg(asm.R2, asm.RFP),
			asm.Add.Imm(asm.R2, -8),
			asm.Mov.Imm(asm.R3, 8),
			asm.FnDPath.Call(),
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		},
	})
}

// The kernel features --no-feature can turn off (bpftrace's names, and
// fsession).
const (
	FeatureKprobeMulti   = "kprobe_multi"   // kprobe_multi links for kprobe and fentry wildcards
	FeatureUprobeMulti   = "uprobe_multi"   // uprobe_multi links for uprobes on several functions
	FeatureKprobeSession = "kprobe_session" // one session program for a kprobe and a kretprobe on the same functions
	FeatureFsession      = "fsession"       // one session program for an fentry and an fexit on the same functions
)

// FeatureNames are the features --no-feature accepts, in bpftrace's order.
var FeatureNames = []string{FeatureUprobeMulti, FeatureKprobeMulti, FeatureKprobeSession, FeatureFsession}
