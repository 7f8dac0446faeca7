package runtime

import (
	"encoding/binary"
	"fmt"
)

// reportFullMaps warns about every map that dropped updates because it was
// full, with how many were dropped (summed over CPUs); the warning starts
// with bpftrace's words, "Map full; can't update element".
func (s *entry) reportFullMaps() {
	if s.prog.FullMap == "" || s.coll == nil {
		return
	}
	m := s.coll.Maps[s.prog.FullMap]
	if m == nil {
		return
	}
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
			fmt.Fprintf(s.stderr, "WARNING: Map full; can't update element of %s (%d entries): %d updates were dropped; raise max_map_keys or declare it larger, e.g. let %s = hash(%d);\n",
				um.Name, s.coll.Maps[um.BPFName].MaxEntries(), n, um.Name, 2*s.coll.Maps[um.BPFName].MaxEntries())
		}
	}
}
