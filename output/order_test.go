package output

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gotrace/gotrace/internal/benchcpu"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// stableOrder is the order bpftrace's printing makes, built as bpftrace
// builds it: a stable sort by the key's bytes, then a stable sort by each
// integer or string key field from the last to the first, then (for
// reduced values) a stable sort by value. plainItems and histItems reach
// the same order with one comparison; TestOneSortOrder compares them.
func stableOrder(fields []keyField, keys [][]byte, values []int64, signed, byValue bool) [][]byte {
	type item struct {
		key []byte
		v   int64
	}
	items := make([]item, len(keys))
	for i := range keys {
		items[i] = item{keys[i], values[i]}
	}
	slices.SortStableFunc(items, func(a, b item) int { return bytes.Compare(a.key, b.key) })
	if len(fields) == 1 && fields[0].t.Kind == types.Tuple {
		var sub []keyField
		for _, fl := range fields[0].t.Fields {
			sub = append(sub, keyField{t: fl.Type, off: fields[0].off + fl.Offset})
		}
		fields = sub
	}
	for i := len(fields) - 1; i >= 0; i-- {
		kf := fields[i]
		switch kf.t.Kind {
		case types.Int:
			slices.SortStableFunc(items, func(a, b item) int {
				return cmp.Compare(int64(readInt(a.key[kf.off:], kf.t.Size, true)), int64(readInt(b.key[kf.off:], kf.t.Size, true)))
			})
		case types.String:
			slices.SortStableFunc(items, func(a, b item) int {
				return bytes.Compare(a.key[kf.off:kf.off+kf.t.Size], b.key[kf.off:kf.off+kf.t.Size])
			})
		}
	}
	if byValue {
		slices.SortStableFunc(items, func(a, b item) int {
			if signed {
				return cmp.Compare(a.v, b.v)
			}
			return cmp.Compare(uint64(a.v), uint64(b.v))
		})
	}
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = it.key
	}
	return out
}

// TestOneSortOrder: the single sort of map entries orders random maps
// (many equal values, negative and unsigned keys, strings, tuples, keys
// of several fields) exactly as the chain of stable sorts does.
func TestOneSortOrder(t *testing.T) {
	str4 := types.NewString(4)
	keySets := [][]*types.Type{
		{types.Int32},
		{types.Uint64},
		{str4},
		{types.Int8, str4},
		{str4, types.Int64, types.Int8},
		{types.NewTuple([]*types.Type{types.Int8, str4, types.Uint64}, nil)},
		{types.BoolT, types.Int8},
	}
	values := []*types.Type{countT, sumT, types.Int64, types.Uint64, minT, avgT, str4}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, rng.IntN(4))
		for i := range b {
			b[i] = "ab\xff"[rng.IntN(3)]
		}
		return string(b)
	}
	scalar := func(kt *types.Type) any {
		switch kt.Kind {
		case types.String:
			return word()
		case types.Bool:
			return rng.IntN(2) == 1
		}
		return int64(rng.IntN(7) - 3)
	}
	for _, keys := range keySets {
		for _, vt := range values {
			name := fmt.Sprintf("%v/%v", keys, vt)
			t.Run(name, func(t *testing.T) {
				m := newMap("@m", vt, keys...)
				fields, err := keyFields(m)
				if err != nil {
					t.Fatal(err)
				}
				var (
					entries []Entry
					ks      [][]byte
					vs      []int64
					seen    = map[string]bool{}
				)
				for range 300 {
					var comps []any
					for _, kt := range keys {
						if kt.Kind == types.Tuple {
							comps = append(comps, scalar(kt.Fields[0].Type), word(), uint64(rng.Uint64()>>rng.IntN(64)))
							continue
						}
						comps = append(comps, scalar(kt))
					}
					kt := m.Key
					if len(keys) == 1 && keys[0].Kind == types.Tuple {
						kt = keys[0]
					}
					key := pack(kt, comps...)
					if len(key) < m.Key.Size {
						key = append(key, make([]byte, m.Key.Size-len(key))...)
					}
					if seen[string(key)] {
						continue
					}
					seen[string(key)] = true
					v := int64(rng.IntN(9) - 4)
					var val []byte
					switch vt.Kind {
					case types.Min, types.Avg:
						val = pair(v, 1)
					case types.String:
						val = pack(str4, word())
					default:
						val = i64(v)
					}
					entries = append(entries, Entry{Key: key, Values: [][]byte{val}})
					ks, vs = append(ks, key), append(vs, v)
				}
				byValue := vt.Kind != types.String
				signed := vt.Signed && vt.Kind != types.Min
				want := stableOrder(fields, ks, vs, signed, byValue)
				_, items, err := NewFormatter().plainItems(m, entries, MapOptions{}, textPlain)
				if err != nil {
					t.Fatal(err)
				}
				for i, it := range items {
					if !bytes.Equal(it.key, want[i]) {
						t.Fatalf("item %d: key %x, want %x", i, it.key, want[i])
					}
				}
			})
		}
	}
}

// TestOneSortOrderHist: histogram keys order by total, then as keys.
func TestOneSortOrderHist(t *testing.T) {
	m := newMap("@h", histT(0), types.Int32, str4)
	fields, _ := keyFields(m)
	rng := rand.New(rand.NewPCG(3, 4))
	var (
		entries []Entry
		ks      [][]byte
		vs      []int64
		seen    = map[string]bool{}
	)
	for range 200 {
		k, s := int64(rng.IntN(11)-5), "xyz"[:rng.IntN(4)]
		prefix := pack(m.Key, k, s, uint64(0))[:m.Key.Fields[2].Offset]
		if seen[string(prefix)] {
			continue
		}
		seen[string(prefix)] = true
		n := int64(rng.IntN(3))
		entries = append(entries, Entry{Key: pack(m.Key, k, s, uint64(3)), Values: [][]byte{u64(uint64(n))}})
		ks, vs = append(ks, prefix), append(vs, n)
	}
	want := stableOrder(fields, ks, vs, false, true)
	_, hists, err := histItems(m, entries, MapOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range hists {
		if !bytes.Equal(h.key, want[i]) {
			t.Fatalf("hist %d: key %x, want %x", i, h.key, want[i])
		}
	}
}

// bench10k is a map of 10,000 int64 keys whose int64 values repeat (the
// value decides the order, the key breaks the ties), as the session
// benchmark reads it.
func bench10k() (*object.Map, []Entry) {
	m := newMap("@m", types.Int64, types.Int64)
	entries := make([]Entry, 10000)
	for i := range entries {
		entries[i] = Entry{Key: pack(m.Key, int64(i*7919%10000)), Values: [][]byte{i64(int64(i % 1000))}}
	}
	return m, entries
}

// BenchmarkDecode10k: decoding and sorting a map of 10,000 entries
// (Session Map.Read without the kernel).
func BenchmarkDecode10k(b *testing.B) {
	m, entries := bench10k()
	f := NewFormatter()
	defer benchcpu.Measure(b)()
	for b.Loop() {
		if _, err := f.Decode(m, entries); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriteMap10k: printing a map of 10,000 entries.
func BenchmarkWriteMap10k(b *testing.B) {
	m, entries := bench10k()
	f := NewFormatter()
	defer benchcpu.Measure(b)()
	for b.Loop() {
		if err := f.WriteMap(io.Discard, m, entries, MapOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
