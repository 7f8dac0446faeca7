package provider

import (
	"debug/elf"
	"fmt"
	"os"
	"strings"

	"golang.org/x/arch/x86/x86asm"
)

// checkUprobeAlignment refuses, as bpftrace does, a uprobe at an offset
// into a function that falls inside an instruction: the breakpoint would
// overwrite part of it and the traced program would crash. The function's
// x86-64 instructions are decoded from its start (at file offset start)
// up to the offset; other machines are not checked. With unsafe the probe
// is allowed.
func checkUprobeAlignment(file, fn string, start, off uint64, unsafe bool) error {
	if off == 0 || unsafe {
		return nil
	}
	f, _, closer, err := openELF(file)
	if err != nil {
		return nil // a flat binary: nothing to decode against
	}
	machine := f.Machine
	closer.Close()
	if machine != elf.EM_X86_64 {
		return nil
	}
	onDisk, _, _ := strings.Cut(file, "!/")
	code, err := readAt(onDisk, start, off+16)
	if err != nil {
		return fmt.Errorf("Could not read %s:%s to check the uprobe's place: %w", file, fn, err)
	}
	pos := uint64(0)
	for pos < off {
		inst, err := x86asm.Decode(code[pos:], 64)
		if err != nil || inst.Len == 0 {
			return fmt.Errorf("Failed to check if uprobe is in proper place: %s:%s+%d (cannot decode the instruction at +%d)%s", file, fn, off, pos, hintUnsafe)
		}
		pos += uint64(inst.Len)
	}
	if pos != off {
		return fmt.Errorf("Could not add uprobe into middle of instruction: %s:%s+%d%s", file, fn, off, hintUnsafe)
	}
	return nil
}

// readAt reads n bytes of file at offset off (fewer at its end).
func readAt(file string, off, n uint64) ([]byte, error) {
	fh, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	buf := make([]byte, n)
	m, err := fh.ReadAt(buf, int64(off))
	if m == 0 && err != nil {
		return nil, err
	}
	return buf[:m], nil
}
