package runtime

import "fmt"

// reportFullMaps warns about every map that dropped updates because it was
// full, with how many were dropped (summed over CPUs); the warning starts
// with bpftrace's words, "Map full; can't update element".
func (s *entry) reportFullMaps() {
	counts := s.fullCounts()
	for _, um := range s.prog.Maps {
		if n := counts[um.Name]; n > 0 {
			s.sink.Warning(fmt.Sprintf("Map full; can't update element of %s (%d entries): %d updates were dropped; raise max_map_keys or declare it larger, e.g. let %s = hash(%d);",
				um.Name, s.coll.Maps[um.BPFName].MaxEntries(), n, um.Name, 2*s.coll.Maps[um.BPFName].MaxEntries()))
		}
	}
}
