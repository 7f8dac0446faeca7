package hostfs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFiles looks up the test binary, libc and its malloc, and inodes.
func TestFiles(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var h Files
	if got, err := h.ResolveBinary(exe); err != nil || got != exe {
		t.Errorf("ResolveBinary(%s) = %q, %v", exe, got, err)
	}
	if _, err := h.ResolveBinary("/nonexistent/bin"); err == nil {
		t.Errorf("ResolveBinary of a missing path succeeded")
	}
	libc, err := h.ResolveBinary("libc")
	if err != nil {
		t.Fatal(err)
	}
	syms, err := h.ELFSymbols(libc)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range syms {
		if s.Value == 0 || strings.Contains(s.Name, "@") {
			t.Errorf("symbol %+v: want an address and no version", s)
		}
		if s.Name == "malloc" && s.Func {
			found = true
		}
	}
	if !found {
		t.Errorf("no function malloc among %d symbols of %s", len(syms), libc)
	}
	if _, err := h.ELFSymbols("/nonexistent/bin"); err == nil || !strings.Contains(err.Error(), "reading /nonexistent/bin") {
		t.Errorf("ELFSymbols of a missing file: %v", err)
	}
	if ino, err := h.Inode("."); err != nil || ino == 0 {
		t.Errorf("Inode(.) = %d, %v", ino, err)
	}
	if _, err := h.Inode("/nonexistent"); err == nil || !strings.HasPrefix(err.Error(), "stat: ") {
		t.Errorf("Inode of a missing file: %v", err)
	}
}

// TestNotRegular: a header, an imported file or a uprobe target that is a
// FIFO (its open would wait for a writer) or a device (/dev/zero never
// ends) is refused at once; a header past MaxScriptFile too.
func TestNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	var h Files
	for _, p := range []string{fifo, "/dev/zero"} {
		if _, err := h.ReadScriptFile(p); err == nil || !strings.HasSuffix(err.Error(), "not a regular file") {
			t.Errorf("ReadScriptFile(%s): %v", p, err)
		}
		if _, err := h.ResolveBinary(p); err == nil || !strings.HasSuffix(err.Error(), "not a regular file") {
			t.Errorf("ResolveBinary(%s): %v", p, err)
		}
	}
	big := filepath.Join(dir, "big.h")
	if err := os.WriteFile(big, make([]byte, MaxScriptFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ReadScriptFile(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("ReadScriptFile of %d bytes: %v", MaxScriptFile+1, err)
	}
	if data, err := h.ReadScriptFile("/etc/hostname"); err != nil && !os.IsNotExist(err) {
		t.Errorf("ReadScriptFile(/etc/hostname): %q, %v", data, err)
	}
}
