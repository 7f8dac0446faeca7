// Command systrigger makes known syscalls with known arguments, for the
// syscall tracepoint tests: an openat of a missing file, a read of 4321
// bytes from /dev/zero, getppid 7 times, getpgrp 3 times (Go makes it getpgid(0)), and exit_group
// with status 3.
package main

import (
	"os"
	"syscall"
	"time"
)

func main() {
	_, _ = syscall.Open("/nonexistent/gotrace-systp", syscall.O_RDONLY, 0)
	fd, err := syscall.Open("/dev/zero", syscall.O_RDONLY, 0)
	if err != nil {
		os.Exit(1)
	}
	buf := make([]byte, 4321)
	_, _ = syscall.Read(fd, buf)
	for range 7 {
		syscall.Getppid()
	}
	for range 3 {
		syscall.Getpgrp()
	}
	// Let the tracer print the events before the exit stops it.
	time.Sleep(300 * time.Millisecond)
	os.Exit(3)
}
