// Command bench measures gotrace's startup: launch→first event for a
// tracepoint one-liner, launch→exit for a BEGIN one-liner, and peak RSS, and
// the same for bpftrace when it is installed.
//
//	go run ./bench [-n 20] [-gotrace ./gotrace] [-bpftrace bpftrace]
//
// It needs root. Numbers are medians over -n runs.
//
// With -mode syscalls it times tracepoint:syscalls:sys_enter_* (counted by
// probe, exit after 200 ms) from launch to exit instead, alternating
// gotrace and bpftrace run by run (-perf adds gotrace on one perf event
// per tracepoint):
//
//	go run ./bench -mode syscalls -n 5 [-perf]
package main
