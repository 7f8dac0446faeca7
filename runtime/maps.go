package runtime

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"unsafe"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
)

func isPerCPU(t ebpf.MapType) bool {
	switch t {
	case ebpf.PerCPUHash, ebpf.PerCPUArray, ebpf.LRUCPUHash, ebpf.PerCPUCGroupStorage:
		return true
	}
	return false
}

func isArray(t ebpf.MapType) bool {
	return t == ebpf.Array || t == ebpf.PerCPUArray
}

// bpfMap returns the kernel map of a user map.
func (s *entry) bpfMap(m *object.Map) (*ebpf.Map, error) {
	bm := s.coll.Maps[m.BPFName]
	if bm == nil {
		return nil, fmt.Errorf("map %s: %q not in the collection", m.Name, m.BPFName)
	}
	return bm, nil
}

// readMap returns every entry of a map, with one value per possible CPU
// for per-CPU maps: in batches where the kernel has batch lookups for the
// map's type, else one key at a time.
func (s *Session) readMap(bm *ebpf.Map) ([]output.Entry, error) {
	entries, err := s.readBatch(bm)
	if err != nil {
		if entries, err = s.iterateMap(bm); err != nil {
			return nil, fmt.Errorf("read map: %w", err)
		}
	}
	if !isArray(bm.Type()) {
		return entries, nil
	}
	// An array slot is always there: one that was never written (all
	// zeros; codegen keeps maps whose written values can be zero in
	// hashes) is a missing entry.
	return slices.DeleteFunc(entries, func(e output.Entry) bool { return allZero(e.Values) }), nil
}

// iterateMap reads a map with two system calls a key (next key, lookup).
func (s *Session) iterateMap(bm *ebpf.Map) ([]output.Entry, error) {
	perCPU := isPerCPU(bm.Type())
	var (
		entries []output.Entry
		seen    = map[string]bool{}
		key     []byte
		val     []byte
		vals    = make([][]byte, s.ncpu)
		it      = bm.Iterate()
	)
	var valueOut any = &val
	if perCPU {
		valueOut = vals
	}
	for it.Next(&key, valueOut) {
		// A hash map changing under us can make the iteration restart.
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		e := output.Entry{Key: key}
		if perCPU {
			e.Values = append([][]byte(nil), vals...)
		} else {
			e.Values = [][]byte{val}
		}
		entries = append(entries, e)
		key, val = nil, nil
	}
	return entries, it.Err()
}

// allZero reports whether every byte of every value is zero.
func allZero(values [][]byte) bool {
	for _, v := range values {
		for _, b := range v {
			if b != 0 {
				return false
			}
		}
	}
	return true
}

// printMap prints a map with output.WriteMap. At exit, maps without
// entries are skipped.
func (s *entry) printMap(m *object.Map, mo output.MapOptions, atExit bool) error {
	bm, err := s.bpfMap(m)
	if err != nil {
		s.errorf("%v", err)
		return nil
	}
	return s.writeMap(s.sink, s.opts.Formatter, m, bm, mo, atExit)
}

// printSessionMap prints a map of the session as printMap does, to sink.
func (s *Session) printSessionMap(sink Sink, sm *sessionMap, mo output.MapOptions, atExit bool) error {
	return s.writeMap(sink, sm.fmt.opts.Formatter, sm.meta, sm.bm, mo, atExit)
}

// writeMap reads bm, the kernel map of m, and gives it to sink. Problems
// reading it are reported; only write errors are returned.
func (s *Session) writeMap(sink Sink, f *output.Formatter, m *object.Map, bm *ebpf.Map, mo output.MapOptions, atExit bool) error {
	entries, err := s.readMap(bm)
	if err != nil {
		s.errorf("print %s: %v", m.Name, err)
		return nil
	}
	if atExit && len(entries) == 0 {
		return nil
	}
	if len(entries) == 0 {
		entries = emptyScalar(m)
	}
	return sink.Map(f, m, entries, mo)
}

// keys returns every key of a map.
func keys(bm *ebpf.Map) ([][]byte, error) {
	var (
		out  [][]byte
		seen = map[string]bool{}
		cur  any // nil: first key
	)
	for n := uint32(0); n <= bm.MaxEntries(); n++ {
		var next []byte
		err := bm.NextKey(cur, &next)
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if !seen[string(next)] {
			seen[string(next)] = true
			out = append(out, next)
		}
		cur = next
	}
	return out, nil
}

// clearMap deletes every entry of a map (clear()); array maps, whose
// entries cannot be deleted, are zeroed.
func (s *entry) clearMap(m *object.Map) error {
	bm, err := s.bpfMap(m)
	if err != nil {
		return err
	}
	return s.clearBPFMap(bm)
}

// clearBPFMap deletes every entry of a kernel map, or zeroes an array.
func (s *Session) clearBPFMap(bm *ebpf.Map) error {
	if isArray(bm.Type()) {
		return s.zeroBPFMap(bm)
	}
	ks, err := keys(bm)
	if err != nil {
		return err
	}
	var errs []error
	for _, k := range ks {
		if err := bm.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// zeroMap sets every value of a map to zero (zero()).
func (s *entry) zeroMap(m *object.Map) error {
	bm, err := s.bpfMap(m)
	if err != nil {
		return err
	}
	return s.zeroBPFMap(bm)
}

func (s *Session) zeroBPFMap(bm *ebpf.Map) error {
	ks, err := keys(bm)
	if err != nil {
		return err
	}
	var zero any = make([]byte, bm.ValueSize())
	if isPerCPU(bm.Type()) {
		vals := make([][]byte, s.ncpu)
		for i := range vals {
			vals[i] = make([]byte, bm.ValueSize())
		}
		zero = vals
	}
	var errs []error
	for _, k := range ks {
		// UpdateExist: an entry deleted meanwhile stays deleted.
		if err := bm.Update(k, zero, ebpf.UpdateExist); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// batchSize is how many entries a BPF_MAP_LOOKUP_BATCH asks for at once.
const batchSize = 4096

// readBatch reads every entry of a map with BPF_MAP_LOOKUP_BATCH (Linux
// 5.6; hash and array maps, per-CPU ones too): a few system calls instead
// of two a key. An error, as when the kernel has no batch lookup for the
// map's type (ENOTSUPP, EINVAL) or none at all, has the caller iterate.
func (s *Session) readBatch(bm *ebpf.Map) ([]output.Entry, error) {
	ks, vs := int(bm.KeySize()), int(bm.ValueSize())
	ncpu := 1
	if isPerCPU(bm.Type()) {
		ncpu = s.ncpu
	}
	count := min(int(bm.MaxEntries()), batchSize)
	var (
		entries []output.Entry
		cursor  ebpf.MapBatchCursor
	)
	for {
		// Keys and values go to slices of [size]byte, whose memory holds
		// them in a row (per-CPU values one a CPU: the kernel pads them to
		// 8 bytes, the library removes the padding).
		keysOut, keys := byteRows(count, ks)
		valsOut, vals := byteRows(count*ncpu, vs)
		n, err := bm.BatchLookup(&cursor, keysOut, valsOut, nil)
		if err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return nil, err
		}
		// One slice of value headers for the batch, ncpu an entry.
		values := make([][]byte, n*ncpu)
		for i := range values {
			values[i] = vals[i*vs : (i+1)*vs : (i+1)*vs]
		}
		entries = slices.Grow(entries, n)
		for i := range n {
			entries = append(entries, output.Entry{Key: keys[i*ks : (i+1)*ks : (i+1)*ks], Values: values[i*ncpu : (i+1)*ncpu : (i+1)*ncpu]})
		}
		if err != nil || n == 0 { // ErrKeyNotExist: the last batch
			return entries, nil
		}
	}
}

// byteRows returns a slice of n [size]byte arrays, for the library to
// fill, and the bytes of its memory.
func byteRows(n, size int) (any, []byte) {
	rows := reflect.MakeSlice(reflect.SliceOf(reflect.ArrayOf(size, reflect.TypeFor[byte]())), n, n)
	return rows.Interface(), unsafe.Slice((*byte)(rows.UnsafePointer()), n*size)
}
