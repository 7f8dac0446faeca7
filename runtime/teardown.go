package runtime

import (
	"errors"
	"io"
	"sync"
	"time"
)

// closeGroup returns a Closer that closes cs concurrently.
func closeGroup(cs []io.Closer) io.Closer {
	return closerFunc(func() error {
		errs := make([]error, len(cs))
		parallel(len(cs), detachWorkers, func(i int) { errs[i] = cs[i].Close() })
		return errors.Join(errs...)
	})
}

// parallel runs f(0..n-1) on at most workers goroutines.
func parallel(n, workers int, f func(i int)) {
	if n <= 1 || workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// slowDetach is the detach time from which the time taken is reported.
const slowDetach = time.Second

// detachAll closes what the probes attached (cs), concurrently: closing a
// perf event (tracepoints, profile, software) or a kprobe waits for an RCU
// grace period under the kernel's event_mutex, which serialises most of
// it. Measured on a 2-CPU host (Linux 6.18, shared with other work, one
// run each) with the 360 syscall entry tracepoints on perf events
// (GOTRACE_SYSCALL_TRACEPOINTS=perf): sequential 18.5-19 s; concurrent
// 8-15 s with 2, 4, 8, 16 or 32 workers and 12 s with one per event, with
// no worker count clearly ahead, so it keeps detachWorkers. It reports the
// time taken on stderr when it is long, as attaching does.
func (s *Session) detachAll(cs []io.Closer) error {
	start := time.Now()
	err := closeGroup(cs).Close()
	if took := time.Since(start); took >= slowDetach && !s.opts.Quiet {
		s.sink.Detached(took)
	}
	return err
}

// closerStack closes what was pushed in reverse order.
type closerStack struct{ cs []io.Closer }

func (c *closerStack) push(cl io.Closer) { c.cs = append(c.cs, cl) }

func (c *closerStack) closeAll() error {
	var errs []error
	for i := len(c.cs) - 1; i >= 0; i-- {
		if err := c.cs[i].Close(); err != nil {
			errs = append(errs, err)
		}
	}
	c.cs = nil
	return errors.Join(errs...)
}

// closerFunc adapts a function to io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }
