// Command events measures what tracing adds to each traced event: the
// time per getppid(2) call in a tight loop on one thread, untraced and
// traced by
//
//   - hand: a hand-written program built with cilium/ebpf/asm, the
//     reference (count: a per-CPU array slot incremented in place; hist: a
//     pid filter, a log2 bucket and a per-CPU array of buckets),
//   - gotrace: the gotrace binary running the same one-liner,
//   - bpftrace: bpftrace running it, when installed,
//   - gotrace+scrape (with -scrape): gotrace with --metrics, its /metrics
//     fetched every second meanwhile,
//
// for two scripts:
//
//	count: tracepoint:syscalls:sys_enter_getppid { @ = count(); }
//	hist:  tracepoint:raw_syscalls:sys_enter /pid == PID/ { @ = hist(nsecs & 1023); }
//
// The variants run interleaved, round after round, each measurement
// between two untraced ones, so drifts of the machine hit all of them alike. The
// report gives, per script and variant, the median time per call and the
// median cost added over the untraced loop.
//
//	go build -o /tmp/gotrace ./cmd/gotrace
//	sudo go run ./bench/events [-gotrace /tmp/gotrace] [-rounds 7] [-calls 1000000] [-scrape]
//
// It needs root.
package main
