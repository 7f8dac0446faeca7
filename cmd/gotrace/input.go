package main

import (
	"errors"
	"fmt"
	"io"
	"os"
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

// loadProgram returns the program of cfg and the name its errors carry:
// -e's text, stdin's ("-") or a file's.
func loadProgram(cfg *config, stdin io.Reader) (name, src string, err error) {
	switch {
	case cfg.program != "":
		if len(cfg.program) > maxProgramSize {
			return "", "", fmt.Errorf("-e: %w", errTooLarge)
		}
		return "-e", cfg.program, nil
	case cfg.file == "-":
		src, err := readProgram(stdin)
		if err != nil {
			return "", "", fmt.Errorf("reading the program from stdin: %w", err)
		}
		return "stdin", src, nil
	}
	f, err := os.Open(cfg.file)
	if err != nil {
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
