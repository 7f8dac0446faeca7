package main

import "runtime"

// init keeps the main goroutine on the process's main thread, so that the
// begin probes, which run on the goroutine that runs the script, see
// tid == pid as they do under bpftrace. session.attached lets it go once
// they have run: a goroutine locked to a thread wakes up slower, and the
// event loop follows.
func init() { runtime.LockOSThread() }
