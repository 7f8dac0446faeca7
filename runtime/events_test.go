package runtime

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
)

// TestHandlePrintfNoAllocs checks that the consumer's per-event path,
// decoding a printf record and formatting it into the buffered output,
// does not allocate.
func TestHandlePrintfNoAllocs(t *testing.T) {
	comm := types.NewString(16)
	p := &object.Printf{Format: "%ld %s\n", Args: []object.Arg{{Type: types.Int64, Offset: 16}, {Type: comm, Offset: 24}}, Size: 40}
	rec := make([]byte, 40)
	binary.NativeEndian.PutUint64(rec, uint64(object.EventPrintf))
	binary.NativeEndian.PutUint64(rec[16:], 1234567890123)
	copy(rec[24:], "getppid-loop")
	var sink bytes.Buffer
	s := &entry{Session: &Session{}, prog: &object.Program{Printfs: []*object.Printf{p}}, opts: Options{Formatter: output.NewFormatter()}}
	s.out = &outWriter{buf: bufio.NewWriterSize(&sink, outBufSize)}
	s.stdout = s.out
	s.sink = NewSink(output.FormatText, s.stdout, nil)
	allocs := testing.AllocsPerRun(10000, func() {
		if err := s.handle(rec); err != nil {
			t.Fatal(err)
		}
	})
	if err := s.flush(); err != nil {
		t.Fatal(err)
	}
	if want := "1234567890123 getppid-loop\n"; sink.Len() < len(want) || sink.String()[:len(want)] != want {
		t.Fatalf("output starts with %q, want %q", sink.String()[:min(sink.Len(), 40)], want)
	}
	if allocs != 0 {
		t.Errorf("handling a printf event allocates %v times, want 0", allocs)
	}
}
