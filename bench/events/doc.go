// Command events measures what tracing adds to each traced event: the
// time per getppid(2) call in a tight loop on one thread, untraced and
// traced by
//
//   - hand: a hand-written program built with cilium/ebpf/asm, the
//     reference (count: a per-CPU array slot incremented in place; hist: a
//     pid filter, a log2 bucket and a per-CPU array of buckets),
//   - gotrace: the gotrace binary running the same one-liner,
//   - bpftrace: bpftrace running it, when installed,
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
//	sudo go run ./bench/events [-gotrace /tmp/gotrace] [-rounds 7] [-calls 1000000]
//
// With -scrape it measures instead what scraping gotrace --metrics every
// second adds to the cost of each event (scrape.go): one gotrace per
// script (a count, a pid-filtered hist, a count into 10,000 keys, all on
// getppid), the scraper turned on and off between one-second windows of
// the loop in ABBA order for -rounds rounds (61 by default), and per round
// the relative difference of the two windows in the kernel's run time per
// event of gotrace's programs (BPF_ENABLE_STATS) and in the loop thread's
// CPU time per call over the untraced call's; medians with 95% confidence
// intervals. Pin it with taskset: everything on one CPU is the case where
// the scrapes compete with the traced thread,
//
//	go build -o /tmp/events ./bench/events
//	taskset -c 1 /tmp/events -gotrace /tmp/gotrace -scrape
//
// and -loop-cpu puts the loop alone on another CPU than gotrace and the
// scraper: taskset -c 0 /tmp/events -gotrace /tmp/gotrace -scrape -loop-cpu 1.
// -only picks scripts, -window and -interval change the window and the
// scrape interval.
//
// It needs root.
package main
