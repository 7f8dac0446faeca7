// Command throughput measures how many printf events a tracer delivers to
// a file, how many it loses, and the CPU time its consumer spends on them.
//
// A helper process (this command re-executed) calls getppid(2) -n times in
// a tight loop on one thread, traced by
//
//	tracepoint:syscalls:sys_enter_getppid /pid == $1/ { printf("%d %s\n", nsecs, comm); }
//
// with the output going to a file (-o). Each run reports:
//
//   - events/s: the events generated per second of the helper's loop;
//   - delivered and lost: the lines in the file, and the events the
//     tracer says it lost (gotrace: "WARNING: Total lost event count";
//     bpftrace: the sum of its "Lost N events" lines), which add up to the
//     events generated;
//   - CPU: the tracer's user+system time (its rusage), per delivered
//     event, and the delivery capacity that makes (delivered events per
//     CPU second of the tracer): the rate the consumer could sustain.
//
// gotrace and bpftrace (when installed) run interleaved, -rounds times;
// medians are reported.
//
//	go build -o /tmp/gotrace ./cmd/gotrace
//	sudo go run ./bench/throughput [-gotrace /tmp/gotrace] [-rounds 5] [-n 2000000] [-perf-rb-pages 0]
//
// It needs root.
package main
