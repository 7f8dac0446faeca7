package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gotrace/gotrace/lang/pretty"
	"github.com/gotrace/gotrace/lang/syntax"
)

// formatProgram is --fmt: it prints the program formatted as bpftrace
// --fmt does, or writes it to -o's file (through a temporary file renamed
// over it, so that a failure leaves the file as it was). A program that
// does not parse is reported, and nothing is written. It needs no
// privileges.
func formatProgram(cfg *config, stdin io.Reader, stdout, stderr io.Writer) int {
	name, src, err := loadProgram(cfg, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	out, err := pretty.Source(name, src)
	if err != nil {
		fmt.Fprint(stderr, syntax.Render(err, src))
		return 1
	}
	if cfg.out.file == "" {
		if _, err := io.WriteString(stdout, out); err != nil {
			fmt.Fprintf(stderr, "ERROR: %v\n", err)
			return 1
		}
		return 0
	}
	if err := writeFileAtomic(cfg.out.file, out); err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	return 0
}

// writeFileAtomic replaces path's content with s.
func writeFileAtomic(path, s string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("unable to create temporary file: %w", err)
	}
	_, werr := tmp.WriteString(s)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("writing %s: %w", path, werr)
	}
	return nil
}
