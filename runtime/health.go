package runtime

import (
	"bytes"
	"encoding/binary"
	"os"
	"time"

	"github.com/gotrace/gotrace/provider"
)

// Health is a session's own counters, read from the kernel when asked.
type Health struct {
	// LostEvents counts the events its programs dropped because their
	// ring buffer was full.
	LostEvents uint64
	// MapFull counts, by map name, the updates dropped because the map
	// was full.
	MapFull map[string]uint64
	// Probes are the kernel's run statistics of the probes' programs,
	// nil unless the kernel keeps them (sysctl kernel.bpf_stats_enabled
	// = 1). BEGIN and END probes, which run once, and the probes that a
	// syscall dispatcher runs by tail calls (the kernel counts only the
	// dispatcher, "tracepoint:raw_syscalls:sys_enter") are left out.
	Probes []ProbeStats
}

// ProbeStats are the kernel's run statistics of one probe's program.
type ProbeStats struct {
	Probe   string // the probe as written after expansion
	Runs    uint64
	RunTime time.Duration
}

// statsEnabled is the sysctl that makes the kernel count program runs.
const statsEnabled = "/proc/sys/kernel/bpf_stats_enabled"

// Health returns the session's counters. It returns false, and nothing,
// while a program is being added or detached, or the session closes: the
// kernel objects it reads may be going away.
func (s *Session) Health() (Health, bool) {
	if !s.lifeMu.TryLock() {
		return Health{}, false
	}
	defer s.lifeMu.Unlock()
	s.mu.Lock()
	es, closed := append([]*entry(nil), s.entries...), s.closed
	s.mu.Unlock()
	if closed {
		return Health{}, false
	}
	h := Health{MapFull: map[string]uint64{}}
	b, _ := os.ReadFile(statsEnabled)
	stats := string(bytes.TrimSpace(b)) == "1"
	for _, e := range es {
		if n, ok := e.droppedEvents(); ok {
			h.LostEvents += n
		}
		for name, n := range e.fullCounts() {
			h.MapFull[name] += n
		}
		if stats {
			h.Probes = append(h.Probes, e.probeStats()...)
		}
	}
	return h, true
}

// droppedEvents returns the count of the entry's events lost because its
// ring buffer was full (summed over the CPUs of older objects' per-CPU
// count).
func (s *entry) droppedEvents() (uint64, bool) {
	if s.prog.DroppedMap == "" || s.coll == nil {
		return 0, false
	}
	m := s.coll.Maps[s.prog.DroppedMap]
	if m == nil {
		return 0, false
	}
	var total uint64
	if isPerCPU(m.Type()) {
		vals := make([]uint64, s.ncpu)
		if err := m.Lookup(uint32(0), vals); err != nil {
			return 0, false
		}
		for _, v := range vals {
			total += v
		}
	} else if err := m.Lookup(uint32(0), &total); err != nil {
		return 0, false
	}
	return total, true
}

// fullCounts returns, by map name, the updates the entry's programs
// dropped because the map was full (summed over the CPUs); maps that
// dropped none are left out.
func (s *entry) fullCounts() map[string]uint64 {
	if s.prog.FullMap == "" || s.coll == nil {
		return nil
	}
	m := s.coll.Maps[s.prog.FullMap]
	if m == nil {
		return nil
	}
	out := map[string]uint64{}
	for i, um := range s.prog.Maps {
		var perCPU [][]byte
		if err := m.Lookup(uint32(i), &perCPU); err != nil {
			continue
		}
		var n uint64
		for _, v := range perCPU {
			if len(v) >= 8 {
				n += binary.NativeEndian.Uint64(v)
			}
		}
		if n > 0 {
			out[um.Name] += n
		}
	}
	return out
}

// probeStats returns the kernel's statistics of the entry's probes.
func (s *entry) probeStats() []ProbeStats {
	if s.coll == nil {
		return nil
	}
	var out []ProbeStats
	for _, p := range s.prog.Probes {
		if def := provider.Lookup(p.Provider); def == nil || !def.Attaches() || p.Dispatch != "" {
			continue
		}
		prog := s.coll.Programs[p.Program]
		if prog == nil {
			continue
		}
		st, err := prog.Stats()
		if err != nil {
			continue
		}
		out = append(out, ProbeStats{Probe: p.Name, Runs: st.RunCount, RunTime: st.Runtime})
	}
	return out
}
