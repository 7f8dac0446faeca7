// Package testbin builds the gotrace command for the tests that run the
// real binary (e2e, docs).
package testbin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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
