package testbtf

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/btfnames"
)

// RelPath is the location of the BTF blob relative to the module root.
const RelPath = "testdata/btf/vmlinux.btf.gz"

// load parses the blob once per test binary. The Spec is shared: callers
// must not modify it (btf.Spec lookups are safe for concurrent use).
var load = sync.OnceValues(func() (*btf.Spec, error) {
	path, err := Path()
	if err != nil {
		return nil, err
	}
	return Load(path)
})

// Spec returns the pinned kernel BTF, failing tb if it cannot be loaded. It
// is parsed once per test binary; treat the result as read-only.
func Spec(tb testing.TB) *btf.Spec {
	tb.Helper()
	spec, err := load()
	if err != nil {
		tb.Fatalf("testbtf: %v", err)
	}
	return spec
}

// Load reads a gzip-compressed raw BTF blob.
func Load(path string) (*btf.Spec, error) {
	raw, err := ReadRaw(path)
	if err != nil {
		return nil, err
	}
	spec, err := btf.LoadSpecFromReader(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("parse test BTF %s: %w", path, err)
	}
	btfnames.Register(spec, func() (*btfnames.Index, error) { return btfnames.Read(raw) })
	return spec, nil
}

// Path returns the absolute path of the BTF blob: next to this source file
// when the sources are available, otherwise found by walking up from the
// working directory (go test runs in the package directory) to the module
// root.
func Path() (string, error) {
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		p := filepath.Join(filepath.Dir(file), "..", "..", RelPath)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find test BTF: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, RelPath)
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("find test BTF: %w", err)
			}
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find test BTF: no go.mod above the working directory")
		}
		dir = parent
	}
}

// ReadRaw returns the uncompressed raw blob in the gzip file path, for
// readers of the raw format (internal/btfnames).
func ReadRaw(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open test BTF: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("read test BTF %s: %w", path, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("read test BTF %s: %w", path, err)
	}
	return raw, nil
}
