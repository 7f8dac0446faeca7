package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	goruntime "runtime"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/features"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/runtime"
)

// printInfo prints --info: the system, the build, and the kernel's BPF
// support that gotrace uses, in bpftrace's sections ("name: yes/no").
func printInfo(stdout io.Writer) int {
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	var uts unix.Utsname
	_ = unix.Uname(&uts)
	fmt.Fprintf(w, "System\n  OS: %s %s %s\n  Arch: %s\n\n",
		unix.ByteSliceToString(uts.Sysname[:]), unix.ByteSliceToString(uts.Release[:]),
		unix.ByteSliceToString(uts.Version[:]), unix.ByteSliceToString(uts.Machine[:]))
	// dw_ustack's unwinder (runtime/unwind) knows x86-64's registers only.
	dwunwind := "no"
	if goruntime.GOARCH == "amd64" {
		dwunwind = "yes"
	}
	fmt.Fprintf(w, "Build\n  version: %s\n  compatible with: %s\n  Go: %s\n  code generation: cilium/ebpf asm (no LLVM)\n  dwunwind (DWARF stack unwinding): %s\n\n",
		version, compatibleWith, goruntime.Version(), dwunwind)

	yes := func(err error) string {
		if err == nil {
			return "yes"
		}
		return "no"
	}
	yesIf := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "no"
	}
	helper := func(pt ebpf.ProgramType, fn asm.BuiltinFunc) string {
		return yes(features.HaveProgramHelper(pt, fn))
	}
	section := func(title string, rows [][2]string) {
		fmt.Fprintln(w, title)
		for _, r := range rows {
			fmt.Fprintf(w, "  %s: %s\n", r[0], r[1])
		}
		fmt.Fprintln(w)
	}
	section("Kernel helpers", [][2]string{
		{"dpath", yesIf(runtime.HaveDPath())},
		{"get_tai_ns", helper(ebpf.Kprobe, asm.FnKtimeGetTaiNs)},
		{"get_func_ip", helper(ebpf.Kprobe, asm.FnGetFuncIp)},
		{"lookup_percpu_elem", helper(ebpf.Kprobe, asm.FnMapLookupPercpuElem)},
		{"loop", helper(ebpf.Kprobe, asm.FnLoop)},
	})
	limit := "4096"
	if features.HaveLargeInstructions() == nil {
		limit = "1000000"
	}
	_, btfErr := gotrace.NewKernelEnv().BTF()
	_, modErr := os.Stat("/sys/kernel/btf")
	section("Kernel features", [][2]string{
		{"Instruction limit", limit},
		{"btf", yes(btfErr)},
		{"module btf", yes(modErr)},
		{"ringbuf", yes(features.HaveMapType(ebpf.RingBuf))},
	})
	section("Probe types", [][2]string{
		{"kprobe", yes(haveKprobes())},
		{"kprobe_multi", yes(features.HaveBPFLinkKprobeMulti())},
		{"uprobe_multi", yes(features.HaveBPFLinkUprobeMulti())},
		{"kprobe_session", yes(features.HaveBPFLinkKprobeSession())},
		{"tracepoint", yes(features.HaveProgramType(ebpf.TracePoint))},
		{"raw_tracepoint", yes(features.HaveProgramType(ebpf.RawTracepoint))},
		{"perf_event", yes(features.HaveProgramType(ebpf.PerfEvent))},
	})
	return 0
}

// haveKprobes reports whether the kernel has kprobes: the kprobe PMU or
// tracefs's kprobe_events (CONFIG_KPROBES).
func haveKprobes() error {
	var err error
	for _, p := range []string{"/sys/bus/event_source/devices/kprobe/type",
		"/sys/kernel/tracing/kprobe_events", "/sys/kernel/debug/tracing/kprobe_events"} {
		if _, err = os.Stat(p); err == nil {
			return nil
		}
	}
	return err
}
