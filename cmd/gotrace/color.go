package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"sync"
)

// colorEnv names the environment variable that says whether messages are
// coloured, as bpftrace's BPFTRACE_COLOR: auto (the default: when stdout
// and stderr are both terminals), always or never.
const colorEnv = "BPFTRACE_COLOR"

// The colours of bpftrace's messages: errors red, warnings yellow.
const (
	colorRed    = "\033[31m"
	colorYellow = "\033[33m"
	colorReset  = "\033[0m"
)

// colorize reports whether messages are coloured: BPFTRACE_COLOR, else
// whether both stdout and stderr are terminals. An invalid value is
// warned about on stderr and taken as auto.
func colorize(stdout, stderr *os.File) bool {
	switch mode := os.Getenv(colorEnv); mode {
	case "always":
		return true
	case "never":
		return false
	case "", "auto":
	default:
		fmt.Fprintf(stderr, "WARNING: Invalid env value! The valid values of `%s` are [auto|always|never]. The current value is %s!\n", colorEnv, mode)
	}
	return isTerminal(stdout) && isTerminal(stderr)
}

// messageLine matches the first line of an error or a warning, with or
// without its script position: "stdin:1:9-26: ERROR: ...", "WARNING: ...".
var messageLine = regexp.MustCompile(`^(\S+: )?(ERROR|WARNING): `)

// colorWriter colours the error and warning lines written to it, as
// bpftrace colours its messages: the line that holds the message (not the
// source and caret lines after it), red for errors, yellow for warnings.
// Writes are gathered into whole lines; Flush writes what is left.
type colorWriter struct {
	mu   sync.Mutex
	w    io.Writer
	line []byte
}

func (c *colorWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.line = append(c.line, p...)
	for {
		i := bytes.IndexByte(c.line, '\n')
		if i < 0 {
			return len(p), nil
		}
		if err := c.writeLine(c.line[:i]); err != nil {
			return 0, err
		}
		if _, err := c.w.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
		c.line = c.line[i+1:]
	}
}

// writeLine writes one line, without its newline, coloured when it is a
// message.
func (c *colorWriter) writeLine(line []byte) error {
	m := messageLine.FindSubmatch(line)
	var err error
	switch {
	case m == nil:
		_, err = c.w.Write(line)
	case string(m[2]) == "ERROR":
		_, err = fmt.Fprintf(c.w, "%s%s%s", colorRed, line, colorReset)
	default:
		_, err = fmt.Fprintf(c.w, "%s%s%s", colorYellow, line, colorReset)
	}
	return err
}

// Flush writes a last line that has no newline.
func (c *colorWriter) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.line) == 0 {
		return nil
	}
	err := c.writeLine(c.line)
	c.line = nil
	return err
}
