package main

import "runtime"

// init keeps the main goroutine on the process's main thread, so that the
// begin and end probes, which run on the goroutine that runs the script,
// see tid == pid as they do under bpftrace.
func init() { runtime.LockOSThread() }
