package runtime

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cilium/ebpf/ringbuf"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
)

// loop prints events until exit() or a stop request, or, with drainOnly,
// until the ring buffer is empty.
//
// Output is batched: events are formatted into s.out, which is flushed
// when it is full, flushDelay after the ring was last seen drained (so a
// lone event is printed at once, and a storm with one write per buffer),
// and before anything goes to stderr. Lost events are checked every
// lossCheckEvery events and whenever the ring is idle, and reported at
// most once per lossInterval while they happen (reportLost).
func (s *entry) loop(drainOnly bool, wake <-chan struct{}) error {
	if err := s.flush(); err != nil {
		return err
	}
	if s.reader == nil {
		if drainOnly {
			return nil
		}
		// Nothing to read: wait for a stop request, checking for lost
		// events like the reading loop does.
		t := time.NewTicker(pollInterval)
		defer t.Stop()
		for !s.stopped() {
			select {
			case <-wake:
			case <-t.C:
				s.reportLost(false)
			}
		}
		return nil
	}
	var rec ringbuf.Record
	idle := func() {
		if drainOnly {
			s.reader.SetDeadline(time.Now())
		} else {
			s.reader.SetDeadline(time.Now().Add(pollInterval))
		}
	}
	idle()
	flushArmed := false // the deadline is flushDelay after the ring drained
	batch := batchSleep(s.reader.BufferSize())
	var lastDrain time.Time
	n, read := 0, 0 // events handled; since the last drain
	for !s.stopped() && !s.finalizing {
		err := s.reader.ReadInto(&rec)
		switch {
		case err == nil:
			if err := s.handle(rec.RawSample); err != nil {
				return err
			}
			read++
			// Line mode writes what the events read at once printed as
			// soon as they are handled: one event at a time unless
			// they come faster than they are handled.
			if s.opts.LineBuffered && rec.Remaining == 0 && s.out.Buffered() > 0 {
				if err := s.flush(); err != nil {
					return err
				}
			}
			if rec.Remaining == 0 && !drainOnly {
				now := time.Now()
				if !flushArmed && s.out.Buffered() > 0 {
					// Drained: flush unless more events come soon.
					s.reader.SetDeadline(now.Add(flushDelay))
					flushArmed = true
				}
				// In line mode a drain of one event is no storm: the
				// next event's line would wait out the sleep.
				if batch > 0 && now.Sub(lastDrain) < busyInterval && (read > 1 || !s.opts.LineBuffered) {
					// A storm: let events gather instead of being woken
					// up for each one.
					time.Sleep(batch)
					now = time.Now()
				}
				lastDrain, read = now, 0
			}
			if n++; n%lossCheckEvery == 0 {
				s.reportLost(false)
			}
		case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, ringbuf.ErrFlushed):
			if err := s.flush(); err != nil {
				return err
			}
			flushArmed = false
			s.reportLost(false)
			if drainOnly {
				return nil
			}
			idle()
		default:
			return fmt.Errorf("read events: %w", err)
		}
	}
	return nil
}

// batchSleep is how long the loop sleeps when the ring drains during a
// storm (drains less than busyInterval apart): the time a producer of
// stormBytesPerSec takes to fill a quarter of the ring buffer, at most
// maxBatchSleep, and none when that is less than minBatchSleep.
func batchSleep(ringSize int) time.Duration {
	d := time.Duration(float64(ringSize) / 4 / stormBytesPerSec * float64(time.Second))
	if d < minBatchSleep {
		return 0
	}
	return min(d, maxBatchSleep)
}

// drainBudget bounds the time the final drain spends handling the events
// still queued when a run stops: a ring full of system() events would run
// a command for each, and the stop would seem to hang.
const drainBudget = time.Second

// drain reads every event already in the ring buffer, handling them or,
// with discard, dropping them. Past drainBudget the rest is dropped and
// counted on stderr.
func (s *entry) drain(discard bool) error {
	if s.reader == nil {
		return nil
	}
	var rec ringbuf.Record
	start := time.Now()
	s.reader.SetDeadline(start)
	dropped, cut := 0, false
	for n := 0; ; n++ {
		err := s.reader.ReadInto(&rec)
		switch {
		case err == nil:
			if !discard && n%64 == 63 && time.Since(start) > drainBudget {
				discard, cut = true, true
			}
			if discard {
				dropped++
				continue
			}
			if err := s.handle(rec.RawSample); err != nil {
				return err
			}
		case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, ringbuf.ErrFlushed):
			if cut {
				s.sink.Warning(fmt.Sprintf("%d events still queued when the run stopped were dropped (handling them took over %v)", dropped, drainBudget))
			}
			return s.flush()
		default:
			return fmt.Errorf("read events: %w", err)
		}
	}
}

// handle processes one ring buffer record. Problems with one event are
// reported on stderr and do not stop the run; only write errors on stdout
// are returned.
func (s *entry) handle(rec []byte) error {
	if s.finalizing {
		// bpftrace ignores what comes after exit().
		return nil
	}
	s.events.Add(1)
	if len(rec) < object.EventHeaderSize {
		s.errorf("malformed event of %d bytes", len(rec))
		return nil
	}
	kind := object.EventKind(binary.NativeEndian.Uint64(rec))
	id := binary.NativeEndian.Uint64(rec[8:])
	switch kind {
	case object.EventPrintf, object.EventErrorf, object.EventWarnf, object.EventSystem, object.EventCat:
		p := s.printf(kind, id)
		if p == nil {
			return nil
		}
		// The hot path: formatted into a reused buffer.
		b, err := s.opts.Formatter.AppendPrintf(s.buf[:0], p, rec)
		s.buf = b
		if err != nil {
			s.errorf("printf: %v", err)
			return nil
		}
		if kind == object.EventPrintf {
			return s.sink.Printf(b)
		}
		str := string(b)
		switch kind {
		case object.EventErrorf, object.EventWarnf:
			return s.sink.Message(kind == object.EventErrorf, str, p, s.prog.Source)
		case object.EventSystem:
			return s.system(str)
		case object.EventCat:
			return s.cat(str)
		}
	case object.EventExit:
		s.exitCode, s.exited = int(int32(id)), true
		// An iterator's whole output is printed, as bpftrace prints the
		// whole seq file: exit() there only ends the run afterwards.
		s.finalizing = !s.iterOnly
		// What was printed before exit() is out before the teardown,
		// which can take a while (perf events wait for RCU), even when a
		// storm of events never lets the ring buffer drain.
		return s.flush()
	case object.EventPrint:
		m := s.userMap(kind, id)
		if m == nil {
			return nil
		}
		var mo output.MapOptions
		if len(rec) >= object.EventHeaderSize+16 {
			// Optional print(@m, top, div) arguments.
			mo.Top = int(binary.NativeEndian.Uint64(rec[16:]))
			mo.Div = uint32(binary.NativeEndian.Uint64(rec[24:]))
		}
		return s.printMap(m, mo, false)
	case object.EventClear:
		if m := s.userMap(kind, id); m != nil {
			if err := s.clearMap(m); err != nil {
				s.errorf("clear(%s): %v", m.Name, err)
			}
		}
	case object.EventZero:
		if m := s.userMap(kind, id); m != nil {
			if err := s.zeroMap(m); err != nil {
				s.errorf("zero(%s): %v", m.Name, err)
			}
		}
	case object.EventTime:
		if id >= uint64(len(s.prog.Times)) {
			s.errorf("time event with bad id %d", id)
			return nil
		}
		return s.sink.Time(output.FormatTime(s.prog.Times[id], time.Now()))
	case object.EventPrintValue:
		p := s.printf(kind, id)
		if p == nil {
			return nil
		}
		return s.sink.PrintValue(s.opts.Formatter, p, rec)
	case object.EventJoin:
		return s.join(id, rec)
	case object.EventHelperError:
		if int(id) < len(s.prog.HelperSites) && len(rec) >= object.EventHeaderSize+8 {
			code := int64(binary.NativeEndian.Uint64(rec[object.EventHeaderSize:]))
			return s.sink.HelperError(s.prog.HelperSites[id], code, s.prog.Source)
		}
	case object.EventRuntimeError:
		if int(id) < len(s.prog.RuntimeErrors) {
			return s.sink.RuntimeError(s.prog.RuntimeErrors[id], s.prog.Source)
		}
	case object.EventUnwatch:
		s.unwatch(id)
	case object.EventDropped:
		name := "a map"
		if m := s.userMap(kind, id); m != nil {
			name = m.Name
		}
		s.sink.Warning(fmt.Sprintf("Map full; can't update element of %s. Try increasing max_map_keys config or manually setting the max entries in a map declaration e.g. `let %s = hash(5000)`", name, name))
	default:
		s.errorf("unknown event kind %d", kind)
	}
	return nil
}

func (s *entry) printf(kind object.EventKind, id uint64) *object.Printf {
	if id >= uint64(len(s.prog.Printfs)) || s.prog.Printfs[id] == nil {
		s.errorf("event kind %d with bad id %d", kind, id)
		return nil
	}
	return s.prog.Printfs[id]
}

func (s *entry) userMap(kind object.EventKind, id uint64) *object.Map {
	if id >= uint64(len(s.prog.Maps)) || s.prog.Maps[id] == nil {
		s.errorf("event kind %d with bad map id %d", kind, id)
		return nil
	}
	return s.prog.Maps[id]
}

// strerror renders an errno as C's strerror does ("No such file or
// directory"), the way bpftrace words system errors.
func strerror(err error) string {
	msg := err.Error()
	if msg == "" {
		return msg
	}
	return strings.ToUpper(msg[:1]) + msg[1:]
}

// errorf reports a runtime problem on stderr the way bpftrace logs errors.
func (s *Session) errorf(format string, args ...any) {
	s.sink.Error(fmt.Sprintf(format, args...))
}

// system runs cmd with /bin/sh -c and prints its output (stdout and
// stderr) followed by a newline, as bpftrace's system() does. The shell is
// /bin/sh, as for system(3), not the first sh on $PATH.
func (s *entry) system(cmd string) error {
	if !s.opts.Unsafe {
		s.errorf("system() not allowed in safe mode. Use '--unsafe'.")
		return nil
	}
	c := exec.Command("/bin/sh", "-c", cmd)
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.Exited() {
			s.errorf("command exited with code %d", ee.ExitCode())
		} else {
			s.errorf("system(%q): %v", cmd, err)
		}
		return nil
	}
	return s.sink.System(out.String())
}

// reportLost reports events the programs could not queue since the last
// report ("Lost N events" on stderr, as bpftrace does), at most once per
// lossInterval unless final is set.
func (s *entry) reportLost(final bool) {
	if s.prog.DroppedMap == "" || s.coll == nil {
		return
	}
	now := time.Now()
	if !final && now.Sub(s.lossChecked) < lossInterval {
		return
	}
	s.lossChecked = now
	total, ok := s.droppedEvents()
	if !ok {
		return
	}
	if total > s.lost {
		_ = s.sink.Lost(total - s.lost)
		s.lost = total
	}
}

// join prints the strings of a join() event separated by the separator
// (Format), one line.
func (s *entry) join(id uint64, rec []byte) error {
	p := s.printf(object.EventJoin, id)
	if p == nil || len(rec) < object.EventHeaderSize+8 {
		return nil
	}
	n := int(binary.NativeEndian.Uint64(rec[object.EventHeaderSize:]))
	var parts []string
	for i := 0; i < n && i < len(p.Args); i++ {
		a := p.Args[i]
		end := min(a.Offset+a.Type.Size, len(rec))
		if a.Offset >= end {
			break
		}
		b := rec[a.Offset:end]
		if j := bytes.IndexByte(b, 0); j >= 0 {
			b = b[:j]
		}
		parts = append(parts, string(b))
	}
	return s.sink.Join(strings.Join(parts, p.Format))
}
