package provider

import (
	"archive/zip"
	"debug/elf"
	"fmt"
	"github.com/gotrace/gotrace/internal/debuginfo"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
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
	if zipPath, _, ok := strings.Cut(target, "!/"); ok {
		// An ELF file stored in a zip archive (an APK, say):
		// ARCHIVE!/ENTRY.
		if fi, err := os.Stat(zipPath); err != nil {
			return nil, fmt.Errorf("uprobe target %s: %w", target, err)
		} else if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("uprobe target %s: not a regular file", zipPath)
		}
		return []string{target}, nil
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
			if fi, err := os.Stat(root + target); err == nil && fi.Mode().IsRegular() {
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
	if f, _, closer, err := openELF(file); err == nil {
		for _, s := range fileSymbols(f, file) {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
				s.Name, _, _ = strings.Cut(s.Name, "@")
				out = append(out, s)
			}
		}
		closer.Close()
	}
	c[file] = out
	return out
}

// fileSymbols are the symbols of the ELF file f at file: a stripped
// file's from its separate debug file (debuginfo.Symbols); an entry of
// an archive (file!/entry) has only its own.
func fileSymbols(f *elf.File, file string) []elf.Symbol {
	if strings.Contains(file, "!/") {
		syms, _ := f.Symbols()
		dyn, _ := f.DynamicSymbols()
		return append(syms, dyn...)
	}
	return debuginfo.Symbols(f, file, debuginfo.Dirs)
}

// symbol returns the file offset of function fn plus off in file, after
// bpftrace's checks: a uretprobe only at the function's entry, the offset
// inside the function and on an instruction boundary, and a function whose
// size the symbol table does not give needs --unsafe. 0 when the symbol is
// not in the file's symbol tables.
func (c uprobeSymbols) symbol(file, fn string, off uint64, ret, unsafe bool) (uint64, error) {
	var sym *elf.Symbol
	for i, s := range c.funcs(file) {
		if s.Name == fn && (sym == nil || s.Size > sym.Size) {
			sym = &c[file][i]
		}
	}
	if sym == nil {
		if off != 0 && !unsafe {
			// the library would resolve it without any of the checks
			return 0, fmt.Errorf("Failed to check if uprobe is in proper place: %s:%s+%d (no such function symbol)%s", file, fn, off, hintUnsafe)
		}
		return 0, nil
	}
	if ret && off != 0 {
		// a return probe's trampoline address overwrites what the stack
		// holds there: only the entry has the return address on top
		return 0, fmt.Errorf("uretprobes cannot be attached at function offset. (address resolved to: %s+%d)", fn, off)
	}
	if err := checkUprobeBounds(fn, sym.Size, off, unsafe); err != nil {
		return 0, err
	}
	addr, err := fileOffset(file, sym.Value)
	if err != nil {
		return 0, err
	}
	if err := checkUprobeAlignment(file, fn, addr, off, unsafe); err != nil {
		return 0, err
	}
	return addr + off, nil
}

// address returns the file offset of an address probe. An address in a
// function of the file is the function plus an offset, with every check of
// that spelling (symbol); any other address needs --unsafe, except in a
// file that is not ELF, a flat binary, whose addresses are file offsets.
func (c uprobeSymbols) address(file string, addr uint64, ret, unsafe bool) (uint64, error) {
	funcs := c.funcs(file)
	var in *elf.Symbol
	for i, s := range funcs {
		if addr >= s.Value && (addr < s.Value+s.Size || addr == s.Value) && (in == nil || s.Size > in.Size) {
			in = &funcs[i]
		}
	}
	if in != nil {
		return c.symbol(file, in.Name, addr-in.Value, ret, unsafe)
	}
	if !unsafe && funcs != nil {
		return 0, fmt.Errorf("Could not resolve address: %s:0x%x", file, addr)
	}
	return fileOffset(file, addr)
}

// fileOffset converts a virtual address of an ELF file to the file offset
// the kernel's uprobes take: through the loadable segment holding it (plus
// the entry's offset for a file in a zip archive). A file that is not ELF
// (a flat binary) takes the address as the offset.
func fileOffset(file string, addr uint64) (uint64, error) {
	f, base, closer, err := openELF(file)
	if err != nil {
		return addr, nil
	}
	defer closer.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr < p.Vaddr+p.Memsz {
			return base + addr - p.Vaddr + p.Off, nil
		}
	}
	return 0, fmt.Errorf("address 0x%x is in no loadable segment of %s", addr, file)
}

// openELF opens an ELF file, or one stored uncompressed in a zip archive
// (ARCHIVE!/ENTRY), and returns where its bytes start in the file on disk.
func openELF(file string) (*elf.File, uint64, io.Closer, error) {
	zipPath, entry, ok := strings.Cut(file, "!/")
	if !ok {
		f, err := elf.Open(file)
		if err != nil {
			return nil, 0, nil, err
		}
		return f, 0, f, nil
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		return nil, 0, nil, fmt.Errorf("open archive %s: %w", zipPath, err)
	}
	for _, zf := range zr.File {
		if zf.Name != entry {
			continue
		}
		if zf.Method != zip.Store {
			zr.Close()
			return nil, 0, nil, fmt.Errorf("%s: the entry is compressed: uprobes need it stored", file)
		}
		off, err := zf.DataOffset()
		if err != nil {
			zr.Close()
			return nil, 0, nil, fmt.Errorf("%s: %w", file, err)
		}
		raw, err := os.Open(zipPath)
		if err != nil {
			zr.Close()
			return nil, 0, nil, err
		}
		f, err := elf.NewFile(io.NewSectionReader(raw, off, int64(zf.UncompressedSize64)))
		if err != nil {
			raw.Close()
			zr.Close()
			return nil, 0, nil, fmt.Errorf("%s: %w", file, err)
		}
		return f, uint64(off), closerFunc(func() error { raw.Close(); return zr.Close() }), nil
	}
	zr.Close()
	return nil, 0, nil, fmt.Errorf("%s: no entry %s in the archive", file, entry)
}

// binaryFuncs maps the function symbols of a binary to their sizes: an
// ELF file through Binaries, one in a zip archive directly.
func binaryFuncs(b Binaries, file string) (map[string]uint64, error) {
	if !strings.Contains(file, "!/") {
		return funcSizes(b, file)
	}
	f, _, closer, err := openELF(file)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	funcs := map[string]uint64{}
	for _, s := range fileSymbols(f, file) {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
			name, _, _ := strings.Cut(s.Name, "@")
			funcs[name] = max(funcs[name], s.Size)
		}
	}
	return funcs, nil
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

// attachUprobeAt attaches prog at a file offset of path through the
// uprobe PMU directly: for offset 0 (a flat binary's entry), which the
// library's Executable takes as "no address" and resolves as a symbol.
func attachUprobeAt(a Attacher, prog *ebpf.Program, path string, offset uint64, ret bool) error {
	typ, err := pmuType("uprobe")
	if err != nil {
		return err
	}
	pathPtr, err := unix.BytePtrFromString(path)
	if err != nil {
		return err
	}
	attr := unix.PerfEventAttr{Type: typ, Sample: 1, Wakeup: 1, Ext1: uint64(uintptr(unsafe.Pointer(pathPtr))), Ext2: offset}
	if ret {
		attr.Config = 1 // format/retprobe: config:0
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	pid := taskPid(a)
	fd, err := unix.PerfEventOpen(&attr, pid, 0, -1, unix.PERF_FLAG_FD_CLOEXEC)
	runtime.KeepAlive(pathPtr)
	if err != nil {
		return fmt.Errorf("uprobe on %s at offset %d: %w", path, offset, err)
	}
	c, err := attachPerfFD(fd, prog)
	if err != nil {
		_ = unix.Close(fd)
		return err
	}
	a.Push(c)
	return nil
}
