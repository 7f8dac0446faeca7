package runtime

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
)

// withStacks sets the formatter's hook for kstack values: the value is a
// stack id in the program's stack trace map, read when printed and
// symbolized with kallsyms, one frame a line indented by eight spaces, as
// bpftrace prints stacks.
func (s *entry) withStacks(f *output.Formatter) *output.Formatter {
	if f.Stack != nil || (s.prog.StackMap == "" && s.prog.BuildIDStackMap == "" && s.prog.DwarfSampleMap == "") {
		return f
	}
	ksyms := NewKsyms()
	c := *f
	c.Stack = func(t *types.Type, id, pid uint64) string {
		// The upper halves may hold the number of frames
		// (check.Program.StackLens).
		pid &= 0xffffffff
		if t.StackMode == "build_id" {
			return s.buildIDStack(t, id)
		}
		var addrs []uint64
		if t.DWARF {
			addrs = s.dwarfFrames(t, id, pid)
		} else {
			addrs = s.stackFrames(t, id)
		}
		return s.formatFrames(t, addrs, pid, ksyms)
	}
	return &c
}

// stackFrames reads the frames of a kstack or ustack from the stack trace
// map: at most the type's limit, up to the first zero.
func (s *entry) stackFrames(t *types.Type, id uint64) []uint64 {
	if s.coll == nil || int64(id) < 0 {
		return nil
	}
	m := s.coll.Maps[s.prog.StackMap]
	if m == nil {
		return nil
	}
	raw, err := m.LookupBytes(uint32(id))
	if err != nil || raw == nil {
		return nil
	}
	limit := t.Len
	if limit <= 0 {
		limit = len(raw) / 8
	}
	var addrs []uint64
	for i := 0; i+8 <= len(raw) && i/8 < limit; i += 8 {
		addr := binary.NativeEndian.Uint64(raw[i:])
		if addr == 0 {
			break
		}
		addrs = append(addrs, addr)
	}
	return addrs
}

// formatFrames renders the frames of a stack in the mode of its type or
// of the config: after a newline, one frame a line.
func (s *entry) formatFrames(t *types.Type, addrs []uint64, pid uint64, ksyms *Ksyms) string {
	var b strings.Builder
	b.WriteString("\n")
	{
		for _, addr := range addrs {
			mode := s.opts.StackMode
			if t.StackMode != "" {
				mode = t.StackMode
			}
			switch mode {
			case "raw":
				fmt.Fprintf(&b, "%x\n", addr)
				continue
			case "perf":
				if t.UserStack && !s.opts.NoDebugInfo {
					for _, f := range s.usyms.debugFrames(addr, pid, true) {
						fmt.Fprintf(&b, "\t%x %s\n", addr, f)
					}
				} else if t.UserStack {
					fmt.Fprintf(&b, "\t%x %s\n", addr, s.usyms.perfFrame(addr, pid))
				} else if name, off, ok := ksyms.Lookup(addr); ok {
					// no " ([kernel.kallsyms])" suffix: bpftrace 0.26 gives none
					fmt.Fprintf(&b, "\t%x %s+%d\n", addr, name, off)
				} else {
					fmt.Fprintf(&b, "\t%x 0x%x\n", addr, addr)
				}
				continue
			}
			b.WriteString("        ")
			if t.UserStack {
				if s.opts.NoDebugInfo {
					b.WriteString(s.usyms.frame(addr, pid) + "\n")
				} else {
					for i, f := range s.usyms.debugFrames(addr, pid, false) {
						if i > 0 {
							b.WriteString("        ")
						}
						b.WriteString(f + "\n")
					}
				}
				continue
			}
			if name, off, ok := ksyms.Lookup(addr); ok {
				fmt.Fprintf(&b, "%s+%d\n", name, off)
			} else {
				fmt.Fprintf(&b, "0x%x\n", addr)
			}
		}
	}
	return b.String()
}

// buildIDStack renders a ustack(build_id) as bpftrace does: after a
// newline, one frame a line, the file's build id in hex and the offset in
// it ("0x" and at least two hex digits), or the bare address in hex when
// the kernel found no build id.
func (s *entry) buildIDStack(t *types.Type, id uint64) string {
	var b strings.Builder
	b.WriteString("\n")
	if s.coll == nil || int64(id) < 0 {
		return b.String()
	}
	m := s.coll.Maps[s.prog.BuildIDStackMap]
	if m == nil {
		return b.String()
	}
	raw, err := m.LookupBytes(uint32(id))
	if err != nil || raw == nil {
		return b.String()
	}
	const size = object.BuildIDFrameSize
	for i := 0; i+size <= len(raw) && i/size < t.Len; i += size {
		fr := raw[i : i+size]
		switch binary.NativeEndian.Uint32(fr) {
		case 1: // BPF_STACK_BUILD_ID_VALID
			fmt.Fprintf(&b, "%x 0x%02x\n", fr[4:24], binary.NativeEndian.Uint64(fr[24:]))
		case 2: // BPF_STACK_BUILD_ID_IP
			fmt.Fprintf(&b, "%x\n", binary.NativeEndian.Uint64(fr[24:]))
		default: // past the last frame
			return b.String()
		}
	}
	return b.String()
}
