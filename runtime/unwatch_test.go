package runtime

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
)

// textEntry is a session entry without a program that prints text to the
// returned stdout and stderr buffers.
func textEntry() (s *entry, stdout, stderr *bytes.Buffer) {
	stdout, stderr = new(bytes.Buffer), new(bytes.Buffer)
	s = &entry{Session: &Session{}, prog: &object.Program{}, opts: Options{Formatter: output.NewFormatter()}}
	s.out = &outWriter{buf: bufio.NewWriterSize(stdout, outBufSize)}
	s.stdout = s.out
	s.sink = NewSink(output.FormatText, s.stdout, stderr)
	return s, stdout, stderr
}

// fakeWatch is a watchpoint's perf event that counts how often it is
// closed.
type fakeWatch struct {
	closed int
	err    error
}

func (f *fakeWatch) Close() error { f.closed++; return f.err }

// TestUnwatchDetaches: an EventUnwatch record closes the watchpoints on
// its address, once, and no other; an address not watched is harmless;
// the teardown then closes the rest and not the unwatched ones again.
func TestUnwatchDetaches(t *testing.T) {
	s, sink, errs := textEntry()

	// Two CPUs' events on 0x1000, one on 0x2000.
	a0, a1, b := &fakeWatch{}, &fakeWatch{}, &fakeWatch{}
	s.Watch(0x1000, a0)
	s.Watch(0x1000, a1)
	s.Watch(0x2000, b)

	unwatch := func(addr uint64) {
		t.Helper()
		rec := make([]byte, object.EventHeaderSize)
		binary.NativeEndian.PutUint64(rec, uint64(object.EventUnwatch))
		binary.NativeEndian.PutUint64(rec[8:], addr)
		if err := s.handle(rec); err != nil {
			t.Fatal(err)
		}
	}
	unwatch(0x1000)
	if a0.closed != 1 || a1.closed != 1 || b.closed != 0 {
		t.Fatalf("after unwatch(0x1000): closed %d, %d (0x1000), %d (0x2000); want 1, 1, 0", a0.closed, a1.closed, b.closed)
	}
	unwatch(0x1000) // again: nothing left to close
	unwatch(0x3000) // never watched
	if a0.closed != 1 || a1.closed != 1 || b.closed != 0 {
		t.Fatalf("after unwatching again and an unwatched address: closed %d, %d, %d; want 1, 1, 0", a0.closed, a1.closed, b.closed)
	}
	if err := s.attached.closeAll(); err != nil {
		t.Fatal(err)
	}
	if a0.closed != 1 || a1.closed != 1 || b.closed != 1 {
		t.Fatalf("after the teardown: closed %d, %d, %d; want 1, 1, 1", a0.closed, a1.closed, b.closed)
	}
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	if sink.Len() != 0 || errs.Len() != 0 {
		t.Errorf("unwatch printed %q on stdout and %q on stderr; want nothing", sink.String(), errs.String())
	}
}

// TestUnwatchCloseError: a watchpoint that fails to close is reported on
// stderr, with its address, and the run goes on.
func TestUnwatchCloseError(t *testing.T) {
	s, _, errs := textEntry()
	s.Watch(0x1000, &fakeWatch{err: errors.New("bad file descriptor")})
	s.unwatch(0x1000)
	if got, want := errs.String(), "ERROR: unwatch(0x1000): bad file descriptor\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}
