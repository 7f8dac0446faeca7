package runtime

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"sort"
)

// lineEntry is one row of a DWARF line table: code from addr on comes
// from file:line; an entry with an empty file ends a sequence.
type lineEntry struct {
	addr uint64
	file string
	line int
}

// fileLines is an ELF file's line table and loadable segments.
type fileLines struct {
	segs  []elf.ProgHeader
	lines []lineEntry // by address
}

// readLines reads the DWARF line tables of an ELF file (none when it has
// no debug information).
func readLines(path string) *fileLines {
	fl := &fileLines{}
	f, err := elf.Open(path)
	if err != nil {
		return fl
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			fl.segs = append(fl.segs, p.ProgHeader)
		}
	}
	d, err := f.DWARF()
	if err != nil {
		return fl
	}
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		lr, err := d.LineReader(cu)
		r.SkipChildren()
		if err != nil || lr == nil {
			continue
		}
		var le dwarf.LineEntry
		for {
			if err := lr.Next(&le); err != nil {
				break // io.EOF at the end of the table, or a damaged table
			}
			e := lineEntry{addr: le.Address}
			if !le.EndSequence && le.File != nil {
				e.file, e.line = le.File.Name, le.Line
			}
			fl.lines = append(fl.lines, e)
		}
	}
	sort.SliceStable(fl.lines, func(i, j int) bool { return fl.lines[i].addr < fl.lines[j].addr })
	return fl
}

// at returns the source position of the code at file offset foff.
func (fl *fileLines) at(foff uint64) (string, int, bool) {
	for _, p := range fl.segs {
		if foff < p.Off || foff >= p.Off+p.Filesz {
			continue
		}
		vaddr := foff - p.Off + p.Vaddr
		i := sort.Search(len(fl.lines), func(i int) bool { return fl.lines[i].addr > vaddr }) - 1
		if i < 0 || fl.lines[i].file == "" {
			return "", 0, false
		}
		return fl.lines[i].file, fl.lines[i].line, true
	}
	return "", 0, false
}

// lines returns the line table of path, read once.
func (r *usymResolver) lines(path string) *fileLines {
	r.mu.Lock()
	defer r.mu.Unlock()
	if fl, ok := r.lineTabs[path]; ok {
		return fl
	}
	if r.lineTabs == nil {
		r.lineTabs = map[string]*fileLines{}
	}
	fl := readLines(path)
	r.lineTabs[path] = fl
	return fl
}

// debugFrame renders a ustack frame as bpftrace does with show_debug_info:
// name+offset@file:line when the file has DWARF line information.
func (r *usymResolver) debugFrame(addr, pid uint64) string {
	name, off, path, ok := r.lookupFile(addr, pid)
	if !ok {
		return fmt.Sprintf("0x%x", addr)
	}
	foff, _ := r.fileOffsetOf(addr, pid)
	if file, line, ok := r.lines(path).at(foff); ok {
		return fmt.Sprintf("%s+%d@%s:%d", name, off, file, line)
	}
	return fmt.Sprintf("%s+%d", name, off)
}

// fileOffsetOf returns the file offset behind addr in process pid.
func (r *usymResolver) fileOffsetOf(addr, pid uint64) (uint64, bool) {
	if _, foff, ok := mappedFile(addr, pid); ok {
		return foff, true
	}
	_, foff, ok := r.execFile(addr)
	return foff, ok
}
