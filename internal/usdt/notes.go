package usdt

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// Probe is one USDT probe location of an ELF file.
type Probe struct {
	Provider string // namespace, e.g. "tracetest"
	Name     string // probe name, e.g. "testprobe"
	// PC is the virtual address of the probe, adjusted for prelinking.
	PC uint64
	// Offset is the file offset of the probe instruction (what a uprobe
	// attaches to).
	Offset uint64
	// Semaphore is the virtual address of the semaphore, 0 for none;
	// SemaphoreOffset its file offset (a uprobe's reference counter
	// offset).
	Semaphore       uint64
	SemaphoreOffset uint64
	// ArgSpec is the argument specification as written in the note.
	ArgSpec string
	Args    []Arg
}

// ErrNoNotes is returned when a file has no .note.stapsdt section.
var ErrNoNotes = errors.New("no USDT notes")

const ntStapsdt = 3

// ReadFile reads the USDT probes of the ELF file at path, in note order.
func ReadFile(path string) ([]Probe, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading USDT probes of %s: %w", path, err)
	}
	defer f.Close()
	probes, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("reading USDT probes of %s: %w", path, err)
	}
	return probes, nil
}

// Read reads the USDT probes of an ELF file, in note order.
func Read(f *elf.File) ([]Probe, error) {
	sec := f.Section(".note.stapsdt")
	if sec == nil {
		return nil, ErrNoNotes
	}
	data, err := sec.Data()
	if err != nil {
		return nil, fmt.Errorf(".note.stapsdt: %w", err)
	}
	var baseAddr uint64
	hasBase := false
	if b := f.Section(".stapsdt.base"); b != nil {
		baseAddr, hasBase = b.Addr, true
	}
	addrSize := 8
	if f.Class == elf.ELFCLASS32 {
		addrSize = 4
	}
	notes, err := parseNotes(data, f.ByteOrder, addrSize)
	if err != nil {
		return nil, err
	}
	var out []Probe
	for _, n := range notes {
		p := n
		if hasBase && n.base != 0 {
			// Prelinking moved the sections: shift by how far .stapsdt.base
			// moved from the address the note recorded.
			p.PC += baseAddr - n.base
			if p.Semaphore != 0 {
				p.Semaphore += baseAddr - n.base
			}
		}
		off, ok := fileOffset(f, p.PC)
		if !ok {
			return nil, fmt.Errorf("probe %s:%s at 0x%x is in no loaded segment", p.Provider, p.Name, p.PC)
		}
		p.Offset = off
		if p.Semaphore != 0 {
			off, ok := fileOffset(f, p.Semaphore)
			if !ok {
				return nil, fmt.Errorf("semaphore of probe %s:%s at 0x%x is in no loaded segment", p.Provider, p.Name, p.Semaphore)
			}
			p.SemaphoreOffset = off
		}
		args, err := ParseArgs(p.ArgSpec)
		if err != nil {
			return nil, fmt.Errorf("probe %s:%s: %w", p.Provider, p.Name, err)
		}
		p.Args = args
		out = append(out, p.Probe)
	}
	return out, nil
}

// note is a probe as its note records it, before adjustment.
type note struct {
	Probe
	base uint64
}

// parseNotes decodes the notes of a .note.stapsdt section.
func parseNotes(data []byte, order binary.ByteOrder, addrSize int) ([]note, error) {
	var out []note
	for len(data) > 0 {
		if len(data) < 12 {
			return nil, fmt.Errorf("truncated note header")
		}
		namesz := int(order.Uint32(data[0:]))
		descsz := int(order.Uint32(data[4:]))
		typ := order.Uint32(data[8:])
		data = data[12:]
		nameEnd := align4(namesz)
		if namesz < 0 || descsz < 0 || nameEnd > len(data) || nameEnd+descsz > len(data) {
			return nil, fmt.Errorf("truncated note")
		}
		owner := string(bytes.TrimRight(data[:namesz], "\x00"))
		desc := data[nameEnd : nameEnd+descsz]
		next := nameEnd + align4(descsz)
		if next > len(data) {
			next = len(data)
		}
		data = data[next:]
		if owner != "stapsdt" || typ != ntStapsdt {
			continue
		}
		if len(desc) < 3*addrSize {
			return nil, fmt.Errorf("truncated stapsdt note")
		}
		word := func(i int) uint64 {
			if addrSize == 4 {
				return uint64(order.Uint32(desc[i*4:]))
			}
			return order.Uint64(desc[i*8:])
		}
		var n note
		n.PC, n.base, n.Semaphore = word(0), word(1), word(2)
		strs := bytes.Split(desc[3*addrSize:], []byte{0})
		if len(strs) < 3 {
			return nil, fmt.Errorf("stapsdt note without provider, name and arguments")
		}
		n.Provider, n.Name, n.ArgSpec = string(strs[0]), string(strs[1]), string(strs[2])
		out = append(out, n)
	}
	return out, nil
}

func align4(n int) int { return (n + 3) &^ 3 }

// fileOffset translates a virtual address to a file offset through the
// loadable segments.
func fileOffset(f *elf.File, addr uint64) (uint64, bool) {
	progs := append([]*elf.Prog(nil), f.Progs...)
	sort.SliceStable(progs, func(i, j int) bool { return progs[i].Vaddr < progs[j].Vaddr })
	for _, p := range progs {
		if p.Type != elf.PT_LOAD {
			continue
		}
		if addr >= p.Vaddr && addr < p.Vaddr+p.Memsz {
			return addr - p.Vaddr + p.Off, true
		}
	}
	// Relocatable objects have no segments: the address is the offset.
	if len(f.Progs) == 0 {
		return addr, true
	}
	return 0, false
}
