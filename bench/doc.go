// Command bench measures gotrace's startup: launch→first event for a
// tracepoint one-liner, launch→exit for a BEGIN one-liner, and peak RSS, and
// the same for bpftrace when it is installed.
//
//	go run ./bench [-n 20] [-gotrace ./gotrace] [-bpftrace bpftrace]
//
// It needs root. Numbers are medians over -n runs.
package main
