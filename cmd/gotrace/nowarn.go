package main

import (
	"bytes"
	"io"
	"regexp"
)

// warningLine matches a warning message: "WARNING: ..." alone or after a
// position ("file:1:2: WARNING: ...").
var warningLine = regexp.MustCompile(`^(\S+: )?WARNING: `)

// noWarnings drops the warning lines written to w (--no-warnings). Every
// message is written with its newline, so lines are judged one write at a
// time.
type noWarnings struct{ w io.Writer }

func (n *noWarnings) Write(p []byte) (int, error) {
	var keep []byte
	for rest := p; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		rest = rest[len(line):]
		if !warningLine.Match(line) {
			keep = append(keep, line...)
		}
	}
	if len(keep) > 0 {
		if _, err := n.w.Write(keep); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
