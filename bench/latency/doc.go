// Command latency measures how long a line of output takes to come out of
// a tracer in line-buffered mode (-B line, bpftrace's default) at a
// moderate event rate, and how soon a tracer piped into `head -1` exits.
//
// This process calls getppid(2) at -rate calls a second from one thread,
// traced by
//
//	tracepoint:syscalls:sys_enter_getppid /pid == $1/ { printf("%llu\n", nsecs); }
//
// and reads the tracer's standard output, a pipe. Each line's latency is
// the CLOCK_MONOTONIC time at which it was read less the nsecs it carries
// (the event's time). Reported: the 50th and 99th percentiles and the
// largest latency over -seconds of events. Then, for the head -1 case, it
// reads one line, closes the pipe, keeps the events coming, and reports
// how long the tracer takes to exit after the close.
//
//	go build -o /tmp/gotrace ./cmd/gotrace
//	sudo go run ./bench/latency [-gotrace /tmp/gotrace] [-bpftrace bpftrace] [-rate 3000] [-seconds 5]
//
// It needs root. Issue 20's goal for gotrace: p99 at most 10 ms at 3000
// events a second.
package main
