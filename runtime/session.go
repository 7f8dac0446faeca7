package runtime

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
	"github.com/gotrace/gotrace/tracefs"
)

// ErrClosed is returned by the methods of a Session, Handle or Map used
// after the session (or the handle) was closed.
var ErrClosed = errors.New("runtime: session closed")

// Session is a live tracing session: programs are added to it one at a
// time (Add), each attaching its probes in the background and getting a
// Handle that detaches them alone, while the session's maps live on and
// can be read, printed, cleared or zeroed from any goroutine (Map). Close
// ends the session as a script run ends: END probes run, the maps are
// printed, and every kernel object is closed.
//
// The maps belong to the session: a program added later that uses @x gets
// the kernel map an earlier program created (the checker and the code
// generator must give it the same type and layout; see check.Options.Maps
// and codegen.Options.Maps). Each program has its own ring buffer and
// event loop, so that its printf and event ids are decoded with its own
// tables; all output goes to the session's Stdout and Stderr, in order.
//
// Run is a Session with one program. A Session is safe for concurrent use.
type Session struct {
	opts Options
	// out buffers Stdout; stdout writes to it and stderr flushes it
	// first, both under out's lock, for any goroutine.
	out            *outWriter
	stdout, stderr io.Writer
	rawStderr      io.Writer
	// sink receives every event (Options.Sink, or the Format's).
	sink Sink
	ncpu int
	// startMono and startBoot are the session's start (CLOCK_MONOTONIC
	// and CLOCK_BOOTTIME), which every program's globals hold: elapsed
	// counts from the session's start.
	startMono, startBoot uint64

	stats   io.Closer   // run-time statistics enabled (Options.ProbeStats)
	stop    atomic.Bool // the session is stopping: event loops return
	unwatch func()      // stops the ctx watcher
	lifeMu  sync.Mutex  // serialises Add, Detach and Close
	mu      sync.Mutex  // guards the fields below
	env     *tracefs.Env
	entries []*entry
	nextID  int
	maps    map[string]*sessionMap // user maps by name
	shared  map[string]*ebpf.Map   // runtime maps shared by every program (stack maps), by role
	closed  bool
	lostAll uint64
	keep    []io.Closer // what detached entries left for the session to close

	// mapsMu is held (read) by the Map API while it uses a kernel map,
	// and by Close to close them.
	mapsMu     sync.RWMutex
	mapsClosed bool
	hasEntry   bool // a program was added: Close prints what a run prints
}

// sessionMap is a user map of the session: its description from the program
// that created it, the session's own reference to the kernel map, and the
// formatter that prints it.
type sessionMap struct {
	meta *object.Map
	bm   *ebpf.Map
	fmt  *entry // the entry whose formatter resolves its stacks and symbols
}

// Open starts a session with opts: it lifts RLIMIT_MEMLOCK and prepares the
// output. Cancelling ctx stops the session's event loops as a signal stops
// Run; the session must still be closed.
func Open(ctx context.Context, opts Options) (*Session, error) {
	if err := raiseMemlock(); err != nil {
		return nil, err
	}
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		return nil, fmt.Errorf("count CPUs: %w", err)
	}
	s := &Session{opts: opts, ncpu: ncpu, rawStderr: opts.Stderr, maps: map[string]*sessionMap{}, shared: map[string]*ebpf.Map{}}
	stdout := opts.Stdout
	if stdout == nil {
		stdout = os.Stdout
	}
	if s.rawStderr == nil {
		s.rawStderr = os.Stderr
	}
	if s.opts.MaxCatBytes <= 0 {
		s.opts.MaxCatBytes = DefaultMaxCatBytes
	}
	// Stdout is buffered (see loop); whatever goes to stderr flushes it
	// first, so that the two streams keep their order.
	s.out = &outWriter{buf: bufio.NewWriterSize(stdout, outBufSize)}
	s.stdout = s.out
	s.stderr = flushFirst{s.out, s.rawStderr}
	s.sink = opts.Sink
	if s.sink == nil {
		s.sink = NewSink(opts.Format, s.stdout, s.stderr)
	}
	var mono, boot unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono)
	_ = unix.ClockGettime(unix.CLOCK_BOOTTIME, &boot)
	s.startMono, s.startBoot = uint64(mono.Nano()), uint64(boot.Nano())

	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
		case <-quit:
			return
		}
		s.stopAll()
	}()
	if opts.ProbeStats {
		if c, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME)); err == nil {
			s.stats = c
		}
	}
	s.unwatch = sync.OnceFunc(func() {
		close(quit)
		wg.Wait()
	})
	return s, nil
}

// stopAll asks every event loop to return.
func (s *Session) stopAll() {
	s.stop.Store(true)
	s.mu.Lock()
	es := slices.Clone(s.entries)
	s.mu.Unlock()
	for _, e := range es {
		e.wakeUp()
	}
}

// Handle is one program added to a Session: the probes it attached.
type Handle struct {
	e *entry
}

// ID returns the handle's number in its session: 1 for the first program
// added successfully, 2 for the second...
func (h *Handle) ID() int { return h.e.id }

// Probes returns the handle's attach points as its program names them.
func (h *Handle) Probes() []string { return slices.Clone(h.e.points) }

// Program returns the handle's compiled program.
func (h *Handle) Program() *object.Program { return h.e.prog }

// Events returns how many events (printf, print... through the ring
// buffer) the handle's probes sent so far.
func (h *Handle) Events() uint64 { return h.e.events.Load() }

// Hits returns how many times the handle's programs ran, as the kernel
// counts it while Options.ProbeStats holds run-time statistics enabled
// (Linux 5.8); ok is false without them.
func (h *Handle) Hits() (n uint64, ok bool) {
	s := h.e.Session
	if s.stats == nil {
		return 0, false
	}
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	if h.e.coll == nil {
		return 0, false
	}
	for _, p := range h.e.coll.Programs {
		if st, err := p.Stats(); err == nil {
			n += st.RunCount
		}
	}
	return n, true
}

// Done returns a channel closed when the handle's event loop has ended by
// itself: its program called exit(), or it can send no more events (only
// BEGIN and END probes, iterators, benchmarks) and what it sent is printed;
// and also when the handle is detached or the session stopped.
func (h *Handle) Done() <-chan struct{} { return h.e.loopDone }

// Exited reports whether the handle's program called exit(), and with which
// code.
func (h *Handle) Exited() (bool, int) {
	select {
	case <-h.e.loopDone:
		return h.e.exited, h.e.exitCode
	default:
		return false, 0
	}
}

// Err returns the error that stopped the handle's event loop, if any
// (writing the output failed).
func (h *Handle) Err() error {
	select {
	case <-h.e.loopDone:
		return h.e.loopErr
	default:
		return nil
	}
}

// Add loads prog, runs its BEGIN probes, attaches its other probes and
// starts reading its events in the background. The maps prog shares with
// programs added before (by name) are the session's live kernel maps; those
// it creates join the session. When Add fails, nothing of prog stays
// attached or loaded and no map is created.
//
// The session's Options apply; AddWithOptions gives the program its own.
func (s *Session) Add(prog *object.Program) (*Handle, error) {
	return s.AddWithOptions(prog, s.opts)
}

// AddWithOptions is Add with options for this program: of opts, the
// settings of one program are used (Quiet, Attached, Formatter, StackMode,
// NoDebugInfo, NoCppDemangle, NoSymbolCache, MaxCatBytes, MaxProbes,
// Verbose, LogSize, Pid, Unsafe,
// BTFCache, TracefsDir); the output streams and format stay the session's.
func (s *Session) AddWithOptions(prog *object.Program, opts Options) (*Handle, error) {
	if prog == nil || prog.Collection == nil {
		return nil, errors.New("runtime: no program")
	}
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	s.mu.Unlock()
	opts.Stdout, opts.Stderr, opts.Format, opts.Sink, opts.NoSignals, opts.NoExitMaps = s.opts.Stdout, s.opts.Stderr, s.opts.Format, s.opts.Sink, true, s.opts.NoExitMaps
	if opts.MaxCatBytes <= 0 {
		opts.MaxCatBytes = DefaultMaxCatBytes
	}
	e := &entry{Session: s, prog: prog, opts: opts, wake: make(chan struct{}, 1), loopDone: make(chan struct{})}
	e.dwarf = &dwarfUnwinder{}
	e.usyms = &usymResolver{execs: uprobeExecs(prog), demangle: !opts.NoCppDemangle, noCache: opts.NoSymbolCache}
	e.opts.Formatter = e.withUsyms(e.withStacks(withTimestamps(withKsyms(e.opts.Formatter))))
	// The entry is listed while it starts, so that a stop request
	// interrupts its attach.
	s.mu.Lock()
	s.entries = append(s.entries, e)
	s.mu.Unlock()
	drainOnly, err := e.start()
	if err != nil {
		s.remove(e)
		close(e.loopDone)
		_ = s.out.Flush()
		if e.loading != nil {
			// a load abandoned on a stop: closed once it ends
			go func() { <-e.loading; _ = e.closeAll() }()
			return nil, err
		}
		return nil, errors.Join(err, e.closeAll())
	}
	s.mu.Lock()
	s.hasEntry = true
	s.nextID++
	e.id = s.nextID
	for _, m := range prog.Maps {
		if _, ok := s.maps[m.Name]; ok {
			continue
		}
		bm := e.coll.Maps[m.BPFName]
		if bm == nil {
			continue
		}
		c, err := bm.Clone()
		if err != nil {
			continue
		}
		s.maps[m.Name] = &sessionMap{meta: m, bm: c, fmt: e}
	}
	for role, name := range e.sharedNames() {
		if _, ok := s.shared[role]; ok || name == "" {
			continue
		}
		if bm := e.coll.Maps[name]; bm != nil {
			if c, err := bm.Clone(); err == nil {
				s.shared[role] = c
			}
		}
	}
	s.mu.Unlock()
	go func() {
		defer close(e.loopDone)
		e.loopErr = e.loop(drainOnly, e.wake)
	}()
	return &Handle{e: e}, nil
}

// sharedNames returns the runtime maps of the entry's program that the
// session shares between programs, by role: stack ids stored in a map by
// one program are printed through the stack map they index.
func (s *entry) sharedNames() map[string]string {
	return map[string]string{"stack": s.prog.StackMap, "buildid": s.prog.BuildIDStackMap}
}

// remove takes e out of the session's entries.
func (s *Session) remove(e *entry) {
	s.mu.Lock()
	s.entries = slices.DeleteFunc(s.entries, func(x *entry) bool { return x == e })
	s.mu.Unlock()
}

// wakeUp makes the entry's event loop notice a stop request.
func (s *entry) wakeUp() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
	if s.reader != nil {
		_ = s.reader.Flush()
	}
}

// Detach detaches the handle's probes, prints the events they still had
// queued, runs its program's END probes and closes its programs. The maps
// it created stay in the session.
func (h *Handle) Detach() error {
	s := h.e.Session
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	s.mu.Lock()
	live := slices.Contains(s.entries, h.e)
	s.mu.Unlock()
	if !live {
		return ErrClosed
	}
	e := h.e
	e.detaching.Store(true)
	e.wakeUp()
	<-e.loopDone
	err := s.detachAll(e.attached.cs)
	e.attached.cs = nil
	if ferr := e.finish(); err == nil {
		err = ferr
	}
	e.reportFullMaps()
	if ferr := s.out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write output: %w", ferr)
	}
	s.remove(e)
	return errors.Join(err, e.closeKeepingMaps())
}

// closeKeepingMaps closes the entry's reader, programs and maps, but the
// maps whose contents the session may still print (stack maps hold the
// frames of stack ids stored in the session's maps): those are closed with
// the session.
func (s *entry) closeKeepingMaps() error {
	kept := &ebpf.Collection{Maps: map[string]*ebpf.Map{}, Programs: map[string]*ebpf.Program{}}
	if s.coll != nil {
		for _, name := range s.sharedNames() {
			if m := s.coll.Maps[name]; name != "" && m != nil {
				kept.Maps[name] = m
				delete(s.coll.Maps, name)
			}
		}
	}
	err := s.closeAll()
	s.coll = kept
	s.Session.mu.Lock()
	s.Session.keep = append(s.Session.keep, closerFunc(func() error { kept.Close(); return nil }))
	s.Session.mu.Unlock()
	return err
}

// Close ends the session as a script run ends: it stops reading events,
// detaches every probe, prints the events still queued, runs the END
// probes, prints the maps (unless Options.NoExitMaps) and closes every
// program, map, link, perf event and reader. Close is idempotent.
func (s *Session) Close() error {
	return s.close(true)
}

// abort closes the session without END probes and without printing: a
// run that failed.
func (s *Session) abort() error { return s.close(false) }

func (s *Session) close(finish bool) (err error) {
	s.lifeMu.Lock()
	defer s.lifeMu.Unlock()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	es := slices.Clone(s.entries)
	s.mu.Unlock()
	s.unwatch()
	s.stopAll()
	for _, e := range es {
		<-e.loopDone
	}
	defer func() {
		if ferr := s.out.Flush(); ferr != nil && err == nil {
			err = fmt.Errorf("write output: %w", ferr)
		}
		var errs []error
		for _, e := range es {
			errs = append(errs, e.closeAll())
		}
		s.mapsMu.Lock()
		s.mapsClosed = true
		s.mapsMu.Unlock()
		s.mu.Lock()
		for _, m := range s.maps {
			errs = append(errs, m.bm.Close())
		}
		for _, m := range s.shared {
			errs = append(errs, m.Close())
		}
		for _, c := range s.keep {
			errs = append(errs, c.Close())
		}
		if s.stats != nil {
			errs = append(errs, s.stats.Close())
		}
		s.maps, s.shared, s.keep, s.entries = nil, nil, nil, nil
		s.mu.Unlock()
		if cerr := errors.Join(errs...); cerr != nil && err == nil {
			err = cerr
		}
	}()
	if !finish {
		return nil
	}
	// Detach every probe at once (concurrently), then finish each entry.
	var cs []io.Closer
	for _, e := range es {
		cs = append(cs, e.attached.cs...)
		e.attached.cs = nil
	}
	if derr := s.detachAll(cs); derr != nil {
		return fmt.Errorf("detach probes: %w", derr)
	}
	for _, e := range es {
		if err := e.finish(); err != nil {
			return err
		}
		s.lostAll += e.lost
	}
	if !s.hasEntry {
		return nil
	}
	if s.lostAll > 0 {
		s.sink.Warning(fmt.Sprintf("Total lost event count: %d", s.lostAll))
	}
	for _, e := range es {
		e.reportFullMaps()
	}
	if err := s.sink.Exit(); err != nil {
		return err
	}
	if s.opts.NoExitMaps {
		return nil
	}
	for _, name := range s.mapNames() {
		if err := s.printSessionMap(s.sink, s.maps[name], defaultMapOptions, true); err != nil {
			return err
		}
	}
	return nil
}

// defaultMapOptions prints a whole map, undivided.
var defaultMapOptions = output.MapOptions{}

// mapNames returns the names of the session's maps, sorted.
func (s *Session) mapNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.maps))
}
