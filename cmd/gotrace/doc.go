// Command gotrace runs bpftrace scripts: it compiles them to BPF without
// LLVM, loads and attaches them, and prints bpftrace's output.
//
//	gotrace -e 'tracepoint:syscalls:sys_enter_openat { printf("%s %s\n", comm, str(args.filename)); }'
//
// Output and process options follow bpftrace: -f json, -o FILE, -B
// line|full|none (line by default), -c CMD (held back until the probes are
// attached by re-executing gotrace as a stand-in that execs CMD; cpid is its
// pid), -p PID (tracepoint, rawtracepoint, kprobe and fentry probes get an
// implicit pid filter; gotrace stops when PID exits), -v, --unsafe.
// The command line is read as bpftrace's getopt_long reads it (getopt.go):
// options may follow the script, short options cluster, and "--" ends
// them; named parameters after it reach getopt().
//
// --aot FILE writes FILE, gotrace's own executable with the script
// appended; run, it compiles the script for the running kernel and runs it
// with the few options of bpftrace's AOT binaries (aot.go).
//
// --metrics ADDR serves the script's maps as Prometheus metrics at
// http://ADDR/metrics while it runs (package metrics; metrics.go), with
// --metrics-prefix and --metrics-max-series; the output does not change.
// Without a program, the REPL serves the maps of its attached entries
// (repl_metrics.go).
//
// SIGINT or SIGTERM, at any point, ends the run with END probes and the
// maps; repeated signals (timeout(1) signals the process and its group)
// do not lose the output, and only a third signal, or one more after three
// seconds of teardown, quits at once, saying so on stderr.
//
// It needs root (CAP_BPF and CAP_PERFMON, CAP_SYS_ADMIN for some probe
// types), checked once up front, and a kernel with BPF ring buffers (Linux
// 5.8 or later). --emit=asm alone needs no privileges.
package main
