package runtime

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"sort"
	"sync"

	"github.com/gotrace/gotrace/internal/debuginfo"
)

// lineEntry is one row of a DWARF line table: code from addr on comes
// from file:line; an entry with an empty file ends a sequence.
type lineEntry struct {
	addr uint64
	file string
	line int
}

// fileLines is an ELF file's loadable segments and DWARF (the file's or
// its separate debug file's). Compilation units are decoded when an
// address in them is first symbolized: a large library (libc's debug file
// holds thousands) costs only the units its frames are in.
type fileLines struct {
	segs []elf.ProgHeader
	mu   sync.Mutex
	d    *dwarf.Data
	cus  map[dwarf.Offset]*unitLines
}

// unitLines is the line table and the inlined calls of one compilation
// unit.
type unitLines struct {
	lines   []lineEntry // by address
	inlines []inlineRange
}

// readLines opens the DWARF of an ELF file, from the file or its separate
// debug file (none when neither has debug information).
func readLines(path string) *fileLines {
	fl := &fileLines{cus: map[dwarf.Offset]*unitLines{}}
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
	if df, err := debuginfo.Open(path, debuginfo.Dirs); err == nil {
		fl.d = df.DWARF()
	}
	return fl
}

// unit returns the decoded compilation unit holding the code at vaddr, or
// nil.
func (fl *fileLines) unit(vaddr uint64) *unitLines {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	if fl.d == nil {
		return nil
	}
	r := fl.d.Reader()
	cu, err := r.SeekPC(vaddr)
	if err != nil || cu == nil {
		return nil
	}
	if u, ok := fl.cus[cu.Offset]; ok {
		return u
	}
	u := &unitLines{}
	if lr, err := fl.d.LineReader(cu); err == nil && lr != nil {
		var le dwarf.LineEntry
		for {
			if err := lr.Next(&le); err != nil {
				break // io.EOF at the end of the table, or a damaged table
			}
			e := lineEntry{addr: le.Address}
			if !le.EndSequence && le.File != nil {
				e.file, e.line = le.File.Name, le.Line
			}
			u.lines = append(u.lines, e)
		}
		sort.SliceStable(u.lines, func(i, j int) bool { return u.lines[i].addr < u.lines[j].addr })
		if cu.Children {
			u.inlines = readInlines(fl.d, r, lr.Files())
		}
	}
	fl.cus[cu.Offset] = u
	return u
}

// vaddr converts a file offset to the link-time address of the code.
func (fl *fileLines) vaddr(foff uint64) (uint64, bool) {
	for _, p := range fl.segs {
		if foff >= p.Off && foff < p.Off+p.Filesz {
			return foff - p.Off + p.Vaddr, true
		}
	}
	return 0, false
}

// at returns the source position of the code at address vaddr.
func (fl *fileLines) at(vaddr uint64) (string, int, bool) {
	u := fl.unit(vaddr)
	if u == nil {
		return "", 0, false
	}
	i := sort.Search(len(u.lines), func(i int) bool { return u.lines[i].addr > vaddr }) - 1
	if i < 0 || u.lines[i].file == "" {
		return "", 0, false
	}
	return u.lines[i].file, u.lines[i].line, true
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

// debugFrames renders a ustack frame as bpftrace does with
// show_debug_info: name+offset@file:line when the file has DWARF line
// information, preceded by a "[inlined] name@file:line" line per function
// inlined at the address, innermost first. In perf mode (perf set) the
// lines are "name (inlined)" and "name+offset (file)".
func (r *usymResolver) debugFrames(addr, pid uint64, perf bool) []string {
	name, off, path, ok := r.lookupFile(addr, pid)
	if !ok {
		if perf {
			return []string{fmt.Sprintf("0x%x ([unknown])", addr)}
		}
		return []string{fmt.Sprintf("0x%x", addr)}
	}
	foff, _ := r.fileOffsetOf(addr, pid)
	fl := r.lines(path)
	vaddr, vok := fl.vaddr(foff)
	var out []string
	file, line, lok := "", 0, false
	if vok {
		file, line, lok = fl.at(vaddr)
		for _, in := range fl.inlinedAt(vaddr) {
			switch {
			case perf:
				out = append(out, in.name+" (inlined)")
			case lok:
				out = append(out, fmt.Sprintf("[inlined] %s@%s:%d", in.name, file, line))
			default:
				out = append(out, "[inlined] "+in.name)
			}
			// The next function out is at the call site.
			file, line, lok = in.callFile, in.callLine, in.callFile != ""
		}
	}
	switch {
	case perf:
		out = append(out, fmt.Sprintf("%s+%d (%s)", name, off, path))
	case lok:
		out = append(out, fmt.Sprintf("%s+%d@%s:%d", name, off, file, line))
	default:
		out = append(out, fmt.Sprintf("%s+%d", name, off))
	}
	return out
}

// fileOffsetOf returns the file offset behind addr in process pid.
func (r *usymResolver) fileOffsetOf(addr, pid uint64) (uint64, bool) {
	if _, foff, ok := mappedFile(addr, pid); ok {
		return foff, true
	}
	_, foff, ok := r.execFile(addr)
	return foff, ok
}

// inlineRange is one inlined call: the code in [lo, hi) is function name,
// inlined at callFile:callLine; depth orders nested inlines (larger is
// further in).
type inlineRange struct {
	lo, hi          uint64
	name            string
	callFile        string
	callLine, depth int
}

// readInlines reads the inlined calls (DW_TAG_inlined_subroutine) of the
// compilation unit whose children r reads next; files is the unit's line
// table's file list, which DW_AT_call_file indexes.
func readInlines(d *dwarf.Data, r *dwarf.Reader, files []*dwarf.LineFile) []inlineRange {
	var out []inlineRange
	depth := 1 // inside the unit
	for depth > 0 {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == 0 {
			depth--
			continue
		}
		if e.Tag == dwarf.TagInlinedSubroutine {
			name := originName(d, e)
			file := ""
			if i, ok := e.Val(dwarf.AttrCallFile).(int64); ok && i >= 0 && int(i) < len(files) && files[i] != nil {
				file = files[i].Name
			}
			line, _ := e.Val(dwarf.AttrCallLine).(int64)
			if ranges, err := d.Ranges(e); err == nil {
				for _, rg := range ranges {
					out = append(out, inlineRange{lo: rg[0], hi: rg[1], name: name, callFile: file, callLine: int(line), depth: depth})
				}
			}
		}
		if e.Children {
			depth++
		}
	}
	return out
}

// originName is the name of an inlined function: its abstract origin's
// (or that one's specification's) name.
func originName(d *dwarf.Data, e *dwarf.Entry) string {
	for range 4 {
		if n, ok := e.Val(dwarf.AttrName).(string); ok {
			return n
		}
		off, ok := e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		if !ok {
			off, ok = e.Val(dwarf.AttrSpecification).(dwarf.Offset)
		}
		if !ok {
			return "?"
		}
		r := d.Reader()
		r.Seek(off)
		next, err := r.Next()
		if err != nil || next == nil {
			return "?"
		}
		e = next
	}
	return "?"
}

// inlinedAt returns the inlined calls that hold the code at vaddr,
// innermost first.
func (fl *fileLines) inlinedAt(vaddr uint64) []inlineRange {
	u := fl.unit(vaddr)
	if u == nil {
		return nil
	}
	var in []inlineRange
	for _, r := range u.inlines {
		if vaddr >= r.lo && vaddr < r.hi {
			in = append(in, r)
		}
	}
	sort.SliceStable(in, func(i, j int) bool { return in[i].depth > in[j].depth })
	return in
}
