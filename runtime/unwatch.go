package runtime

import (
	"errors"
	"io"
	"sync"
)

// watchSet holds the perf events of watchpoint probes by address, so that
// unwatch(addr) can detach them while the script runs. Each one is also on
// the session's close stack; closing it twice closes it once.
type watchSet struct {
	mu sync.Mutex
	by map[uint64][]io.Closer
}

// add registers c, watching addr, and returns the Closer to push on the
// close stack.
func (w *watchSet) add(addr uint64, c io.Closer) io.Closer {
	oc := &onceCloser{c: c}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.by == nil {
		w.by = map[uint64][]io.Closer{}
	}
	w.by[addr] = append(w.by[addr], oc)
	return oc
}

// unwatch detaches every watchpoint on addr. An address not watched (or no
// longer) is no error, as in bpftrace: a script may unwatch addresses it
// only may have watched.
func (w *watchSet) unwatch(addr uint64) error {
	w.mu.Lock()
	cs := w.by[addr]
	delete(w.by, addr)
	w.mu.Unlock()
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// onceCloser closes c on the first Close; later calls (the teardown after
// an unwatch) wait for it and return its result.
type onceCloser struct {
	once sync.Once
	c    io.Closer
	err  error
}

func (o *onceCloser) Close() error {
	o.once.Do(func() { o.err = o.c.Close() })
	return o.err
}

// Watch implements provider.Attacher.
func (s *entry) Watch(addr uint64, c io.Closer) { s.Push(s.watches.add(addr, c)) }

// unwatch handles an EventUnwatch: it detaches the watchpoint probes on
// addr.
func (s *entry) unwatch(addr uint64) {
	if err := s.watches.unwatch(addr); err != nil {
		s.errorf("unwatch(0x%x): %v", addr, err)
	}
}
