package runtime

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync/atomic"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/ringbuf"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
	"github.com/gotrace/gotrace/provider"
)

// DefaultMaxCatBytes is bpftrace's default max_cat_bytes: how much of a file
// cat() prints.
const DefaultMaxCatBytes = 10240

// DefaultMaxProbes is bpftrace's default max_probes: how many probes a
// script may attach.
const DefaultMaxProbes = 1024

// attachedLine is the line printed on stderr once the n probes are
// attached, exactly as bpftrace prints it ("Attached 1 probe", "Attached
// 3 probes": scripts and test harnesses match it whole), followed by a
// line with the time it took when that was slow.
func attachedLine(n int, took time.Duration) string {
	line := fmt.Sprintf("Attached %d probes", n)
	if n == 1 {
		line = "Attached 1 probe"
	}
	if took >= slowAttach {
		line += fmt.Sprintf("\nAttaching took %.2fs", took.Seconds())
	}
	return line
}

// slowAttach is the attach time from which the time taken is reported,
// as slowDetach.
const slowAttach = time.Second

// pollInterval is how often the event loop wakes up without events to
// check for lost events (bpftrace polls every 100ms).
const pollInterval = 100 * time.Millisecond

// lossInterval is how often lost events are reported while they happen;
// lossCheckEvery is how many events the loop handles between checks of
// the time for it when the ring never drains.
const (
	lossInterval   = time.Second
	lossCheckEvery = 4096
)

// In a storm the loop sleeps a little when it has drained the ring buffer
// (see batchSleep): otherwise the kernel wakes it up for nearly every event
// when it reads faster than the programs write.
const (
	busyInterval     = 2 * time.Millisecond
	stormBytesPerSec = 2e6 * 48 // 2M events/s of a 48-byte record
	minBatchSleep    = 50 * time.Microsecond
	maxBatchSleep    = time.Millisecond
)

// flushDelay is how long the output stays buffered after the ring buffer
// drained, in case more events come; outBufSize is the size of the buffer.
const (
	flushDelay = time.Millisecond
	outBufSize = 64 << 10
)

// Options configure Run. The zero value prints to os.Stdout and os.Stderr
// and handles SIGINT and SIGTERM.
type Options struct {
	// Stdout receives the script's output (printf, print, maps at exit);
	// Stderr the "Attached N probes" line, errorf/warnf and warnings.
	// Nil means os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
	// Quiet suppresses the "Attached N probes" line (bpftrace -q).
	Quiet bool
	// Unsafe allows system() (bpftrace --unsafe).
	Unsafe bool
	// LineBuffered writes each event's output to Stdout as soon as the
	// event is handled (bpftrace's -B line and -B none); otherwise output
	// is written when the events read at once are handled.
	LineBuffered bool
	// NoSignals leaves SIGINT and SIGTERM alone. By default Run stops
	// cleanly (END probes, maps) on the first SIGINT or SIGTERM and keeps
	// catching them until it returns, so that only a deliberate repeat
	// quits before the output is complete (see StopOnSignals). With
	// NoSignals the caller stops Run by cancelling ctx, which Run always
	// honours the same way.
	NoSignals bool
	// NoExitMaps disables printing the maps at exit (bpftrace's
	// print_maps_on_exit=0).
	NoExitMaps bool
	// BTFCache is shared across loads so that kernel BTF is parsed once;
	// pass tracefs.Env.BTFCache() to share the checker's copy. Nil means a
	// fresh cache.
	BTFCache *btf.Cache
	// TracefsDir is the tracefs directory used to find tracepoint ids. ""
	// means tracefs.Mount(), which mounts tracefs if needed; it is only
	// called when the program has tracepoint probes.
	TracefsDir string
	// Formatter renders values and maps (symbol resolution hooks etc.). Nil
	// means output.NewFormatter().
	Formatter *output.Formatter
	// Attached, when set, is called once every probe is attached (before
	// events are read); embedders and tests use it to know when tracing
	// has started.
	Attached func()
	// Opened, when set, is called by Run with its session once it is
	// open, before the program is added: the caller can read the maps
	// while the program runs (gotrace --metrics).
	Opened func(*Session)
	// StackMode formats kstack and ustack: "bpftrace" (the default, one
	// symbol+offset a line), "perf" (address, symbol, object), or "raw"
	// (addresses).
	StackMode string
	// NoDebugInfo leaves the source file and line out of ustack frames
	// (bpftrace's show_debug_info = 0); by default a frame in a file with
	// DWARF line information is function+offset@file:line.
	NoDebugInfo bool
	// NoUprobeMulti attaches every uprobe target with a perf event of its
	// own, even where the kernel has uprobe_multi links (bpftrace's
	// --no-feature uprobe_multi).
	NoUprobeMulti bool
	// Tests runs the test: probes (provider.Test, bpftrace --test) after
	// BEGIN, each once, and reports which passed (testrun.go); without it
	// they are not run, and a program of only test probes is refused.
	// Set NoExitMaps too: a test run prints no maps at exit.
	Tests bool
	// NoCppDemangle keeps C++ symbols mangled in ustack, usym() and
	// func (bpftrace's cpp_demangle = 0); by default _ZN2ns1fEi is
	// ns::f(int).
	NoCppDemangle bool
	// NoSymbolCache reads a binary's symbols again for every address
	// resolved (bpftrace's cache_user_symbols = NONE), for binaries that
	// change while the script runs; by default they are read once.
	NoSymbolCache bool
	// MaxCatBytes limits cat(); 0 means DefaultMaxCatBytes.
	MaxCatBytes int
	// MaxProbes limits how many probes (as counted in "Attaching N
	// probes") the script attaches, as bpftrace's max_probes; 0 means
	// DefaultMaxProbes.
	MaxProbes int
	// Verbose, when set, receives program and map information and the
	// verifier's statistics for each program (bpftrace -v).
	Verbose io.Writer
	// LogSize is the size in bytes of the buffer the kernel writes each
	// program's verifier log into when Verbose asks for it (bpftrace's
	// log_size); 0 means DefaultLogSize. A log that does not fit fails
	// the load with ENOSPC, as the kernel fails it (*LogSizeError).
	LogSize int
	// Pid restricts the probes that can be restricted when attached
	// (profile, software, uprobes) to one process (bpftrace -p); 0 means
	// every process. Probes that cannot are filtered in their program by
	// the checker.
	Pid int
	// Cpid is the pid of the child command (bpftrace -c), 0 for none:
	// without -p, profile and software probes sample it and watchpoints
	// are opened on its threads, as bpftrace opens them, rather than
	// every process.
	Cpid int
	// Format is the output format (bpftrace -f): "" or output.FormatText
	// for text, output.FormatJSON for one JSON object per line on Stdout
	// (see output/json.go).
	Format output.OutputFormat
	// Sink, when not nil, receives every event instead of the sink of
	// Format writing on Stdout and Stderr (see Sink). It is the
	// session's: AddWithOptions keeps it.
	Sink Sink
	// ProbeStats enables the kernel's run-time statistics of BPF programs
	// (BPF_ENABLE_STATS, Linux 5.8) while a Session is open, so that
	// Handle.Hits counts how often each program ran. Run ignores it.
	ProbeStats bool
}

// LoadError is returned by Run when the kernel refuses the collection. It
// wraps the error from ebpf.NewCollectionWithOptions, so errors.As finds a
// *ebpf.VerifierError when the verifier rejected a program; Program names
// that program when known (the instructions of
// prog.Collection.Programs[Program] carry asm.Comment source positions).
type LoadError struct {
	Program string
	Err     error
}

func (e *LoadError) Error() string {
	if e.Program != "" {
		return fmt.Sprintf("load program %s: %v", e.Program, e.Err)
	}
	return fmt.Sprintf("load BPF collection: %v", e.Err)
}

func (e *LoadError) Unwrap() error { return e.Err }

// Run loads prog, attaches its probes and prints its output until the
// program calls exit(), ctx is cancelled, a SIGINT or SIGTERM arrives (see
// Options.NoSignals), or, for a program with only BEGIN and END probes, until
// BEGIN's events have been printed. It then runs END probes and prints the
// maps. exitCode is the argument of exit(), 0 otherwise; when err is not nil
// exitCode is 1.
//
// Run is a Session with one entry: Open, Add the whole program, wait for
// the end, Close. Every kernel object Run creates (programs, maps, links,
// perf events, the ring buffer reader) is closed before it returns, on
// every path.
//
// Run needs root (CAP_BPF, CAP_PERFMON, and CAP_SYS_ADMIN to mount tracefs);
// see the package documentation for the kernel versions each feature needs.
func Run(ctx context.Context, prog *object.Program, opts Options) (exitCode int, err error) {
	if prog == nil || prog.Collection == nil {
		return 1, errors.New("runtime: no program")
	}
	// Stop requests: ctx and signals stop the session's event loops.
	// Signals stay caught until Run returns, so that a repeated one does
	// not lose the output (StopOnSignals).
	if !opts.NoSignals {
		var release func()
		ctx, release = StopOnSignals(ctx, cmp.Or[io.Writer](opts.Stderr, os.Stderr))
		defer release()
	}
	sess, err := Open(ctx, opts)
	if err != nil {
		return 1, err
	}
	if opts.Opened != nil {
		opts.Opened(sess)
	}
	h, err := sess.Add(prog)
	if errors.Is(err, ErrStopped) {
		// stopped before BEGIN: the output ends as a run without events
		_ = sess.sink.Exit()
		if err := sess.abort(); err != nil {
			return 1, err
		}
		return 0, nil
	}
	if err != nil {
		_ = sess.abort() // nothing is left to close but the output
		return 1, err
	}
	select {
	case <-ctx.Done():
	case <-h.Done():
	}
	if err := h.e.loopErr; err != nil {
		_ = sess.abort() // the output failed already
		return 1, err
	}
	if err := sess.Close(); err != nil {
		return 1, err
	}
	return h.e.exitCode, nil
}

// entry is one program added to a Session: its collection, its ring
// buffer and event loop, its links, and what decoding its events needs.
// It is the provider.Attacher of its probes.
type entry struct {
	*Session
	id    int
	usyms *usymResolver  // user symbols for usym() and ustack
	dwarf *dwarfUnwinder // dw_ustack's samples unwound (dwstacks.go)
	prog  *object.Program
	// opts are the session's options for this entry, with its formatter
	// (stacks, user symbols) and its config.
	opts Options
	buf  []byte // printf's reused formatting buffer

	coll     *ebpf.Collection
	dryRun   bool // Load: load without the attach preflight checks
	reader   *ringbuf.Reader
	pcaps    *pcapWriter // skboutput's files (pcap.go); nil when unused
	attached closerStack // links and perf events, closed when detaching
	watches  watchSet    // watchpoints' perf events by address, for unwatch() (unwatch.go)
	others   closerStack // reader and collection, closed last

	ends      []*object.Probe // END probes, in order
	points    []string        // the attach points, for Handle.Probes
	nattached int             // attach points counted in "Attached N probes"

	detaching   atomic.Bool // Detach: stop reading
	finalizing  bool        // exit() seen: ignore further events
	iterOnly    bool        // only iterators attached: exit() does not cut their output (bench.go)
	exited      bool        // exit() was called
	exitCode    int
	events      atomic.Uint64 // events handled
	lost        uint64        // lost events reported so far
	lossChecked time.Time     // when lost events were last checked

	wake     chan struct{} // wakes a loop without a ring buffer
	loopDone chan struct{} // closed when the event loop returned
	loopErr  error         // what the loop returned (read after loopDone)

	kf kfuncState // kernel-function probes (kfunc.go)
	// uprobeMulti: the programs loaded for uprobe_multi links
	// (uprobemulti.go).
	uprobeMulti map[string]bool

	loading chan error // a load still running after a stop (loadOrStop)
}

// stopped reports whether the entry's event loop is asked to stop: the
// session stops or the entry is being detached.
func (s *entry) stopped() bool { return s.stop.Load() || s.detaching.Load() }

// closeAll closes everything of the entry.
func (s *entry) closeAll() error {
	return errors.Join(s.attached.closeAll(), s.others.closeAll())
}

// start loads the entry's program, runs BEGIN, attaches every probe and
// prints what BEGIN sent; the event loop is then started by the caller.
// It returns drainOnly: the program cannot send more events once what is
// queued is printed (only BEGIN and END probes, iterators, benchmarks).
func (s *entry) start() (drainOnly bool, err error) {
	prog := s.prog
	var begins, benches, tests, probes []*object.Probe
	for _, p := range prog.Probes {
		def := provider.Lookup(p.Provider)
		if def == nil || !def.Supported() {
			return false, fmt.Errorf("probe %s: unknown provider %q", p.Name, p.Provider)
		}
		switch def.Phase {
		case provider.Begin:
			begins = append(begins, p)
		case provider.End:
			s.ends = append(s.ends, p)
		case provider.Bench:
			benches = append(benches, p)
		case provider.Test:
			tests = append(tests, p)
		default:
			probes = append(probes, p)
		}
	}
	byOrder := func(a, b *object.Probe) int { return cmp.Compare(a.Order, b.Order) }
	slices.SortStableFunc(begins, byOrder)
	slices.SortStableFunc(s.ends, byOrder)

	n := len(begins) + len(s.ends) + len(benches)
	if s.opts.Tests {
		n += len(tests)
	}
	for _, p := range probes {
		if !p.Dispatcher {
			n += provider.Lookup(p.Provider).AttachPoints(p)
		}
	}
	if limit := cmp.Or(s.opts.MaxProbes, DefaultMaxProbes); n > limit {
		return false, fmt.Errorf("Can't attach to %d probes because it exceeds the current limit of %d probes.\n"+
			"You can increase the limit through the BPFTRACE_MAX_PROBES environment variable, "+
			"but BE CAREFUL since a high number of probes attached can cause your system to crash.", n, limit)
	}
	if err := s.loadOrStop(); err != nil {
		return false, err
	}
	if err := s.writeGlobals(); err != nil {
		return false, err
	}
	if prog.EventsMap != "" {
		m := s.coll.Maps[prog.EventsMap]
		if m == nil {
			return false, fmt.Errorf("events map %q not in the collection", prog.EventsMap)
		}
		rd, err := ringbuf.NewReader(m)
		if err != nil {
			return false, fmt.Errorf("open ring buffer: %w", err)
		}
		s.reader = rd
		s.others.push(rd)
	}
	if prog.PacketMap != "" {
		if err := s.startPcaps(); err != nil {
			return false, err
		}
	}
	if s.stopped() {
		return false, ErrStopped // before BEGIN: nothing runs
	}
	for _, p := range begins {
		if err := s.runOnce(p); err != nil {
			return false, err
		}
	}
	// What BEGIN sent is read now and printed after the Attached line, as
	// usual; when it holds an exit() the other probes could only add
	// events that are ignored, so they are not attached.
	pending, exited, err := s.takeBeginEvents(len(begins) > 0)
	if err != nil {
		return false, err
	}
	attachStart := time.Now()
	if !exited {
		skipped, err := s.attachProbes(probes)
		if err != nil {
			return false, err
		}
		n -= skipped
	}
	if n == 0 && len(tests) > 0 {
		return false, errTestsNotRun
	}
	if n == 0 {
		return false, ErrNoProbes
	}
	s.nattached = n
	for _, p := range prog.Probes {
		if !p.Dispatcher {
			s.points = append(s.points, p.Name)
		}
	}
	if !s.opts.Quiet && !s.opts.Tests {
		if err := s.sink.Attached(n, time.Since(attachStart)); err != nil {
			return false, err
		}
	}
	if err := s.flush(); err != nil {
		return false, err
	}
	if s.opts.Attached != nil {
		s.opts.Attached()
	}
	if s.opts.Tests && len(tests) > 0 {
		// BEGIN's output goes with the first test's, as in bpftrace
		return true, s.runTests(tests, pending)
	}
	for _, rec := range pending {
		if err := s.handle(rec); err != nil {
			return false, err
		}
	}

	// With only BEGIN and END probes nothing can send events any more:
	// print what BEGIN sent and stop.
	s.iterOnly = runOnce(probes)
	drainOnly = n == len(begins)+len(s.ends) || s.iterOnly
	if len(benches) > 0 {
		if err := s.runBenches(benches); err != nil {
			return false, err
		}
		drainOnly = true
	}
	return drainOnly, nil
}

// finish runs once the entry's probes are detached: it prints the events
// still queued, runs the END probes and prints what they sent.
func (s *entry) finish() error {
	if err := s.stopPcaps(); err != nil {
		return err
	}
	// bpftrace, too, prints what its ring buffer still holds after a
	// signal, in the drain that follows END: dropping them lost the last
	// events of a run stopped by Ctrl-C.
	if err := s.drain(false); err != nil {
		return err
	}
	s.finalizing = false
	for _, p := range s.ends {
		if err := s.runOnce(p); err != nil {
			return err
		}
	}
	if err := s.drain(false); err != nil {
		return err
	}
	s.reportLost(true)
	return nil
}

// takeBeginEvents reads the events that the BEGIN probes sent, if any ran,
// and reports whether one of them is an exit().
func (s *entry) takeBeginEvents(ran bool) (recs [][]byte, exited bool, err error) {
	if !ran || s.reader == nil {
		return nil, false, nil
	}
	var rec ringbuf.Record
	for {
		s.reader.SetDeadline(time.Now())
		err := s.reader.ReadInto(&rec)
		switch {
		case err == nil:
			if len(rec.RawSample) >= object.EventHeaderSize &&
				object.EventKind(binary.NativeEndian.Uint64(rec.RawSample)) == object.EventExit {
				exited = true
			}
			recs = append(recs, slices.Clone(rec.RawSample))
		case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, ringbuf.ErrFlushed):
			return recs, exited, nil
		default:
			return nil, false, fmt.Errorf("read events: %w", err)
		}
	}
}
