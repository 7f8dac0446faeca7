// Package benchcpu reports the CPU time a benchmark's operations take, as
// the metric cpu-ns/op: on a shared, loaded host wall time per operation
// says how busy the host was more than what the operation costs.
package benchcpu

import (
	"syscall"
	"testing"
	"time"
)

// Measure starts measuring; the function it returns, called after the
// benchmark's loop, reports the process's user and system CPU time (all
// its threads, the garbage collector's included) per operation.
//
//	defer benchcpu.Measure(b)()
func Measure(b *testing.B) func() {
	start := cpuTime(b)
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
