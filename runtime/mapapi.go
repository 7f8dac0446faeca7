package runtime

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
)

// ErrNoMap is returned by Session.Map for a name the session has no map of.
var ErrNoMap = errors.New("no such map")

// MapInfo describes a map of a session.
type MapInfo struct {
	// Name is the map's name, "@" or "@name".
	Name string
	// Keys are the types of the key components, nil for a map without
	// keys.
	Keys []*types.Type
	// Value is the value type, or the aggregation (Kind types.Count,
	// types.Hist, ...).
	Value *types.Type
	// Entries is the number of entries (of keys, for a histogram).
	Entries int
}

// MapEntry is one decoded entry of a map: see output.MapEntry for the
// Go types of its key components and value.
type MapEntry = output.MapEntry

// Maps describes the session's maps, sorted by name.
func (s *Session) Maps() []MapInfo {
	var out []MapInfo
	for _, name := range s.mapNames() {
		m, err := s.Map(name)
		if err != nil {
			continue
		}
		info := MapInfo{Name: name, Keys: m.sm.meta.Keys, Value: m.sm.meta.Value}
		if es, err := m.Read(); err == nil {
			info.Entries = len(es)
		}
		out = append(out, info)
	}
	return out
}

// Map is one map of a session. Its methods are safe for concurrent use,
// also while the probes that write the map run.
type Map struct {
	s  *Session
	sm *sessionMap
}

// Map returns the session's map name ("@x"; "x" is taken as "@x").
func (s *Session) Map(name string) (*Map, error) {
	if !strings.HasPrefix(name, "@") {
		name = "@" + name
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	sm := s.maps[name]
	if sm == nil {
		return nil, fmt.Errorf("map %s: %w", name, ErrNoMap)
	}
	return &Map{s: s, sm: sm}, nil
}

// Info describes the map, without its entry count.
func (m *Map) Info() MapInfo {
	return MapInfo{Name: m.sm.meta.Name, Keys: m.sm.meta.Keys, Value: m.sm.meta.Value}
}

// Object returns the map's description for printing (package output).
func (m *Map) Object() *object.Map { return m.sm.meta }

// use calls f with the kernel map, which the session does not close
// meanwhile; it returns ErrClosed once the session is closed.
func (m *Map) use(f func(bm *ebpf.Map) error) error {
	m.s.mapsMu.RLock()
	defer m.s.mapsMu.RUnlock()
	if m.s.mapsClosed {
		return ErrClosed
	}
	return f(m.sm.bm)
}

// Read returns the map's entries decoded, in the order print() prints
// them, per-CPU values reduced as bpftrace reduces them.
func (m *Map) Read() ([]MapEntry, error) {
	raw, err := m.readRaw()
	if err != nil {
		return nil, err
	}
	return m.sm.fmt.opts.Formatter.Decode(m.sm.meta, raw)
}

// readRaw returns the map's entries as read from the kernel.
func (m *Map) readRaw() (raw []output.Entry, err error) {
	err = m.use(func(bm *ebpf.Map) (err error) {
		raw, err = m.s.readMap(bm)
		return err
	})
	return raw, err
}

// Print prints the map on w as print(@m, top, div) does (top and div 0
// print it whole, undivided), in the session's output format.
func (m *Map) Print(w io.Writer, top, div int) error {
	if top < 0 || div < 0 {
		return errors.New("print: top and div must not be negative")
	}
	return m.use(func(*ebpf.Map) error {
		// Printed on w in the session's format, whatever its sink.
		sink := NewSink(m.s.opts.Format, w, m.s.stderr)
		return m.s.printSessionMap(sink, m.sm, output.MapOptions{Top: top, Div: uint32(div)}, false)
	})
}

// Clear deletes every entry of the map, as clear(@m) does.
func (m *Map) Clear() error {
	return m.use(m.s.clearBPFMap)
}

// Zero sets every value of the map to zero, as zero(@m) does.
func (m *Map) Zero() error {
	return m.use(m.s.zeroBPFMap)
}

// Delete deletes the entry of the given key components, as delete(@m[k])
// does (every bucket of a histogram's key). Components are Go integers,
// strings or booleans, one per key component (none for a map without
// keys). Deleting a key that is not there is not an error.
func (m *Map) Delete(key ...any) error {
	return m.use(func(bm *ebpf.Map) error { return m.delete(bm, key) })
}

func (m *Map) delete(bm *ebpf.Map, key []any) error {
	meta := m.sm.meta
	if len(key) != len(meta.Keys) {
		return fmt.Errorf("delete %s: %d key components, want %d", meta.Name, len(key), len(meta.Keys))
	}
	kb, err := encodeKey(meta, key)
	if err != nil {
		return fmt.Errorf("delete %s: %w", meta.Name, err)
	}
	switch meta.Value.Kind {
	case types.Hist, types.Lhist, types.Tseries:
		// Every bucket of the key: those keys that start with it.
		if isArray(bm.Type()) {
			return m.s.zeroBPFMap(bm)
		}
		ks, err := keys(bm)
		if err != nil {
			return err
		}
		prefix := kb[:bucketOffset(meta)]
		var errs []error
		for _, k := range ks {
			if bytes.HasPrefix(k, prefix) {
				if err := bm.Delete(k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
					errs = append(errs, err)
				}
			}
		}
		return errors.Join(errs...)
	}
	if isArray(bm.Type()) {
		return m.s.zeroBPFMap(bm)
	}
	if err := bm.Delete(kb); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
		return fmt.Errorf("delete %s: %w", meta.Name, err)
	}
	return nil
}

// bucketOffset is the offset of a histogram key's bucket field.
func bucketOffset(m *object.Map) int {
	if len(m.Key.Fields) == 0 {
		return 0
	}
	return m.Key.Fields[len(m.Key.Fields)-1].Offset
}

// encodeKey lays out key components as the map's BPF key (the bucket of a
// histogram key zero).
func encodeKey(m *object.Map, key []any) ([]byte, error) {
	kb := make([]byte, m.Key.Size)
	for i, k := range key {
		t, off := m.Keys[i], 0
		if m.Key.Kind == types.Tuple || m.Key.Kind == types.Record {
			t, off = m.Key.Fields[i].Type, m.Key.Fields[i].Offset
		}
		dst := kb[off : off+t.Size]
		switch t.Kind {
		case types.Int, types.Bool:
			v, ok := asUint64(k)
			if !ok {
				return nil, fmt.Errorf("key %d: %T for an integer", i+1, k)
			}
			switch len(dst) {
			case 1:
				dst[0] = byte(v)
			case 2:
				binary.NativeEndian.PutUint16(dst, uint16(v))
			case 4:
				binary.NativeEndian.PutUint32(dst, uint32(v))
			default:
				binary.NativeEndian.PutUint64(dst, v)
			}
		case types.String:
			str, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("key %d: %T for a string", i+1, k)
			}
			if len(str) >= len(dst) {
				str = str[:len(dst)-1]
			}
			copy(dst, str)
		default:
			return nil, fmt.Errorf("key %d: keys of type %s cannot be given", i+1, t)
		}
	}
	return kb, nil
}

// asUint64 converts a Go integer or boolean to its two's complement bits.
func asUint64(v any) (uint64, bool) {
	switch v := v.(type) {
	case int:
		return uint64(v), true
	case int8:
		return uint64(v), true
	case int16:
		return uint64(v), true
	case int32:
		return uint64(v), true
	case int64:
		return uint64(v), true
	case uint:
		return uint64(v), true
	case uint8:
		return uint64(v), true
	case uint16:
		return uint64(v), true
	case uint32:
		return uint64(v), true
	case uint64:
		return v, true
	case bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// MapNames returns the names of the session's maps, sorted, without
// reading them (Maps counts their entries).
func (s *Session) MapNames() []string { return s.mapNames() }

// ReadFields is Read with the fields of a single tuple or record key
// decoded one by one: each entry's Key holds one element per field
// (@m[(comm, pid)] reads as @m[comm, pid]). Other maps read as Read
// reads them.
func (m *Map) ReadFields() ([]MapEntry, error) {
	raw, err := m.readRaw()
	if err != nil {
		return nil, err
	}
	return m.sm.fmt.opts.Formatter.Decode(flatKey(m.sm.meta), raw)
}

// flatKey returns m with a single tuple or record key split into its
// fields, or m itself.
func flatKey(m *object.Map) *object.Map {
	if len(m.Keys) != 1 || m.Keys[0].Kind != types.Tuple && m.Keys[0].Kind != types.Record ||
		m.Key == nil || m.Key.Kind != types.Tuple && m.Key.Kind != types.Record || len(m.Key.Fields) == 0 {
		return m
	}
	outer := m.Key.Fields[0]
	flat := *m
	key := *m.Key
	key.Fields = nil
	flat.Keys = nil
	for _, f := range m.Keys[0].Fields {
		f.Offset += outer.Offset
		key.Fields = append(key.Fields, f)
		flat.Keys = append(flat.Keys, f.Type)
	}
	key.Fields = append(key.Fields, m.Key.Fields[1:]...)
	flat.Key = &key
	return &flat
}
