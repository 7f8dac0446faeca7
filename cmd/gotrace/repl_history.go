package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// historyLimit is how many entries the history keeps.
const historyLimit = 1000

// historyPath is ~/.gotrace_history, or "" without a home directory.
func historyPath() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".gotrace_history")
}

// loadHistory reads the history file, one entry a line. A symlink there is
// not followed (O_NOFOLLOW): gotrace runs as root, and the file must not
// be a way to read or write another file.
func loadHistory(path string) []string {
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > historyLimit {
		lines = lines[len(lines)-historyLimit:]
	}
	return lines
}

// saveHistory appends this session's entries to the history file, keeping
// the last historyLimit, without following a symlink (O_NOFOLLOW: the
// write fails with ELOOP and nothing is written through it).
func saveHistory(path string, added []string) error {
	if len(added) == 0 {
		return nil
	}
	lines := append(loadHistory(path), added...)
	if len(lines) > historyLimit {
		lines = lines[len(lines)-historyLimit:]
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, l := range lines {
		w.WriteString(l + "\n")
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
