// Command gotrace runs bpftrace scripts: it compiles them to BPF without
// LLVM, loads and attaches them, and prints bpftrace's output.
//
//	gotrace -e 'tracepoint:syscalls:sys_enter_openat { printf("%s %s\n", comm, str(args.filename)); }'
//
// It needs root (CAP_BPF and CAP_PERFMON) and a kernel with BPF ring buffers
// (Linux 5.8 or later).
package main
