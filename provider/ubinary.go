package provider

import (
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// uprobeBinaries resolves the BINARY part of uprobe:BINARY:...: with -p
// and "*", the files the process maps (its executable first); a glob, the
// regular files matching it; an absolute path of a -p process in another
// mount namespace, the file under /proc/PID/root; else the file
// ResolveBinary finds (a path, an executable on PATH, a library).
func uprobeBinaries(env ExpandEnv, b Binaries, target string) ([]string, error) {
	t := TargetOf(env)
	if t.Pid != 0 && target == "*" {
		return pidBinaries(t.Pid)
	}
	if HasGlob(target) {
		matches, err := filepath.Glob(target)
		if err != nil {
			return nil, fmt.Errorf("bad uprobe target pattern %q: %w", target, err)
		}
		var out []string
		for _, m := range matches {
			if strings.HasPrefix(target, "./") && !strings.HasPrefix(m, "/") {
				m = "./" + m // as written: bpftrace keeps the prefix
			}
			if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
				out = append(out, m)
			}
		}
		sort.Strings(out)
		return out, nil
	}
	if t.Pid != 0 && strings.HasPrefix(target, "/") {
		if root := pidRoot(t.Pid); root != "" {
			if _, err := os.Stat(root + target); err == nil {
				return []string{root + target}, nil
			}
		}
	}
	bin, err := b.ResolveBinary(target)
	if err != nil {
		return nil, err
	}
	return []string{bin}, nil
}

// funcSizes maps the function symbols of an ELF file to their sizes (the
// largest when a name appears in both symbol tables).
func funcSizes(b Binaries, file string) (map[string]uint64, error) {
	syms, err := b.ELFSymbols(file)
	if err != nil {
		return nil, err
	}
	funcs := map[string]uint64{}
	for _, s := range syms {
		if s.Func {
			funcs[s.Name] = max(funcs[s.Name], s.Size)
		}
	}
	return funcs, nil
}

// hintUnsafe ends the refusal of a probe that --unsafe allows.
const hintUnsafe = "\nUse --unsafe to force attachment. WARNING: This option could lead to data corruption in the target process."

// checkUprobeBounds refuses, as bpftrace does, a probe on a function whose
// size the symbol table does not give (unless unsafe) and an offset past
// the function's end.
func checkUprobeBounds(fn string, size, offset uint64, unsafe bool) error {
	if size == 0 && offset == 0 {
		if !unsafe {
			return fmt.Errorf("Could not determine boundary for %s (symbol has size 0).%s", fn, hintUnsafe)
		}
		return nil
	}
	if offset >= size {
		return fmt.Errorf("Offset outside the function bounds ('%s' size is %d)", fn, size)
	}
	return nil
}

// uprobeSymbols caches the function symbols of the files a probe
// attaches to.
type uprobeSymbols map[string][]elf.Symbol

// funcs returns the function symbols of an ELF file (nil for a file that
// is not ELF).
func (c uprobeSymbols) funcs(file string) []elf.Symbol {
	if syms, ok := c[file]; ok {
		return syms
	}
	var out []elf.Symbol
	if f, err := elf.Open(file); err == nil {
		for _, get := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
			syms, _ := get()
			for _, s := range syms {
				if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
					s.Name, _, _ = strings.Cut(s.Name, "@")
					out = append(out, s)
				}
			}
		}
		f.Close()
	}
	c[file] = out
	return out
}

// symbol returns the file offset of function fn plus off in file, after
// bpftrace's checks: the offset is inside the function, and a function
// whose size the symbol table does not give needs --unsafe. 0 when the
// symbol is not in the file's symbol tables.
func (c uprobeSymbols) symbol(file, fn string, off uint64, unsafe bool) (uint64, error) {
	var sym *elf.Symbol
	for i, s := range c.funcs(file) {
		if s.Name == fn && (sym == nil || s.Size > sym.Size) {
			sym = &c[file][i]
		}
	}
	if sym == nil {
		return 0, nil
	}
	if err := checkUprobeBounds(fn, sym.Size, off, unsafe); err != nil {
		return 0, err
	}
	addr, err := fileOffset(file, sym.Value)
	if err != nil {
		return 0, err
	}
	return addr + off, nil
}

// address returns the file offset of an address probe, which must land in
// a function of the file (any address with --unsafe, or in a file that is
// not ELF, a flat binary, whose addresses are file offsets).
func (c uprobeSymbols) address(file string, addr uint64, unsafe bool) (uint64, error) {
	funcs := c.funcs(file)
	found := unsafe || funcs == nil
	for _, s := range funcs {
		if addr >= s.Value && (addr < s.Value+s.Size || addr == s.Value) {
			found = true
			break
		}
	}
	if !found {
		return 0, fmt.Errorf("Could not resolve address: %s:0x%x", file, addr)
	}
	return fileOffset(file, addr)
}

// fileOffset converts a virtual address of an ELF file to the file offset
// the kernel's uprobes take: through the loadable segment holding it. A
// file that is not ELF (a flat binary) takes the address as the offset.
func fileOffset(file string, addr uint64) (uint64, error) {
	f, err := elf.Open(file)
	if err != nil {
		return addr, nil
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr < p.Vaddr+p.Memsz {
			return addr - p.Vaddr + p.Off, nil
		}
	}
	return 0, fmt.Errorf("address 0x%x is in no loadable segment of %s", addr, file)
}

// parseUprobeAddress reads the FUNCTION part of an address probe: a
// number (0x401126, 10); ok is false for a function name.
func parseUprobeAddress(fn string) (uint64, bool) {
	if fn == "" || fn[0] < '0' || fn[0] > '9' {
		return 0, false
	}
	v, err := strconv.ParseUint(fn, 0, 64)
	return v, err == nil
}
