package runtime

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
)

// emptyScalar returns the entries print(@m) shows for a map without keys
// and without a value: bpftrace prints such a map with a zero value
// ("@m: 0"), except histograms, which print nothing. Maps with keys print
// nothing either.
func emptyScalar(m *object.Map) []output.Entry {
	if m == nil || m.Keys != nil || m.Value == nil || m.Key == nil {
		return nil
	}
	switch m.Value.Kind {
	case types.Hist, types.Lhist:
		return nil
	}
	size := m.Value.Size
	switch m.Value.Kind {
	case types.Count, types.Sum:
		size = max(size, 8)
	case types.Min, types.Max, types.Avg, types.Stats:
		size = max(size, 16)
	}
	return []output.Entry{{Key: make([]byte, m.Key.Size), Values: [][]byte{make([]byte, size)}}}
}

// printVerbose writes, for -v, every map and program of the loaded
// collection with the verifier's statistics.
func (s *entry) printVerbose(spec *ebpf.CollectionSpec) {
	w := s.opts.Verbose
	if w == nil || s.coll == nil {
		return
	}
	user := map[string]string{}
	for _, m := range s.prog.Maps {
		user[m.BPFName] = " (" + m.Name + ")"
	}
	for _, name := range slices.Sorted(maps.Keys(s.coll.Maps)) {
		m := s.coll.Maps[name]
		fmt.Fprintf(w, "Map %s%s: %s, key %d bytes, value %d bytes, max entries %d\n",
			name, user[name], m.Type(), m.KeySize(), m.ValueSize(), m.MaxEntries())
	}
	for _, name := range slices.Sorted(maps.Keys(s.coll.Programs)) {
		p := s.coll.Programs[name]
		insns := 0
		if ps := spec.Programs[name]; ps != nil {
			insns = len(ps.Instructions)
		}
		fmt.Fprintf(w, "Program %s: %s, %d instructions\n", name, p.Type(), insns)
		for _, l := range strings.Split(strings.TrimSpace(p.VerifierLog), "\n") {
			if l != "" {
				fmt.Fprintf(w, "  %s\n", l)
			}
		}
	}
}

// flush writes out what the session buffered for stdout.
func (s *entry) flush() error {
	if s.out == nil {
		return nil
	}
	if err := s.out.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// outWriter is the session's buffered stdout, safe for the event loops of
// several programs and the callers of the Map API: every write and flush
// holds its lock.
type outWriter struct {
	mu  sync.Mutex
	buf *bufio.Writer
}

func (o *outWriter) Write(p []byte) (int, error) {
	o.mu.Lock()
	n, err := o.buf.Write(p)
	o.mu.Unlock()
	return n, err
}

// Flush writes out what is buffered.
func (o *outWriter) Flush() error {
	o.mu.Lock()
	err := o.buf.Flush()
	o.mu.Unlock()
	return err
}

// Buffered returns the number of bytes buffered.
func (o *outWriter) Buffered() int {
	o.mu.Lock()
	n := o.buf.Buffered()
	o.mu.Unlock()
	return n
}

// flushFirst is the session's stderr: it flushes the buffered stdout before
// each write, so that stdout and stderr keep their order.
type flushFirst struct {
	out *outWriter
	w   io.Writer
}

func (f flushFirst) Write(p []byte) (int, error) {
	f.out.mu.Lock()
	defer f.out.mu.Unlock()
	_ = f.out.buf.Flush() // a write error on stdout is reported by the next flush
	return f.w.Write(p)
}
