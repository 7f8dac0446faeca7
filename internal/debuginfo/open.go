package debuginfo

import (
	"bytes"
	"debug/dwarf"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cilium/ebpf/btf"
)

// ErrNoDWARF is returned (wrapped) for a binary without debug information
// and without a separate debug file that can be found.
var ErrNoDWARF = errors.New("no DWARF debug information")

// File is the DWARF of one binary. Its methods are safe for concurrent use.
type File struct {
	// Path is the binary; Debug is the file the DWARF was read from (Path
	// itself or a separate debug file).
	Path, Debug string

	mu sync.Mutex
	// data is the binary's DWARF (line tables); units are the data sets
	// types and functions are read from: data itself, or the split units
	// of its skeleton units (.dwo files, a .dwp package).
	data  *dwarf.Data
	units []*dwarf.Data
	index *index
	conv  map[dwarf.Type]btf.Type
}

var (
	cacheMu sync.Mutex
	cache   = map[string]*openResult{}
)

type openResult struct {
	f   *File
	err error
}

// Open returns the DWARF of the binary at path, reading it once per
// process. dirs are extra directories searched for a separate debug file
// (bpftrace's --debuginfo), before the standard places. The error wraps
// ErrNoDWARF when the binary has no debug information.
func Open(path string, dirs []string) (*File, error) {
	key := path + "\x00" + strings.Join(dirs, "\x00")
	cacheMu.Lock()
	defer cacheMu.Unlock()
	if r, ok := cache[key]; ok {
		return r.f, r.err
	}
	f, err := open(path, dirs)
	cache[key] = &openResult{f, err}
	return f, err
}

func open(path string, dirs []string) (*File, error) {
	ef, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer ef.Close()
	if ef.Section(".debug_info") != nil {
		d, err := ef.DWARF()
		if err != nil {
			return nil, fmt.Errorf("reading the DWARF of %s: %w", path, err)
		}
		return newFile(path, path, ef, d), nil
	}
	for _, cand := range debugCandidates(ef, path, dirs) {
		df, err := elf.Open(cand)
		if err != nil {
			continue
		}
		if df.Section(".debug_info") == nil || !sameBuild(ef, df) {
			df.Close()
			continue
		}
		d, err := df.DWARF()
		if err != nil {
			df.Close()
			return nil, fmt.Errorf("reading the DWARF of %s (debug file of %s): %w", cand, path, err)
		}
		f := newFile(path, cand, df, d)
		df.Close()
		return f, nil
	}
	return nil, fmt.Errorf("%s: %w", path, ErrNoDWARF)
}

func newFile(path, debug string, ef *elf.File, d *dwarf.Data) *File {
	units := splitUnits(ef, path, d)
	if len(units) == 0 {
		units = []*dwarf.Data{d}
	}
	return &File{Path: path, Debug: debug, data: d, units: units, conv: map[dwarf.Type]btf.Type{}}
}

// debugCandidates lists the files that may hold the separate debug
// information of a binary: by .gnu_debuglink name (BINARY.debug without
// one) in dirs (relative ones first from the binary's directory), the binary's
// directory, its .debug subdirectory and /usr/lib/debug plus the binary's
// directory; by build id under dirs and /usr/lib/debug/.build-id.
func debugCandidates(ef *elf.File, path string, dirs []string) []string {
	var out []string
	dir := filepath.Dir(path)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	name := debugLink(ef)
	if name == "" {
		name = filepath.Base(path) + ".debug" // elfutils' default name
	}
	// a relative directory is relative to the binary's directory, as in
	// elfutils, then to the working directory
	var searched []string
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			searched = append(searched, filepath.Join(dir, d))
		}
		searched = append(searched, d)
	}
	for _, d := range searched {
		out = append(out, filepath.Join(d, name))
	}
	out = append(out,
		filepath.Join(dir, name),
		filepath.Join(dir, ".debug", name),
		filepath.Join("/usr/lib/debug", dir, name))
	if id := buildID(ef); len(id) > 1 {
		h := hex.EncodeToString(id)
		rel := filepath.Join(".build-id", h[:2], h[2:]+".debug")
		for _, d := range searched {
			out = append(out, filepath.Join(d, rel))
		}
		out = append(out, filepath.Join("/usr/lib/debug", rel))
	}
	self, _ := filepath.Abs(path)
	kept := out[:0]
	for _, c := range out {
		if a, _ := filepath.Abs(c); a != self {
			kept = append(kept, c)
		}
	}
	return kept
}

// sameBuild reports whether a debug file belongs to the binary: their
// build ids match, or one of them has none.
func sameBuild(bin, debug *elf.File) bool {
	a, b := buildID(bin), buildID(debug)
	return a == nil || b == nil || bytes.Equal(a, b)
}

// debugLink returns the file name in the .gnu_debuglink section, or "".
func debugLink(ef *elf.File) string {
	s := ef.Section(".gnu_debuglink")
	if s == nil {
		return ""
	}
	b, err := s.Data()
	if err != nil {
		return ""
	}
	if i := bytes.IndexByte(b, 0); i > 0 {
		return string(b[:i])
	}
	return ""
}

// buildID returns the GNU build id note of the binary, or nil.
func buildID(ef *elf.File) []byte {
	s := ef.Section(".note.gnu.build-id")
	if s == nil {
		return nil
	}
	b, err := s.Data()
	if err != nil || len(b) < 16 {
		return nil
	}
	bo := ef.ByteOrder
	namesz, descsz, typ := bo.Uint32(b), bo.Uint32(b[4:]), bo.Uint32(b[8:])
	if typ != 3 { // NT_GNU_BUILD_ID
		return nil
	}
	off := 12 + (int(namesz)+3)&^3
	if off+int(descsz) > len(b) {
		return nil
	}
	return b[off : off+int(descsz)]
}

// DWARF returns the binary's DWARF data (from the file Debug names), for
// reading its line tables and inlined calls. The data is not safe for
// concurrent use.
func (f *File) DWARF() *dwarf.Data { return f.data }
