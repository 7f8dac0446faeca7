package hostfs

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/gotrace/gotrace/internal/debuginfo"
	"github.com/gotrace/gotrace/provider"
)

// Files implements provider.HostFiles on the local file system.
type Files struct{}

var _ provider.HostFiles = Files{}

// libraryDirs are searched for uprobe:LIB:func when LIB is not a path.
var libraryDirs = []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib"}

// ResolveBinary finds the file of uprobe:TARGET:...: a path, an executable
// on PATH (bash), or a library by name (libc, libc.so.6).
func (Files) ResolveBinary(target string) (string, error) {
	if strings.Contains(target, "/") {
		return target, regularTarget(target)
	}
	for _, dir := range libraryDirs {
		// libc.so itself is usually a linker script: prefer the versioned
		// shared object, and accept only ELF files.
		for _, pattern := range []string{target, "lib" + target + ".so.*", target + ".so.*", "lib" + target + ".so", target + ".so"} {
			matches, _ := filepath.Glob(filepath.Join(dir, pattern))
			sort.Strings(matches)
			for _, m := range matches {
				if isELF(m) {
					return m, nil
				}
			}
		}
	}
	if p, err := exec.LookPath(target); err == nil {
		return p, regularTarget(p)
	}
	return "", fmt.Errorf("uprobe target %q not found (not a path, an executable on PATH, or a library)", target)
}

// regularTarget refuses a uprobe target that is not a regular file: a
// FIFO would block the open that reads its symbols, a device has none.
func regularTarget(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("uprobe target %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("uprobe target %s: not a regular file", path)
	}
	return nil
}

// isELF reports whether file is a regular ELF file.
func isELF(file string) bool {
	if fi, err := os.Stat(file); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := elf.Open(file)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// ELFSymbols lists the symbols with an address of an ELF file: the symbol
// table's, then the dynamic symbol table's, names without their version
// (malloc@@GLIBC_2.2.5 is malloc).
func (Files) ELFSymbols(file string) ([]provider.ELFSymbol, error) {
	f, err := elf.Open(file)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	defer f.Close()
	var out []provider.ELFSymbol
	// a stripped file's names come from its separate debug file
	for _, s := range debuginfo.Symbols(f, file, debuginfo.Dirs) {
		if s.Value == 0 {
			continue
		}
		name, _, _ := strings.Cut(s.Name, "@")
		out = append(out, provider.ELFSymbol{Name: name, Value: s.Value, Size: s.Size, Func: elf.ST_TYPE(s.Info) == elf.STT_FUNC})
	}
	return out, nil
}

// ELFType returns the type of an ELF file (ET_EXEC, ET_DYN, ...).
func (Files) ELFType(file string) (elf.Type, error) {
	f, err := elf.Open(file)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", file, err)
	}
	defer f.Close()
	return f.Type, nil
}

// Inode returns the inode number of a file (a cgroup v2 directory's is its
// cgroup id).
func (Files) Inode(path string) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	return st.Ino, nil
}

// DebugInfo implements provider.DebugInfo: the DWARF of a binary, read once
// per process, searching separate debug files in debuginfo.Dirs too.
func (Files) DebugInfo(file string) (*debuginfo.File, error) {
	return debuginfo.Open(file, debuginfo.Dirs)
}
