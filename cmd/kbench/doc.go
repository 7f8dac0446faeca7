// Command kbench measures how long attaching and detaching many kernel
// functions takes with each mechanism gotrace uses:
//
//   - kprobe_multi: one link for every function (Linux 5.18, CONFIG_FPROBE);
//   - kprobe: one kprobe per function, attached and detached by a pool of
//     goroutines as the runtime does;
//   - fentry: one program and BPF trampoline per function, loaded in
//     parallel through a shared BTF cache;
//   - gotrace-fentry: an fentry script over the same functions compiled and
//     run by gotrace, which serves fentry wildcards of
//     runtime.DefaultFentryMultiThreshold or more functions through one
//     kprobe_multi link where the kernel has it (the Via line is printed);
//   - gotrace-fsession: an fentry and an fexit script over the same
//     functions (one fsession link on 7.3), and gotrace-fentry-fexit the
//     same as two tracing_multi links (fsession off).
//
// It runs inside the qemu guests of vmtest (the host kernel has neither
// kprobes nor fentry):
//
//	CGO_ENABLED=0 go build -o /tmp/kbench ./cmd/kbench
//	go build -o .cache/vm/vmexec ./cmd/vmexec
//	.cache/vm/vmexec -kernel 6.12 -timeout 600s /tmp/kbench -n 1000
//
// With -events N it measures instead the cost per event of each mechanism
// (fentry, tracing_multi, kprobe_multi, kprobe) on one hot function,
// ksys_read, called N times by a loop of 1-byte read(2)s of /dev/null:
// the time per call with a hand-written cilium/ebpf program attached (one
// per-CPU array increment) and with gotrace's "@ = count()" on the same
// mechanism, less the time without either; and each program's own run
// time per event from the kernel's BPF statistics, which is what the two
// differ in (under emulation the loop's times are noisy). The best of
// -rounds:
//
//	.cache/vm/vmexec -kernel 7.3 -timeout 600s /tmp/kbench -events 200000
//
// Flags: -n the number of functions (the first N traceable, non-varargs
// functions with BTF, sorted by name); -only a comma-separated subset of
// tracing_multi,kprobe_multi,kprobe,fentry,gotrace-fentry,
// gotrace-kprobe_multi,gotrace-trampolines,gotrace-fsession,
// gotrace-fentry-fexit (with -events: of fentry,
// tracing_multi,kprobe_multi,kprobe); -attach-workers and
// -detach-workers the goroutines attaching and detaching separate kprobes
// and trampolines (default 1 and 32, as the runtime). Each line printed is
// "METHOD N functions: load X s, attach Y s, detach Z s".
package main
