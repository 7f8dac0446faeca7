package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/runtime/unwind"
)

// dwarfUnwinder unwinds the samples of dw_ustack values (codegen's
// dwUstack) with the CFI of the files each process maps: the files'
// tables are read once, a process's mappings when first needed and again
// when a walk reaches an address they do not hold; a sample is unwound
// once for each limit it is printed with.
type dwarfUnwinder struct {
	mu     sync.Mutex
	cache  unwind.Cache
	spaces map[uint64]*unwind.Space
	done   map[unwound][]uint64 // frames by sample id and limit
	// warned and warnedGone: the warnings for an evicted sample and a
	// process whose mappings are gone were given.
	warned, warnedGone bool
}

// unwound names the frames of a sample walked to a limit.
type unwound struct {
	id    uint64
	limit int
}

// maxUnwound bounds dwarfUnwinder.done: past it the cache starts anew.
const maxUnwound = 4096

// dwarfFrames returns the frames of the dw_ustack sample id of process
// pid, at most the type's limit; none for a process without unwind data
// (id -1: the program reported it) or a sample no longer in the map.
func (s *entry) dwarfFrames(t *types.Type, id, pid uint64) []uint64 {
	if s.coll == nil || int64(id) < 0 {
		return nil
	}
	m := s.coll.Maps[s.prog.DwarfSampleMap]
	if m == nil {
		return nil
	}
	d := s.dwarf
	d.mu.Lock()
	defer d.mu.Unlock()
	key := unwound{id, t.Len}
	if pcs, ok := d.done[key]; ok {
		return pcs
	}
	raw, err := m.LookupBytes(id)
	if err != nil || len(raw) < object.DwarfSampleHeader {
		if !d.warned {
			d.warned = true
			s.sink.Warning(fmt.Sprintf("dw_ustack: the stack of an event was overwritten before it was printed (more than %d stacks pending); it prints empty", m.MaxEntries()))
		}
		return nil
	}
	le := binary.LittleEndian
	smp := &unwind.Sample{IP: le.Uint64(raw[object.DwarfSampleIP:]), SP: le.Uint64(raw[object.DwarfSampleSP:]), BP: le.Uint64(raw[object.DwarfSampleBP:])}
	n := min(le.Uint64(raw[object.DwarfSampleSize:]), uint64(len(raw)-object.DwarfSampleHeader))
	smp.Stack = raw[object.DwarfSampleHeader : object.DwarfSampleHeader+n]
	for i := range min(le.Uint64(raw[object.DwarfSampleNRet:]), object.DwarfSampleReturns) {
		r := raw[object.DwarfSampleRets+16*i:]
		smp.Returns = append(smp.Returns, unwind.Return{Stack: le.Uint64(r), Addr: le.Uint64(r[8:])})
	}
	pcs, err := d.unwind(smp, pid, t.Len)
	if err != nil && !d.warnedGone {
		d.warnedGone = true
		s.sink.Warning(fmt.Sprintf("dw_ustack: the mappings of process %d are gone (it exited before its stack was printed): its stacks show their first frame only", pid))
	}
	if d.done == nil || len(d.done) >= maxUnwound {
		d.done = map[unwound][]uint64{}
	}
	d.done[key] = pcs
	return pcs
}

// unwind walks a sample of process pid, reading its mappings again once
// when the walk leaves them. Without its mappings (the process has
// exited) it returns the sample's ip and the error.
func (d *dwarfUnwinder) unwind(smp *unwind.Sample, pid uint64, limit int) ([]uint64, error) {
	sp := d.spaces[pid]
	if sp == nil {
		ms, err := readMaps(pid)
		if err != nil {
			return []uint64{smp.IP}, err
		}
		sp = d.space(pid, ms)
	}
	pcs, err := sp.Unwind(smp, limit)
	if errors.Is(err, unwind.ErrUnmapped) {
		if ms, err := readMaps(pid); err == nil {
			pcs, _ = d.space(pid, ms).Unwind(smp, limit)
		}
	}
	return pcs, nil
}

// space keeps the mappings ms of process pid.
func (d *dwarfUnwinder) space(pid uint64, ms []unwind.Mapping) *unwind.Space {
	if d.spaces == nil {
		d.spaces = map[uint64]*unwind.Space{}
	}
	sp := &unwind.Space{Maps: ms, Cache: &d.cache}
	d.spaces[pid] = sp
	return sp
}

// readMaps reads the executable file mappings of process pid.
func readMaps(pid uint64) ([]unwind.Mapping, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return unwind.ParseMaps(f)
}
