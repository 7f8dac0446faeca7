// Command bench measures gotrace's startup and peak RSS, and the same for
// bpftrace when it is installed: launch→first event for a tracepoint
// one-liner (first), launch→exit for a BEGIN one-liner (exit) and for a
// tracepoint one-liner whose BEGIN calls exit() (tpexit), and the compile of
// a script that reads kernel structs through BTF (btf: gotrace --emit=asm
// against bpftrace -d).
//
//	go run ./bench [-n 20] [-gotrace ./gotrace[,./other]] [-bpftrace bpftrace] [-only first,btf]
//
// It needs root. The tools take turns, run after run, so that the host's
// load affects them alike; numbers are medians over -n runs.
//
// With -mode syscalls it times tracepoint:syscalls:sys_enter_* (counted by
// probe, exit after 200 ms) from launch to exit instead, alternating
// gotrace and bpftrace run by run (-perf adds gotrace on one perf event
// per tracepoint):
//
//	go run ./bench -mode syscalls -n 5 [-perf]
package main
