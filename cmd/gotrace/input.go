package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// maxProgramSize is the largest program gotrace reads, from a file, stdin
// or -e: far above any real script, and small enough that /dev/zero or a
// runaway pipe stops with an error rather than filling memory.
const maxProgramSize = 16 << 20

// errTooLarge reports a program past maxProgramSize.
var errTooLarge = fmt.Errorf("the program is larger than %d MB", maxProgramSize>>20)

// readProgram reads a whole program from r, at most maxProgramSize bytes.
func readProgram(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxProgramSize+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxProgramSize {
		return "", errTooLarge
	}
	return string(b), nil
}

// strerror renders an errno as C's strerror does ("No such file or
// directory"), the way bpftrace words it.
type strerror struct{ err error }

func (e strerror) Error() string {
	s := e.err.Error()
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (e strerror) Unwrap() error { return e.err }

// loadProgram returns the program of cfg and the name its errors carry:
// "stdin" for -e's text and for stdin ("-"), as bpftrace names both, or
// the file's name.
func loadProgram(cfg *config, stdin io.Reader) (name, src string, err error) {
	switch {
	case cfg.program != "":
		if len(cfg.program) > maxProgramSize {
			return "", "", fmt.Errorf("-e: %w", errTooLarge)
		}
		return "stdin", cfg.program, nil
	case cfg.file == "-":
		src, err := readProgram(stdin)
		if err != nil {
			return "", "", fmt.Errorf("reading the program from stdin: %w", err)
		}
		return "stdin", src, nil
	}
	f, err := os.Open(cfg.file)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = fmt.Errorf("failed to open file '%s': %w", cfg.file, strerror{pe.Err})
		}
		return "", "", err
	}
	defer f.Close()
	src, err = readProgram(f)
	if err != nil {
		var pe *os.PathError
		if !errors.As(err, &pe) {
			err = fmt.Errorf("%s: %w", cfg.file, err)
		}
		return "", "", err
	}
	return cfg.file, src, nil
}
