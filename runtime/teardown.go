package runtime

import (
	"errors"
	"io"
	"sync"
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
