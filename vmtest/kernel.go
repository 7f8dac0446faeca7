package vmtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CacheDir returns the directory where vmtest/setup.sh caches kernels:
// $GOTRACE_VM_CACHE if set, else <module root>/.cache/vm, where the module
// root is the nearest directory at or above start that holds go.mod.
func CacheDir(start string) (string, error) {
	if d := os.Getenv("GOTRACE_VM_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("vmtest: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, ".cache", "vm"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("vmtest: no go.mod above " + start + "; set GOTRACE_VM_CACHE")
		}
		dir = parent
	}
}

// KernelPath resolves a kernel name such as "6.12" or "6.1" to the cached
// image <CacheDir>/vmlinuz-<name>. A name containing "/" is taken as a path.
func KernelPath(name, start string) (string, error) {
	if name == "" {
		return "", errors.New("vmtest: empty kernel name")
	}
	p := name
	if !strings.Contains(name, "/") {
		dir, err := CacheDir(start)
		if err != nil {
			return "", err
		}
		p = filepath.Join(dir, "vmlinuz-"+name)
	}
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("vmtest: kernel %q: %w (run vmtest/setup.sh)", name, err)
	}
	return filepath.Abs(p)
}
