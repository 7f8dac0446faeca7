package earlysig

import (
	"os"
	"os/signal"
	"syscall"
)

// early holds the signals caught before Replay.
var early = make(chan os.Signal, 4)

func init() { signal.Notify(early, syscall.SIGINT, syscall.SIGTERM) }

// Replay stops catching signals early and hands those caught to the
// handling now installed, by sending them again.
func Replay() {
	signal.Stop(early)
	for {
		select {
		case sig := <-early:
			if s, ok := sig.(syscall.Signal); ok {
				_ = syscall.Kill(os.Getpid(), s)
			}
		default:
			return
		}
	}
}

// Reset gives SIGINT and SIGTERM their default effect again, for a
// process that does not handle them.
func Reset() { signal.Reset(syscall.SIGINT, syscall.SIGTERM) }
