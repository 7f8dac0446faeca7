// Package gotrace compiles and runs bpftrace scripts from Go, without LLVM:
//
//	script, err := gotrace.Compile("stdin", `BEGIN { printf("hi\n"); exit(); }`, gotrace.Options{})
//	if err != nil {
//		fmt.Fprint(os.Stderr, gotrace.FormatError(err, src))
//	}
//	code, err := script.Run(ctx, gotrace.RunOptions{})
//
// The pipeline is lang (parse and check) → codegen (BPF instructions) →
// runtime (load, attach, print). Running needs root (CAP_BPF, CAP_PERFMON)
// and Linux 5.8 or later (BPF ring buffers); kernel-function probes need
// BTF (/sys/kernel/btf/vmlinux).
package gotrace
