// Package runtime runs a compiled gotrace program (a *object.Program) on
// the running kernel: it loads the BPF collection, fills in the globals,
// runs BEGIN probes, attaches every other probe, prints the events the
// programs send through the ring buffer, and at exit runs END probes and
// prints every map, all in bpftrace's text format.
//
// Run follows bpftrace 0.26's sequence: BEGIN programs run (through
// BPF_PROG_TEST_RUN) before the other probes are attached; "Attached N
// probes" goes to stderr; exit() or a signal detaches the probes and drops
// events still queued; END programs then run and their events are printed;
// finally "\n\n" and the non-empty maps in name order are printed. A
// program with only BEGIN and END probes stops by itself once BEGIN's events
// are printed.
//
// Events follow object.EventKind. Two details go beyond the codegen
// contract: an EventPrint record of at least 32 bytes carries print()'s top
// and div arguments as two uint64 after the header; and when
// Program.DroppedMap is set, its uint64 count (per-CPU counts are summed) is read while
// events are read, even when the ring buffer never drains, to report "Lost
// N events" on stderr at most once a second while events are lost, and at
// exit "WARNING: Total lost event count: N", as bpftrace does. errorf() and
// warnf() print the call's location, "ERROR: " or "WARNING: " and the
// message on stderr (output.Message), as bpftrace does.
//
// Every event goes through the session's Sink: TextSink prints the text
// output above, JSONSink bpftrace's -f json (one object a line on
// stdout); Options.Sink gives another, such as a recorder. Maps are read
// in batches (BPF_MAP_LOOKUP_BATCH, Linux 5.6) where the kernel has them
// for the map's type, else key by key.
//
// The event loop is built to keep up with a storm: records are read into
// one reused buffer, printf events are formatted without allocating
// (output.Formatter.AppendPrintf) into a buffered stdout, which is flushed
// when the ring buffer has stayed drained for a millisecond, when the
// buffer is full, before anything is written to stderr, and at exit.
// RingbufSize sizes the ring buffer from bpftrace's perf_rb_pages.
//
// Kernel requirements:
//   - BPF ring buffer (BPF_MAP_TYPE_RINGBUF): Linux 5.8.
//   - BEGIN/END (BPF_PROG_TEST_RUN of raw tracepoint programs): Linux 5.10.
//   - tracepoint, interval, profile and software probes: perf events with
//     BPF programs; bpf_link for perf events (Linux 5.15) is used when
//     available, with a fallback to PERF_EVENT_IOC_SET_BPF.
//   - tracepoint probes need tracefs, which Run mounts when it is not
//     mounted (see package tracefs).
//   - tp_btf and fentry/fexit probes need kernel BTF and a BPF trampoline
//     for the architecture; kprobes need CONFIG_KPROBES.
//   - CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); Run lifts RLIMIT_MEMLOCK,
//     which kernels before 5.11 charge BPF memory against.
package runtime
