package runtime

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// ForceQuitAfter is how long teardown (END probes, printing the maps) may
// take before one more SIGINT or SIGTERM quits at once.
const ForceQuitAfter = 3 * time.Second

// StopOnSignals returns a context that is cancelled by the first SIGINT or
// SIGTERM: Run then stops as it does when its context is cancelled, running
// END probes and printing the maps. Signals keep being caught until release
// is called, so that repeated signals do not kill the process while it
// tears down: coreutils' timeout(1) signals both gotrace and its process
// group, and an impatient Ctrl-C is often pressed twice. The process quits
// at once, saying so on stderr and with the status of a signal death
// (128+signal), only when the quit is deliberate: on the third signal, or
// on a later signal that arrives ForceQuitAfter or more after the first.
//
// Call release when the output is complete; after it a signal has its
// default effect again.
func StopOnSignals(ctx context.Context, stderr io.Writer) (_ context.Context, release func()) {
	ctx, cancel := context.WithCancel(ctx)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var first time.Time
		n := 0
		for {
			select {
			case <-quit:
				return
			case sig := <-sigs:
				n++
				if n == 1 {
					first = time.Now()
					cancel()
					continue
				}
				if n < 3 && time.Since(first) < ForceQuitAfter {
					continue // part of the first stop request
				}
				fmt.Fprintf(stderr, "gotrace: quitting at once on a repeated %v: END probes and the map printout are skipped\n", sig)
				code := 128
				if s, ok := sig.(syscall.Signal); ok {
					code += int(s)
				}
				os.Exit(code)
			}
		}
	}()
	return ctx, sync.OnceFunc(func() {
		signal.Stop(sigs)
		close(quit)
		wg.Wait()
		cancel()
	})
}
