package main

import (
	"os"
	"os/signal"
	"syscall"
)

// earlySignals catches SIGINT and SIGTERM from this package's
// initialisation until run (or runAOT) installs its own handling
// (runtime.StopOnSignals); without it a signal in the first tens of
// milliseconds of a start would kill gotrace.
var earlySignals = make(chan os.Signal, 4)

func init() { signal.Notify(earlySignals, syscall.SIGINT, syscall.SIGTERM) }

// replayEarlySignals hands the signals caught early to the handling now
// installed, by sending them again, and stops catching them early.
func replayEarlySignals() {
	signal.Stop(earlySignals)
	for {
		select {
		case sig := <-earlySignals:
			if s, ok := sig.(syscall.Signal); ok {
				_ = syscall.Kill(os.Getpid(), s)
			}
		default:
			return
		}
	}
}
