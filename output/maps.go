package output

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// Entry is one BPF map entry as read from the kernel. Values holds one
// element per CPU for per-CPU maps, otherwise exactly one.
type Entry struct {
	Key    []byte
	Values [][]byte
}

// MapOptions are print(@m, top, div)'s extra arguments.
type MapOptions struct {
	// Top, when non-zero, prints only the last Top entries (the largest, as
	// entries are sorted ascending).
	Top int
	// Div, when non-zero, divides integer values, averages and hist counts
	// (not lhist counts, nor stats counts and totals) by Div.
	Div uint32
}

// ErrBadEntry is wrapped by WriteMap's errors about malformed entries.
var ErrBadEntry = errors.New("malformed map entry")

// WriteMap prints map m in bpftrace's text format, as print(@m) and the
// print at exit do; see FormatValue for how keys and values render. Entries
// may come in any order; they are combined (per-CPU values, histogram
// buckets) and sorted as bpftrace sorts them:
//
//   - count, sum, integer values: by value (signed per the type), ascending;
//   - min, max: by value compared as uint64 (bpftrace's behaviour);
//   - avg, stats: by average;
//   - hist, lhist: by total count over all buckets;
//   - other values: by key (integer fields as signed, strings bytewise, the
//     last key field first so the first field is the major order).
//
// Ties keep the key order. A map with keys prints one "@m[k1, k2]: v" line
// per entry; one without prints "@m: v". Histograms print a "@m:" or
// "@m[k]:" header line, one row per bucket from the first to the last
// non-empty one, and a blank line. A map without entries prints nothing.
func WriteMap(w io.Writer, m *object.Map, entries []Entry) error {
	return NewFormatter().WriteMap(w, m, entries, MapOptions{})
}

// WriteMap is the package-level WriteMap with f's hooks and print()'s top and
// div arguments.
func (f *Formatter) WriteMap(w io.Writer, m *object.Map, entries []Entry, opt MapOptions) error {
	if m == nil || m.Value == nil {
		return fmt.Errorf("map without a value type: %w", ErrBadEntry)
	}
	var sb strings.Builder
	var err error
	switch m.Value.Kind {
	case types.Hist, types.Lhist:
		err = f.writeHistMap(&sb, m, entries, opt)
	case types.Tseries:
		err = f.writeTseriesMap(&sb, m, entries)
	default:
		err = f.writePlainMap(&sb, m, entries, opt)
	}
	if err != nil {
		return fmt.Errorf("printing map %s: %w", m.Name, err)
	}
	_, err = io.WriteString(w, sb.String())
	return err
}

// keyField is a key component: its type and offset in the BPF key.
type keyField struct {
	t   *types.Type
	off int
}

// keyFields returns the user-visible key components of m, and the size of
// the key prefix they occupy.
func keyFields(m *object.Map) ([]keyField, error) {
	if len(m.Keys) == 0 {
		return nil, nil
	}
	k := m.Key
	if k == nil {
		return nil, fmt.Errorf("map has keys but no key layout: %w", ErrBadEntry)
	}
	if k.Kind != types.Tuple && k.Kind != types.Record {
		if len(m.Keys) != 1 {
			return nil, fmt.Errorf("key layout %s does not hold %d keys: %w", k, len(m.Keys), ErrBadEntry)
		}
		return []keyField{{t: m.Keys[0], off: 0}}, nil
	}
	if len(k.Fields) < len(m.Keys) {
		return nil, fmt.Errorf("key layout %s does not hold %d keys: %w", k, len(m.Keys), ErrBadEntry)
	}
	out := make([]keyField, len(m.Keys))
	for i := range m.Keys {
		out[i] = keyField{t: k.Fields[i].Type, off: k.Fields[i].Offset}
	}
	return out, nil
}

// keyString renders a key the way bpftrace prints it inside "@m[...]": the
// components separated by ", ", and the parentheses of a tuple-looking
// result stripped.
func (f *Formatter) keyString(fields []keyField, key []byte) string {
	var s string
	if len(fields) == 1 {
		s = f.Value(fields[0].t, slice(key, fields[0].off, fields[0].t.Size))
	} else {
		parts := make([]string, len(fields))
		for i, kf := range fields {
			parts[i] = f.Value(kf.t, slice(key, kf.off, kf.t.Size))
		}
		s = "(" + strings.Join(parts, ", ") + ")"
	}
	if len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
		s = s[1 : len(s)-1]
	}
	return s
}

// sortByKey orders items as bpftrace's sort_by_key does after a bytewise
// base order (bpftrace's own base order is the kernel's hash order): by the
// integer (signed) and string key fields, the first field the major order,
// then by the key's bytes. first, when not nil, comes before the key (the
// order by value). The keys of a map are distinct, so this one sort gives
// what bpftrace's stable sorts, field by field from the last, give.
func sortByKey[T any](items []T, key func(T) []byte, fields []keyField, first func(a, b T) int) {
	// A single tuple key sorts by its own fields.
	if len(fields) == 1 && fields[0].t.Kind == types.Tuple {
		var sub []keyField
		for _, fl := range fields[0].t.Fields {
			sub = append(sub, keyField{t: fl.Type, off: fields[0].off + fl.Offset})
		}
		fields = sub
	}
	slices.SortFunc(items, func(a, b T) int {
		if first != nil {
			if c := first(a, b); c != 0 {
				return c
			}
		}
		ka, kb := key(a), key(b)
		for _, kf := range fields {
			var c int
			switch kf.t.Kind {
			case types.Int:
				c = cmp.Compare(int64(readInt(slice(ka, kf.off, kf.t.Size), kf.t.Size, true)),
					int64(readInt(slice(kb, kf.off, kf.t.Size), kf.t.Size, true)))
			case types.String:
				c = bytes.Compare(slice(ka, kf.off, kf.t.Size), slice(kb, kf.off, kf.t.Size))
			}
			if c != 0 {
				return c
			}
		}
		return bytes.Compare(ka, kb)
	})
}

// plainEntry is one combined entry of a non-histogram map.
type plainEntry struct {
	key []byte
	// sort key
	sv     uint64
	signed bool
	text   string
}

func (f *Formatter) writePlainMap(sb *strings.Builder, m *object.Map, entries []Entry, opt MapOptions) error {
	fields, items, err := f.plainItems(m, entries, opt, false)
	if err != nil {
		return err
	}
	for _, it := range items {
		sb.WriteString(m.Name)
		if fields != nil {
			sb.WriteString("[")
			sb.WriteString(f.keyString(fields, it.key))
			sb.WriteString("]")
		}
		sb.WriteString(": ")
		sb.WriteString(it.text)
		sb.WriteString("\n")
		if fields == nil {
			break // a map without keys has a single value
		}
	}
	return nil
}

// plainItems combines, sorts and trims the entries of a non-histogram map;
// each item carries its text rendering, or with asJSON its JSON rendering.
func (f *Formatter) plainItems(m *object.Map, entries []Entry, opt MapOptions, asJSON bool) ([]keyField, []plainEntry, error) {
	fields, err := keyFields(m)
	if err != nil {
		return nil, nil, err
	}
	vt := m.Value
	vsize := vt.Size
	switch vt.Kind {
	case types.Count, types.Sum:
		vsize = 8
	case types.Min, types.Max, types.Avg, types.Stats:
		vsize = 16
	}
	keySize := 8
	if m.Key != nil {
		keySize = m.Key.Size
	}
	byValue := false
	items := make([]plainEntry, 0, len(entries))
	for i, e := range entries {
		if len(e.Key) < keySize {
			return nil, nil, fmt.Errorf("entry %d: key has %d bytes, want %d: %w", i, len(e.Key), keySize, ErrBadEntry)
		}
		if len(e.Values) == 0 {
			return nil, nil, fmt.Errorf("entry %d: no values: %w", i, ErrBadEntry)
		}
		for _, v := range e.Values {
			if len(v) < vsize {
				return nil, nil, fmt.Errorf("entry %d: value has %d bytes, want %d: %w", i, len(v), vsize, ErrBadEntry)
			}
		}
		it := plainEntry{key: e.Key}
		switch vt.Kind {
		case types.Count, types.Sum:
			var sum uint64
			for _, v := range e.Values {
				sum += readUint(v, 8)
			}
			it.sv, it.signed = sum, vt.Kind == types.Sum && vt.Signed
			it.text = divString(sum, opt.Div, it.signed)
			byValue = true
		case types.Int:
			var sum uint64
			for _, v := range e.Values {
				sum += readInt(v, vt.Size, vt.Signed)
			}
			it.sv, it.signed = truncInt(sum, vt.Size, vt.Signed), vt.Signed
			it.text = divString(it.sv, opt.Div, vt.Signed)
			if en := vt.Enum(); en != nil && !asJSON {
				it.text = types.EnumSymbol(en, it.sv, vt.Size)
			}
			byValue = true
		case types.Min, types.Max:
			mm := minMax(e.Values, vt.Kind == types.Max, vt.Signed)
			// bpftrace 0.26 sorts min/max maps comparing values as uint64.
			it.sv, it.signed = mm, false
			it.text = divString(mm, opt.Div, vt.Signed)
			byValue = true
		case types.Avg, types.Stats:
			var s stats
			for _, v := range e.Values {
				s.add(v, vt.Signed)
			}
			it.sv, it.signed = s.avg(), vt.Signed
			switch {
			case vt.Kind == types.Avg:
				it.text = s.avgString(opt.Div)
			case asJSON:
				it.text = s.json(opt.Div)
			default:
				it.text = s.String(opt.Div)
			}
			byValue = true
		default:
			if asJSON {
				it.text = f.JSONValue(vt, e.Values[0])
			} else {
				it.text = f.Value(vt, e.Values[0])
			}
		}
		if asJSON && byValue && vt.Kind != types.Stats {
			it.text = jsonInt(it.text)
		}
		items = append(items, it)
	}
	var byValueCmp func(a, b plainEntry) int
	if byValue {
		byValueCmp = func(a, b plainEntry) int {
			if a.signed {
				return cmp.Compare(int64(a.sv), int64(b.sv))
			}
			return cmp.Compare(a.sv, b.sv)
		}
	}
	sortByKey(items, func(p plainEntry) []byte { return p.key }, fields, byValueCmp)
	return fields, applyTop(items, opt.Top), nil
}

// applyTop keeps the last top items when top is non-zero.
func applyTop[T any](items []T, top int) []T {
	if top > 0 && len(items) > top {
		return items[len(items)-top:]
	}
	return items
}

// truncInt wraps a sum of integers of the given size back to that size.
func truncInt(v uint64, size int, signed bool) uint64 {
	if size >= 8 {
		return v
	}
	return readInt(slice([]byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}, 0, size), size, signed)
}

// minMax combines per-CPU {value; set} pairs: the minimum or maximum over the
// CPUs whose set flag is non-zero, 0 when none is.
func minMax(values [][]byte, isMax, signed bool) uint64 {
	var res uint64
	found := false
	for _, v := range values {
		val, set := readUint(v, 8), readUint(slice(v, 8, 8), 8)
		if set == 0 {
			continue
		}
		if !found {
			res, found = val, true
			continue
		}
		var c int
		if signed {
			c = cmp.Compare(int64(val), int64(res))
		} else {
			c = cmp.Compare(val, res)
		}
		if (isMax && c > 0) || (!isMax && c < 0) {
			res = val
		}
	}
	return res
}

// histEntry is a histogram map key with its combined bucket counts.
type histEntry struct {
	key    []byte // the key prefix, without the bucket
	counts map[uint64]uint64
	total  uint64
	hist   histogram // built by histItems
}

func (f *Formatter) writeHistMap(sb *strings.Builder, m *object.Map, entries []Entry, opt MapOptions) error {
	fields, hists, err := histItems(m, entries, opt)
	if err != nil {
		return err
	}
	for _, h := range hists {
		sb.WriteString(m.Name)
		if fields != nil {
			sb.WriteString("[")
			sb.WriteString(f.keyString(fields, h.key))
			sb.WriteString("]")
		}
		sb.WriteString(":\n")
		if err := h.hist.write(sb); err != nil {
			return err
		}
		sb.WriteString("\n")
		if fields == nil {
			break
		}
	}
	return nil
}

// histItems combines the buckets of a histogram map by key, sorts the keys
// by total count, trims them to opt.Top and builds each histogram.
func histItems(m *object.Map, entries []Entry, opt MapOptions) ([]keyField, []*histEntry, error) {
	fields, err := keyFields(m)
	if err != nil {
		return nil, nil, err
	}
	if m.Key == nil {
		return nil, nil, fmt.Errorf("histogram map without a key layout: %w", ErrBadEntry)
	}
	bucketOff := 0
	if (m.Key.Kind == types.Tuple || m.Key.Kind == types.Record) && len(m.Key.Fields) > 0 {
		bucketOff = m.Key.Fields[len(m.Key.Fields)-1].Offset
	}
	vt := m.Value
	var maxIndex uint64
	if vt.Kind == types.Hist {
		maxIndex = maxHistIndex(min(max(vt.Bits, 0), MaxHistBits))
	} else {
		if vt.LStep <= 0 || vt.LMax < vt.LMin {
			return nil, nil, fmt.Errorf("lhist with min %d, max %d, step %d: %w", vt.LMin, vt.LMax, vt.LStep, ErrBadEntry)
		}
		maxIndex = uint64(1 + (vt.LMax-vt.LMin)/vt.LStep)
	}
	byKey := map[string]*histEntry{}
	var hists []*histEntry
	for i, e := range entries {
		// A keyless histogram held in a per-CPU array has a uint32 index.
		width := 8
		if m.Key.Size == 4 {
			width = 4
		}
		if len(e.Key) < bucketOff+width {
			return nil, nil, fmt.Errorf("entry %d: key has %d bytes, want %d: %w", i, len(e.Key), bucketOff+width, ErrBadEntry)
		}
		bucket := readUint(e.Key[bucketOff:], width)
		if bucket > maxIndex {
			return nil, nil, fmt.Errorf("entry %d: bucket %d out of range 0..%d: %w", i, bucket, maxIndex, ErrBadEntry)
		}
		prefix := e.Key[:bucketOff]
		h := byKey[string(prefix)]
		if h == nil {
			h = &histEntry{key: prefix, counts: map[uint64]uint64{}}
			byKey[string(prefix)] = h
			hists = append(hists, h)
		}
		for _, v := range e.Values {
			if len(v) < 8 {
				return nil, nil, fmt.Errorf("entry %d: value has %d bytes, want 8: %w", i, len(v), ErrBadEntry)
			}
			c := readUint(v, 8)
			h.counts[bucket] += c
			h.total += c
		}
	}
	sortByKey(hists, func(h *histEntry) []byte { return h.key }, fields, func(a, b *histEntry) int { return cmp.Compare(a.total, b.total) })
	hists = applyTop(hists, opt.Top)
	for _, h := range hists {
		if vt.Kind == types.Hist {
			h.hist = buildHist(h.counts, opt.Div, min(max(vt.Bits, 0), MaxHistBits))
		} else {
			h.hist = buildLhist(h.counts, vt.LMin, vt.LMax, vt.LStep)
		}
	}
	return fields, hists, nil
}
