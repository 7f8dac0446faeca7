package metrics

import (
	"errors"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
	"github.com/gotrace/gotrace/runtime"
)

// SessionSource is the Source of a runtime.Session's maps. Its maps are
// known from the compiled program before the session opens (so that New
// checks their names before anything attaches); until Set gives it the
// session, and once the session is closed, the maps read as empty.
type SessionSource struct {
	maps []MapInfo
	sess atomic.Pointer[runtime.Session]
	only atomic.Pointer[func(name string) bool]
}

// NewSessionSource returns the Source of a session that will run prog
// (nil: the maps are the session's alone).
func NewSessionSource(prog *object.Program) *SessionSource {
	src := &SessionSource{}
	if prog != nil {
		for _, m := range prog.Maps {
			src.maps = append(src.maps, MapInfo{Name: m.Name, Keys: m.Keys, Value: m.Value})
		}
	}
	return src
}

// Set gives the source its session (runtime.Options.Opened).
func (s *SessionSource) Set(sess *runtime.Session) { s.sess.Store(sess) }

// Only restricts the maps to those keep reports true for, asked at each
// scrape: a REPL exports the maps of its live entries, and a map stops
// being exported once every entry that uses it is detached. Nil exports
// every map of the session.
func (s *SessionSource) Only(keep func(name string) bool) {
	if keep == nil {
		s.only.Store(nil)
		return
	}
	s.only.Store(&keep)
}

// kept reports whether map name is exported (Only).
func (s *SessionSource) kept(name string) bool {
	keep := s.only.Load()
	return keep == nil || (*keep)(name)
}

// Maps returns the session's maps, and the program's before the session
// has them, as Only restricts them.
func (s *SessionSource) Maps() []MapInfo {
	sess := s.sess.Load()
	var names []string
	if sess != nil {
		names = sess.MapNames()
	}
	if len(names) == 0 {
		var out []MapInfo
		for _, m := range s.maps {
			if s.kept(m.Name) {
				out = append(out, m)
			}
		}
		return out
	}
	out := make([]MapInfo, 0, len(names))
	for _, name := range names {
		if !s.kept(name) {
			continue
		}
		m, err := sess.Map(name)
		if err != nil {
			continue
		}
		info := m.Info()
		out = append(out, MapInfo{Name: info.Name, Keys: info.Keys, Value: info.Value})
	}
	return out
}

// Read reads a map of the session: none before the session has it, after
// it closed, or when Only leaves it out.
func (s *SessionSource) Read(name string) ([]Entry, error) {
	sess := s.sess.Load()
	if sess == nil || !s.kept(name) {
		return nil, nil
	}
	m, err := sess.Map(name)
	if errors.Is(err, runtime.ErrNoMap) || errors.Is(err, runtime.ErrClosed) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	es, err := m.ReadFields()
	if errors.Is(err, runtime.ErrClosed) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]Entry, len(es))
	for i, e := range es {
		out[i] = Entry{Key: keyStrings(e.Key), Value: value(e.Value)}
	}
	return out, nil
}

// Health returns the session's counters.
func (s *SessionSource) Health() (Health, bool) {
	sess := s.sess.Load()
	if sess == nil {
		return Health{}, false
	}
	return sess.Health()
}

// keyStrings renders decoded key components as label values, as gotrace
// prints them.
func keyStrings(key []any) []string {
	out := make([]string, len(key))
	for i, k := range key {
		switch k := k.(type) {
		case int64:
			out[i] = strconv.FormatInt(k, 10)
		case uint64:
			out[i] = strconv.FormatUint(k, 10)
		case bool:
			out[i] = strconv.FormatBool(k)
		case string:
			out[i] = k
		}
	}
	return out
}

// value converts a decoded value (output.MapEntry).
func value(v any) Value {
	switch v := v.(type) {
	case int64:
		return Value{N: float64(v)}
	case uint64:
		return Value{N: float64(v)}
	case bool:
		if v {
			return Value{N: 1}
		}
		return Value{}
	case output.Stats:
		return Value{N: float64(v.Average), Count: v.Count, Total: float64(v.Total)}
	case output.Hist:
		bs := make([]Bucket, len(v.Buckets))
		for i, b := range v.Buckets {
			bs[i] = Bucket{Le: float64(b.Max), Count: b.Count}
			if b.MaxOpen {
				bs[i].Le = math.Inf(1)
			}
		}
		return Value{Buckets: bs, Sum: float64(v.Sum), HasSum: v.HasSum}
	}
	return Value{}
}
