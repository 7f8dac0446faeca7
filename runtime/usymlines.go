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
	segs    []elf.ProgHeader
	lines   []lineEntry // by address
	inlines []inlineRange
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
	fl.inlines = readInlines(d)
	return fl
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
	i := sort.Search(len(fl.lines), func(i int) bool { return fl.lines[i].addr > vaddr }) - 1
	if i < 0 || fl.lines[i].file == "" {
		return "", 0, false
	}
	return fl.lines[i].file, fl.lines[i].line, true
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

// readInlines reads the inlined calls (DW_TAG_inlined_subroutine) of a
// DWARF file.
func readInlines(d *dwarf.Data) []inlineRange {
	var out []inlineRange
	r := d.Reader()
	var files []*dwarf.LineFile
	depth := 0
	for {
		e, err := r.Next()
		if err != nil || e == nil {
			break
		}
		if e.Tag == 0 {
			depth--
			continue
		}
		if e.Tag == dwarf.TagCompileUnit {
			files = nil
			if lr, err := d.LineReader(e); err == nil && lr != nil {
				files = lr.Files()
			}
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
	var in []inlineRange
	for _, r := range fl.inlines {
		if vaddr >= r.lo && vaddr < r.hi {
			in = append(in, r)
		}
	}
	sort.SliceStable(in, func(i, j int) bool { return in[i].depth > in[j].depth })
	return in
}
