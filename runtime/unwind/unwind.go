package unwind

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/go-delve/delve/pkg/dwarf/frame"
	"github.com/go-delve/delve/pkg/dwarf/op"
)

// DWARF register numbers of x86-64.
const (
	regBP = 6
	regSP = 7
	regRA = 16 // the return address column, also the ip
)

// Sample is what the BPF program copied at an event: the user registers a
// walk starts from and the user stack from SP upwards.
type Sample struct {
	IP, SP, BP uint64
	Stack      []byte
	// Returns are the task's uretprobe return instances: a return
	// address the walk finds in the uprobes page is a uretprobe's
	// trampoline, and the instance whose Stack is where it was read
	// holds the real one.
	Returns []Return
}

// Return is a uretprobe return instance: Addr is the return address that
// was at Stack before the uretprobe replaced it.
type Return struct{ Stack, Addr uint64 }

// read8 reads the word at addr from the copied stack.
func (s *Sample) read8(addr uint64) (uint64, bool) {
	if addr < s.SP || addr-s.SP > uint64(len(s.Stack)) || addr-s.SP+8 > uint64(len(s.Stack)) {
		return 0, false
	}
	return binary.LittleEndian.Uint64(s.Stack[addr-s.SP:]), true
}

// Cache loads the Table of each file once.
type Cache struct {
	mu     sync.Mutex
	tables map[string]cached
}

type cached struct {
	t   *Table
	err error
}

// Table returns the table of the file at path, loading it the first time.
func (c *Cache) Table(path string) (*Table, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.tables[path]; ok {
		return e.t, e.err
	}
	t, err := Load(path)
	if c.tables == nil {
		c.tables = map[string]cached{}
	}
	c.tables[path] = cached{t, err}
	return t, err
}

// Space is the address space of one process: its executable mappings,
// with the tables of their files from a Cache.
type Space struct {
	Maps  []Mapping
	Cache *Cache
	// Root prefixes the mappings' paths when their files are opened
	// (/proc/PID/root for a process in another mount namespace).
	Root string
}

// ErrStop is wrapped by the error Unwind returns when the walk stopped
// before its end was found (a frame with no CFI or outside the copied
// stack); the frames found until then are returned with it.
var ErrStop = errors.New("stack walk stopped")

// ErrUnmapped is wrapped by the error of a walk that reached an address
// no mapping of the Space holds: the process may have mapped more files
// since its maps were read.
var ErrUnmapped = errors.New("no file mapped")

// Unwind walks the stack of sample and returns the addresses of at most
// max frames, innermost first: the sample's ip, then each return address
// less one, inside the call instruction, as bpftrace's dw_ustack gives
// them (a call that ends a function returns past its end).
// The walk ends at a frame whose return address is undefined (_start,
// thread entry points) or zero; it stops early, with an error wrapping
// ErrStop, where the rules or the copied bytes run out.
func (sp *Space) Unwind(s *Sample, max int) ([]uint64, error) {
	ip, rsp, rbp := s.IP, s.SP, s.BP
	bpKnown := true
	var pcs []uint64
	for len(pcs) < max {
		pc := ip
		if len(pcs) > 0 {
			pc-- // the call, not the instruction after it
		}
		pcs = append(pcs, pc)
		fc, err := sp.rules(pc)
		if err != nil {
			return pcs, fmt.Errorf("%w at %#x: %w", ErrStop, ip, err)
		}
		regs := map[uint64]uint64{regSP: rsp, regRA: ip}
		if bpKnown {
			regs[regBP] = rbp
		}
		cfa, err := sp.cfa(fc.CFA, regs, s)
		if err != nil {
			return pcs, fmt.Errorf("%w at %#x: %w", ErrStop, ip, err)
		}
		ra, ok := fc.Regs[fc.RetAddrReg]
		if !ok || ra.Rule == frame.RuleUndefined {
			return pcs, nil // the outermost frame
		}
		next, ok := restore(fc.RetAddrReg, ra, cfa, regs, s)
		if !ok {
			return pcs, fmt.Errorf("%w at %#x: return address not in the copied stack", ErrStop, ip)
		}
		if sp.inXOL(next) {
			next = s.realReturn(cfa, next)
		}
		if r, ok := fc.Regs[regBP]; ok {
			rbp, bpKnown = restore(regBP, r, cfa, regs, s)
		}
		if next == 0 {
			return pcs, nil
		}
		if cfa <= rsp && next == ip {
			return pcs, fmt.Errorf("%w at %#x: the frame does not move", ErrStop, ip)
		}
		ip, rsp = next, cfa
	}
	return pcs, nil
}

// inXOL reports whether addr is in the uprobes page.
func (sp *Space) inXOL(addr uint64) bool {
	for _, m := range sp.Maps {
		if m.Path == XOLPath && addr >= m.Start && addr < m.End {
			return true
		}
	}
	return false
}

// realReturn finds the return address a uretprobe replaced with ra in the
// frame whose CFA is cfa (the return address sits just below it); ra when
// no instance is there.
func (s *Sample) realReturn(cfa, ra uint64) uint64 {
	for _, r := range s.Returns {
		if r.Stack+8 == cfa {
			return r.Addr
		}
	}
	return ra
}

// rules finds the frame rules of the address addr.
func (sp *Space) rules(addr uint64) (*frame.FrameContext, error) {
	for _, m := range sp.Maps {
		if addr < m.Start || addr >= m.End {
			continue
		}
		t, err := sp.Cache.Table(sp.Root + m.Path)
		if err != nil {
			return nil, err
		}
		va, ok := t.vaddr(m, addr)
		if !ok {
			return nil, fmt.Errorf("%s: no segment maps offset %#x", m.Path, addr-m.Start+m.Offset)
		}
		return t.rules(va)
	}
	return nil, fmt.Errorf("%w at %#x", ErrUnmapped, addr)
}

// cfa computes the canonical frame address of a rule.
func (sp *Space) cfa(r frame.DWRule, regs map[uint64]uint64, s *Sample) (uint64, error) {
	switch r.Rule {
	case frame.RuleCFA:
		v, ok := regs[r.Reg]
		if !ok {
			return 0, fmt.Errorf("CFA from register %d, which is not known", r.Reg)
		}
		return v + uint64(r.Offset), nil
	case frame.RuleExpression:
		return eval(r.Expression, regs, s)
	}
	return 0, fmt.Errorf("CFA rule %d is not supported", r.Rule)
}

// restore computes the caller's value of register reg from its rule.
func restore(reg uint64, r frame.DWRule, cfa uint64, regs map[uint64]uint64, s *Sample) (uint64, bool) {
	switch r.Rule {
	case frame.RuleOffset:
		return s.read8(cfa + uint64(r.Offset))
	case frame.RuleValOffset:
		return cfa + uint64(r.Offset), true
	case frame.RuleRegister:
		v, ok := regs[r.Reg]
		return v, ok
	case frame.RuleSameVal:
		v, ok := regs[reg]
		return v, ok
	case frame.RuleExpression:
		a, err := eval(r.Expression, regs, s)
		if err != nil {
			return 0, false
		}
		return s.read8(a)
	}
	return 0, false
}

// eval runs a DWARF expression (PLT entries give their CFA as one) over
// the known registers and the copied stack.
func eval(expr []byte, regs map[uint64]uint64, s *Sample) (uint64, error) {
	dr := make([]*op.DwarfRegister, regRA+1)
	for n, v := range regs {
		dr[n] = &op.DwarfRegister{Uint64Val: v}
	}
	read := func(buf []byte, addr uint64) (int, error) {
		if addr < s.SP || addr-s.SP+uint64(len(buf)) > uint64(len(s.Stack)) {
			return 0, op.ErrMemoryReadUnavailable
		}
		return copy(buf, s.Stack[addr-s.SP:]), nil
	}
	v, _, err := op.ExecuteStackProgram(*op.NewDwarfRegisters(0, dr, binary.LittleEndian, regRA, regSP, regBP, 0), expr, 8, read)
	return uint64(v), err
}
