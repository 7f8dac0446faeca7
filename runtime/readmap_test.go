package runtime

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/output"
)

// newReadSession is a Session enough for reading maps.
func newReadSession(t *testing.T) *Session {
	t.Helper()
	requireRoot(t)
	n, err := ebpf.PossibleCPU()
	if err != nil {
		t.Fatal(err)
	}
	return &Session{ncpu: n}
}

// fillMap writes n entries to a map with 4-byte keys and 12-byte values
// (per-CPU values padded by the kernel); key k on CPU c holds the bytes
// k, c, 7. Array slot 1 is written with zeros: a slot that reads as
// never written.
func fillMap(t *testing.T, m *ebpf.Map, ncpu, n int) {
	t.Helper()
	for k := range n {
		key := binary.NativeEndian.AppendUint32(nil, uint32(k))
		vals := make([][]byte, ncpu)
		for c := range vals {
			vals[c] = make([]byte, 12)
			if k != 1 || !isArray(m.Type()) {
				binary.NativeEndian.PutUint32(vals[c], uint32(k))
				vals[c][4], vals[c][11] = byte(c), 7
			}
		}
		var v any = vals[0]
		if isPerCPU(m.Type()) {
			v = vals
		}
		if err := m.Put(key, v); err != nil {
			t.Fatal(err)
		}
	}
}

func sortedEntries(es []output.Entry) []output.Entry {
	return slices.SortedFunc(slices.Values(es), func(a, b output.Entry) int { return bytes.Compare(a.Key, b.Key) })
}

func sameEntries(t *testing.T, got, want []output.Entry) {
	t.Helper()
	got, want = sortedEntries(got), sortedEntries(want)
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range got {
		if !bytes.Equal(got[i].Key, want[i].Key) || fmt.Sprint(got[i].Values) != fmt.Sprint(want[i].Values) {
			t.Fatalf("entry %d: %x %v, want %x %v", i, got[i].Key, got[i].Values, want[i].Key, want[i].Values)
		}
	}
}

// TestReadMapBatch: a batched read of each map type gotrace reads
// (several batches for the large ones) returns what a read key by key
// returns, per-CPU values included, and readMap drops array slots never
// written.
func TestReadMapBatch(t *testing.T) {
	s := newReadSession(t)
	for _, typ := range []ebpf.MapType{ebpf.Hash, ebpf.PerCPUHash, ebpf.LRUHash, ebpf.LRUCPUHash, ebpf.Array, ebpf.PerCPUArray} {
		for _, n := range []int{3, batchSize + 500} {
			t.Run(fmt.Sprintf("%s/%d", typ, n), func(t *testing.T) {
				m, err := ebpf.NewMap(&ebpf.MapSpec{Type: typ, KeySize: 4, ValueSize: 12, MaxEntries: uint32(n + 10)})
				if err != nil {
					t.Fatal(err)
				}
				defer m.Close()
				fillMap(t, m, s.ncpu, n)
				batch, err := s.readBatch(m)
				if err != nil {
					t.Fatalf("batch lookup: %v", err)
				}
				iterated, err := s.iterateMap(m)
				if err != nil {
					t.Fatal(err)
				}
				sameEntries(t, batch, iterated)
				// An LRU hash may evict before it is full.
				want := len(iterated)
				switch {
				case isArray(typ):
					want = n + 10
				case typ == ebpf.Hash || typ == ebpf.PerCPUHash:
					want = n
				}
				if len(batch) != want {
					t.Fatalf("batch read %d entries, want %d", len(batch), want)
				}
				read, err := s.readMap(m)
				if err != nil {
					t.Fatal(err)
				}
				if isArray(typ) {
					want = n - 1 // slot 1 and those from n on are zero
				}
				if len(read) != want {
					t.Fatalf("readMap: %d entries, want %d", len(read), want)
				}
				for _, e := range read {
					k := binary.NativeEndian.Uint32(e.Key)
					for c, v := range e.Values {
						if binary.NativeEndian.Uint32(v) != k || int(v[4]) != c || v[11] != 7 {
							t.Fatalf("key %d CPU %d: value %x", k, c, v)
						}
					}
					if want := map[bool]int{true: s.ncpu, false: 1}[isPerCPU(typ)]; len(e.Values) != want {
						t.Fatalf("key %d: %d values, want %d", k, len(e.Values), want)
					}
				}
			})
		}
	}
}

// TestReadMapRefused: where the kernel has no batch lookup for a map's
// type (a stack trace map: ENOTSUPP), readMap reads it key by key.
func TestReadMapRefused(t *testing.T) {
	s := newReadSession(t)
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.StackTrace, KeySize: 4, ValueSize: 8, MaxEntries: 16})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := s.readBatch(m); !errors.Is(err, ebpf.ErrNotSupported) {
		t.Fatalf("batch lookup of a stack trace map: %v, want ErrNotSupported", err)
	}
	es, err := s.readMap(m)
	if err != nil || len(es) != 0 {
		t.Fatalf("readMap: %v, %v; want no entries, no error", es, err)
	}
}
