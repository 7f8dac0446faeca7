package output

import (
	"bytes"
	"cmp"
	"encoding/binary"
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

// keyOrder returns the comparison of keys that bpftrace's sort_by_key
// makes: integer fields (as signed) and string fields (bytewise), the
// first field the major order, then the bytes of the whole key (where
// bpftrace keeps the kernel's hash order). Other fields do not order.
func keyOrder(fields []keyField) func(a, b []byte) int {
	// A single tuple key sorts by its own fields.
	if len(fields) == 1 && fields[0].t.Kind == types.Tuple {
		var sub []keyField
		for _, fl := range fields[0].t.Fields {
			sub = append(sub, keyField{t: fl.Type, off: fields[0].off + fl.Offset})
		}
		fields = sub
	}
	var ordered []keyField
	for _, kf := range fields {
		if kf.t.Kind == types.Int || kf.t.Kind == types.String {
			ordered = append(ordered, kf)
		}
	}
	return func(a, b []byte) int {
		for _, kf := range ordered {
			if c := compareField(kf, a, b); c != 0 {
				return c
			}
		}
		return bytes.Compare(a, b)
	}
}

// compareField compares an integer (as signed) or string field of two
// keys.
func compareField(kf keyField, a, b []byte) int {
	end := kf.off + kf.t.Size
	if kf.off < 0 || end > len(a) || end > len(b) {
		// Short keys: slice pads them with zeros.
		a, b = slice(a, kf.off, kf.t.Size), slice(b, kf.off, kf.t.Size)
	} else {
		a, b = a[kf.off:end], b[kf.off:end]
	}
	if kf.t.Kind == types.String {
		return bytes.Compare(a, b)
	}
	switch kf.t.Size {
	case 1:
		return cmp.Compare(int8(a[0]), int8(b[0]))
	case 2:
		return cmp.Compare(int16(binary.LittleEndian.Uint16(a)), int16(binary.LittleEndian.Uint16(b)))
	case 4:
		return cmp.Compare(int32(binary.LittleEndian.Uint32(a)), int32(binary.LittleEndian.Uint32(b)))
	}
	return cmp.Compare(int64(readUint(a, 8)), int64(readUint(b, 8)))
}

// plainEntry is one combined entry of a non-histogram map.
type plainEntry struct {
	key []byte
	// idx is the entry's index in the entries read.
	idx int
	// sort key
	sv     uint64
	signed bool
	// st is the combined value of an avg or stats map.
	st   stats
	text string
}

// itemText is what plainItems renders each item's value as.
type itemText int

const (
	textNone itemText = iota // Decode renders none
	textPlain
	textJSON
)

func (f *Formatter) writePlainMap(sb *strings.Builder, m *object.Map, entries []Entry, opt MapOptions) error {
	fields, items, err := f.plainItems(m, entries, opt, textPlain)
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
// each item kept carries its value's text or JSON rendering, as asked.
func (f *Formatter) plainItems(m *object.Map, entries []Entry, opt MapOptions, render itemText) ([]keyField, []plainEntry, error) {
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
	byValue := isReduced(vt) || vt.Kind == types.Stats
	items := make([]plainEntry, len(entries))
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
		it := plainEntry{key: e.Key, idx: i}
		switch vt.Kind {
		case types.Count, types.Sum:
			var sum uint64
			for _, v := range e.Values {
				sum += readUint(v, 8)
			}
			it.sv, it.signed = sum, vt.Kind == types.Sum && vt.Signed
		case types.Int:
			var sum uint64
			for _, v := range e.Values {
				sum += readInt(v, vt.Size, vt.Signed)
			}
			it.sv, it.signed = truncInt(sum, vt.Size, vt.Signed), vt.Signed
		case types.Min, types.Max:
			// bpftrace 0.26 sorts min/max maps comparing values as uint64.
			it.sv = minMax(e.Values, vt.Kind == types.Max, vt.Signed)
		case types.Avg, types.Stats:
			for _, v := range e.Values {
				it.st.add(v, vt.Signed)
			}
			it.sv, it.signed = it.st.avg(), vt.Signed
		}
		items[i] = it
	}
	// One sort in the order of bpftrace's: by value (for reduced values),
	// then by key; the index keeps equal keys, if any, in the order read.
	// It sorts indexes: moving items, which hold pointers, costs more.
	byKey := keyOrder(fields)
	order := make([]int32, len(items))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		a, b := &items[i], &items[j]
		if byValue {
			var c int
			if a.signed {
				c = cmp.Compare(int64(a.sv), int64(b.sv))
			} else {
				c = cmp.Compare(a.sv, b.sv)
			}
			if c != 0 {
				return c
			}
		}
		if c := byKey(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	order = applyTop(order, opt.Top)
	sorted := make([]plainEntry, len(order))
	for k, i := range order {
		sorted[k] = items[i]
	}
	items = sorted
	if render != textNone {
		for i := range items {
			items[i].text = f.itemText(vt, &items[i], entries[items[i].idx], opt.Div, render == textJSON)
		}
	}
	return fields, items, nil
}

// itemText renders the value of a plain map item as text, or as JSON.
func (f *Formatter) itemText(vt *types.Type, it *plainEntry, e Entry, div uint32, asJSON bool) string {
	var text string
	switch vt.Kind {
	case types.Count, types.Sum, types.Int:
		text = divString(it.sv, div, it.signed)
		if en := vt.Enum(); en != nil && vt.Kind == types.Int && !asJSON {
			text = types.EnumSymbol(en, it.sv, vt.Size)
		}
	case types.Min, types.Max:
		text = divString(it.sv, div, vt.Signed)
	case types.Avg:
		text = it.st.avgString(div)
	case types.Stats:
		if asJSON {
			return it.st.json(div)
		}
		return it.st.String(div)
	default:
		if asJSON {
			return f.JSONValue(vt, e.Values[0])
		}
		return f.Value(vt, e.Values[0])
	}
	if asJSON {
		return jsonInt(text)
	}
	return text
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
	sum    int64     // the sum of the values recorded, when the map keeps it (object.Map.HistSum)
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
			if m.HistSum && len(v) >= 16 {
				h.sum += int64(readUint(v[8:], 8))
			}
		}
	}
	keyCmp := keyOrder(fields)
	slices.SortFunc(hists, func(a, b *histEntry) int {
		if c := cmp.Compare(a.total, b.total); c != 0 {
			return c
		}
		return keyCmp(a.key, b.key) // keys are distinct
	})
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
