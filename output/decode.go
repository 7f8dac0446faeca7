package output

import (
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// MapEntry is one entry of a map decoded for a Go program: its key
// components and its value, per-CPU values reduced as bpftrace reduces them
// for printing.
//
// Key holds one element per key component (nil for a map without keys):
// int64 for signed integers, uint64 for unsigned ones, string for strings,
// bool for booleans, and for any other type the text bpftrace prints for
// it. Value is, by the map's value type:
//
//   - count(), sum(), integers, min(), max(), avg(): int64 or uint64 (by
//     signedness), summed, compared or averaged over the CPUs;
//   - stats(): Stats;
//   - hist(), lhist(): Hist, the buckets from the first to the last
//     non-empty one, as printed;
//   - strings: string; booleans: bool;
//   - anything else: the text bpftrace prints for it.
type MapEntry struct {
	Key   []any
	Value any
}

// Stats is the value of a stats() map entry.
type Stats struct {
	Count          uint64
	Average, Total int64
}

// Hist is the value of a hist() or lhist() map entry. Sum is the sum of
// the values it recorded when the map keeps one (HasSum: compiled for
// gotrace --metrics, object.Map.HistSum); bpftrace's histograms do not.
type Hist struct {
	Buckets []Bucket
	Sum     int64
	HasSum  bool
}

// Bucket is one row of a histogram: the values from Min to Max, both
// included, and how many there were. MinOpen marks a first row open below
// ("(..., 0)"), MaxOpen a last row open above ("[1M, ...)"); Label is the
// row's label as printed ("[4, 8)").
type Bucket struct {
	Min, Max         int64
	MinOpen, MaxOpen bool
	Count            uint64
	Label            string
}

// Decode decodes the entries of map m as read from the kernel, in the
// order in which WriteMap prints them.
func (f *Formatter) Decode(m *object.Map, entries []Entry) ([]MapEntry, error) {
	if m == nil || m.Value == nil {
		return nil, ErrBadEntry
	}
	switch m.Value.Kind {
	case types.Hist, types.Lhist:
		fields, hists, err := histItems(m, entries, MapOptions{})
		if err != nil {
			return nil, err
		}
		out := make([]MapEntry, len(hists))
		keys := make([]any, len(hists)*len(fields))
		for i, h := range hists {
			out[i] = MapEntry{Key: f.decodeKey(fields, h.key, keys[i*len(fields):]), Value: h.decode(m.HistSum)}
		}
		return out, nil
	}
	fields, items, err := f.plainItems(m, entries, MapOptions{}, textNone)
	if err != nil {
		return nil, err
	}
	vt := m.Value
	out := make([]MapEntry, len(items))
	keys := make([]any, len(items)*len(fields))
	for i, it := range items {
		me := MapEntry{Key: f.decodeKey(fields, it.key, keys[i*len(fields):])}
		switch {
		case vt.Kind == types.Stats:
			me.Value = Stats{Count: it.st.count, Average: int64(it.st.avg()), Total: int64(it.st.total)}
		case isReduced(vt):
			if it.signed {
				me.Value = int64(it.sv)
			} else {
				me.Value = it.sv
			}
		default:
			me.Value = f.decodeValue(vt, entries[it.idx].Values[0])
		}
		out[i] = me
	}
	return out, nil
}

// isReduced reports whether plainItems reduces values of type t to one
// integer.
func isReduced(t *types.Type) bool {
	switch t.Kind {
	case types.Count, types.Sum, types.Int, types.Min, types.Max, types.Avg:
		return true
	}
	return false
}

// decodeKey decodes the components of a key into the start of dst,
// which holds them all (one allocation for the keys of a map).
func (f *Formatter) decodeKey(fields []keyField, key []byte, dst []any) []any {
	if fields == nil {
		return nil
	}
	out := dst[:len(fields):len(fields)]
	for i, kf := range fields {
		out[i] = f.decodeValue(kf.t, slice(key, kf.off, kf.t.Size))
	}
	return out
}

// decodeValue decodes one value: integers, strings and booleans as Go
// values, anything else as its text.
func (f *Formatter) decodeValue(t *types.Type, b []byte) any {
	switch {
	case t.Kind == types.Bool:
		return readUint(b, min(t.Size, 8)) != 0
	case t.Kind == types.String:
		return string(cString(b))
	case t.Kind == types.Int && t.Enum() == nil:
		v := readInt(b, t.Size, t.Signed)
		if t.Signed {
			return int64(v)
		}
		return v
	}
	return f.Value(t, b)
}

// decode returns the histogram of a map entry, with its sum when the map
// keeps one.
func (h *histEntry) decode(hasSum bool) Hist {
	out := h.hist.decode()
	if hasSum {
		out.Sum, out.HasSum = h.sum, true
	}
	return out
}

// decode returns the rows of a histogram as printed.
func (h *histogram) decode() Hist {
	out := Hist{Buckets: make([]Bucket, len(h.counts))}
	for i, c := range h.counts {
		b := Bucket{Count: c, Label: h.rowHeader(i)}
		switch {
		case i == 0 && h.lower == nil:
			b.MinOpen = true
		case i == 0:
			b.Min = h.lower.n
		default:
			b.Min = h.labels[i-1].n
		}
		if i < len(h.labels) {
			b.Max = h.labels[i].n - 1
		} else {
			b.MaxOpen = true
		}
		out.Buckets[i] = b
	}
	return out
}
