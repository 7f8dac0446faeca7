// Package testbin builds the programs the tests run: the gotrace command
// for the tests that run the real binary (e2e, docs), and C programs to
// trace.
package testbin

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// Gotrace builds cmd/gotrace once per test binary, statically, into a
// temporary directory, and returns its path. The test's package must sit
// one directory below the repository's root, as e2e and docs do.
var Gotrace = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "gotrace-test")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "gotrace")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/gotrace")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
})

// C compiles the C file src with gcc and flags into a temporary directory
// of the test as name and returns its path; the test is skipped where
// there is no gcc.
func C(t testing.TB, src, name string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler (gcc) to build the test program")
	}
	bin := filepath.Join(t.TempDir(), name)
	args := append(append([]string{}, flags...), "-o", bin, src)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// Symbols returns the symbols of the ELF file bin.
func Symbols(t testing.TB, bin string) []elf.Symbol {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		t.Fatal(err)
	}
	return syms
}

// Symbol returns the symbol name of the ELF file bin; the test fails when
// there is none.
func Symbol(t testing.TB, bin, name string) elf.Symbol {
	t.Helper()
	for _, s := range Symbols(t, bin) {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no symbol %s in %s", name, bin)
	return elf.Symbol{}
}
