package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadProgramLimits(t *testing.T) {
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	big := filepath.Join(t.TempDir(), "big.bt")
	if err := os.WriteFile(big, []byte(strings.Repeat("/", maxProgramSize+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	exact := filepath.Join(t.TempDir(), "exact.bt")
	if err := os.WriteFile(exact, []byte(strings.Repeat("/", maxProgramSize)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		what string
		cfg  config
	}{
		{"file /dev/zero", config{file: "/dev/zero"}},
		{"stdin /dev/zero", config{file: "-"}},
		{"file past the limit", config{file: big}},
		{"-e past the limit", config{program: strings.Repeat(" ", maxProgramSize+1)}},
	} {
		_, _, err := loadProgram(&tc.cfg, zero)
		if !errors.Is(err, errTooLarge) {
			t.Errorf("%s: err = %v, want %v", tc.what, err, errTooLarge)
		}
	}
	if name, src, err := loadProgram(&config{file: exact}, zero); err != nil || name != exact || len(src) != maxProgramSize {
		t.Errorf("a file at the limit: %q, %d bytes, %v", name, len(src), err)
	}
}

// TestLoadProgramMissingFile checks bpftrace's wording for a script file
// that does not exist, and that the errno is still there for errors.Is.
func TestLoadProgramMissingFile(t *testing.T) {
	name := filepath.Join(t.TempDir(), "none.bt")
	_, _, err := loadProgram(&config{file: name}, nil)
	if want := "failed to open file '" + name + "': No such file or directory"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, not os.ErrNotExist", err)
	}
	if name, _, err := loadProgram(&config{program: "BEGIN {}"}, nil); err != nil || name != "stdin" {
		t.Errorf("-e is named %q (%v), want stdin", name, err)
	}
}
