package unwind

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/go-delve/delve/pkg/dwarf/frame"
)

// ErrNoCFI is returned by Load for a file with neither .eh_frame nor
// .debug_frame.
var ErrNoCFI = errors.New("no DWARF unwind data (.eh_frame or .debug_frame)")

// Table is the call frame information of one ELF file, by its virtual
// addresses, and the loadable segments that place file offsets at them.
type Table struct {
	fdes frame.FrameDescriptionEntries
	segs []elf.ProgHeader
}

// Load reads the CFI of the ELF file at path: its .eh_frame, and its
// .debug_frame when it has one (whose entries come second where both
// cover an address).
func Load(path string) (*Table, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Machine != elf.EM_X86_64 {
		return nil, fmt.Errorf("%s: %v: only x86-64 stacks are unwound", path, f.Machine)
	}
	t := &Table{}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			t.segs = append(t.segs, p.ProgHeader)
		}
	}
	var all frame.FrameDescriptionEntries
	for _, name := range []string{".eh_frame", ".debug_frame"} {
		s := f.Section(name)
		if s == nil || s.Type == elf.SHT_NOBITS {
			continue
		}
		data, err := s.Data()
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, name, err)
		}
		ehAddr := uint64(0)
		if name == ".eh_frame" {
			ehAddr = s.Addr
		}
		fdes, err := frame.Parse(data, binary.LittleEndian, 0, 8, ehAddr)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", path, name, err)
		}
		all = append(all, fdes...)
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: %w", path, ErrNoCFI)
	}
	// Append sorts the entries by address, which FDEForPC needs.
	t.fdes = frame.FrameDescriptionEntries{}.Append(all)
	return t, nil
}

// vaddr converts an address of mapping m to the file's virtual address,
// through the loadable segment holding its file offset.
func (t *Table) vaddr(m Mapping, addr uint64) (uint64, bool) {
	off := addr - m.Start + m.Offset
	for _, p := range t.segs {
		if off >= p.Off && off < p.Off+p.Filesz {
			return off - p.Off + p.Vaddr, true
		}
	}
	return 0, false
}

// rules returns the frame rules in force at the file address pc.
func (t *Table) rules(pc uint64) (*frame.FrameContext, error) {
	fde, err := t.fdes.FDEForPC(pc)
	if err != nil {
		return nil, err
	}
	return fde.EstablishFrame(pc)
}
