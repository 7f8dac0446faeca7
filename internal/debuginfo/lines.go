package debuginfo

import (
	"debug/dwarf"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// LineAddress returns the address of the first statement the line table
// maps to file:line (and column col when not 0), as bpftrace's
// uprobe:BINARY@FILE:LINE[:COL] resolves it. file matches a compilation
// unit's source files by whole trailing path components; a name that
// matches two different files is ambiguous.
func (f *File) LineAddress(file string, line, col int) (uint64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d := f.data
	r := d.Reader()
	var cuEntry *dwarf.Entry
	var matched string
	for {
		cu, err := r.Next()
		if err != nil {
			return 0, fmt.Errorf("reading the DWARF of %s: %w", f.Debug, err)
		}
		if cu == nil {
			break
		}
		r.SkipChildren()
		if cu.Tag != dwarf.TagCompileUnit && cu.Tag != dwarf.TagSkeletonUnit {
			continue
		}
		lr, err := d.LineReader(cu)
		if err != nil || lr == nil {
			continue
		}
		for _, lf := range lr.Files() {
			if lf == nil || !pathEndsWith(lf.Name, file) {
				continue
			}
			if cuEntry == nil {
				cuEntry, matched = cu, lf.Name
			} else if lf.Name != matched {
				return 0, fmt.Errorf("ambiguous source path, matches multiple files: %s, %s", matched, lf.Name)
			}
		}
	}
	if cuEntry == nil {
		return 0, fmt.Errorf("no compilation unit matches %s", file)
	}
	lr, err := d.LineReader(cuEntry)
	if err != nil {
		return 0, fmt.Errorf("reading the line table of %s: %w", f.Debug, err)
	}
	var le dwarf.LineEntry
	for {
		if err := lr.Next(&le); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return 0, fmt.Errorf("reading the line table of %s: %w", f.Debug, err)
		}
		if le.File == nil || le.EndSequence || le.Line != line || (col != 0 && le.Column != col) {
			continue
		}
		if pathEndsWith(le.File.Name, matched) {
			return le.Address, nil
		}
	}
	loc := fmt.Sprintf("%s:%d", file, line)
	if col != 0 {
		loc += fmt.Sprintf(":%d", col)
	}
	return 0, fmt.Errorf("unable to map '%s' to an address", loc)
}

// pathEndsWith reports whether the last components of path are suffix's.
func pathEndsWith(path, suffix string) bool {
	p := strings.Split(filepath.Clean(path), "/")
	s := strings.Split(filepath.Clean(suffix), "/")
	if len(s) > len(p) {
		return false
	}
	p = p[len(p)-len(s):]
	for i := range s {
		if p[i] != s[i] {
			return false
		}
	}
	return true
}
