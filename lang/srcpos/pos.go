package srcpos

import (
	"fmt"
	"strings"
)

// Pos is a position in a script: a byte offset and its 1-based line and column.
type Pos struct {
	Filename string
	Offset   int
	Line     int
	Column   int
	// Src is the file the position is in when that is not the script
	// itself but a file it imports; nil in the script, whose text the
	// renderers are given. Span.Context shows the lines of Src when set.
	Src *Source
}

// String renders the position as file:line:col.
func (p Pos) String() string {
	name := p.Filename
	if name == "" {
		name = "<stdin>"
	}
	if p.Line == 0 {
		return name // not in a file, e.g. an environment variable
	}
	return fmt.Sprintf("%s:%d:%d", name, p.Line, p.Column)
}

// FileText returns the text of the file p is in: that of its Src when it
// is in an imported file, else src, the script's.
func (p Pos) FileText(src string) string {
	if p.Src != nil {
		return p.Src.Text
	}
	return src
}

// Source is the text of a file a script imports, which the positions in it
// point to (Pos.Src). It is immutable once positions refer to it.
type Source struct {
	Name string // the file name its positions carry
	Text string
}

// Advance returns the position just past text, which starts at p: one
// column per byte, a new line after each newline.
func (p Pos) Advance(text string) Pos {
	for i := 0; i < len(text); i++ {
		p.Offset++
		if text[i] == '\n' {
			p.Line++
			p.Column = 1
		} else {
			p.Column++
		}
	}
	return p
}

// IsValid reports whether the position was set.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Span is the source range covered by a node: [Start, End).
type Span struct {
	Start Pos
	End   Pos
}

// Pos returns the start of the span.
func (s Span) Pos() Pos { return s.Start }

// GetSpan returns the span itself; embedding Span gives a node its Node method.
func (s Span) GetSpan() Span { return s }

// Spanned is anything with a source span: every Node, a Span, and a Pos
// (an empty span at the position).
type Spanned interface {
	GetSpan() Span
}

// GetSpan returns the empty span at p, so that a bare position can stand
// where a span is wanted; it renders as one column.
func (p Pos) GetSpan() Span { return Span{Start: p} }

// Location renders the span the way bpftrace names a place in its
// diagnostics: "file:line:col-endcol" (endcol exclusive) on one line,
// "file:line-endline" over several, the bare file name when the span has no
// line (e.g. it came from an environment variable), and "" for the zero
// span (a problem outside the script, such as a command-line value). A span
// whose end is unknown or not after its start covers one column.
func (s Span) Location() string {
	p := s.Start
	name := p.Filename
	if p.Line == 0 {
		return name
	}
	if name == "" {
		name = "stdin"
	}
	if s.End.Line > p.Line {
		return fmt.Sprintf("%s:%d-%d", name, p.Line, s.End.Line)
	}
	return fmt.Sprintf("%s:%d:%d-%d", name, p.Line, p.Column, s.endColumn())
}

// endColumn is the exclusive end column of a one-line span.
func (s Span) endColumn() int {
	if s.End.Line == s.Start.Line && s.End.Column > s.Start.Column {
		return s.End.Column
	}
	return s.Start.Column + 1
}

// Context returns the source lines a diagnostic at s shows under its
// location: for a one-line span, the line and a row of '~' under the span's
// columns; for a span over several lines, those lines. Tabs are expanded
// to four spaces in both rows, so the marks line up. It returns nil when
// src does not have the lines. A span in an imported file (Pos.Src) shows
// that file's lines instead of src's.
func (s Span) Context(src string) []string {
	if s.Start.Line == 0 {
		return nil
	}
	src = s.Start.FileText(src)
	lines := strings.Split(src, "\n")
	if s.End.Line > s.Start.Line {
		if s.End.Line > len(lines) {
			return nil
		}
		var out []string
		for _, l := range lines[s.Start.Line-1 : s.End.Line] {
			out = append(out, strings.ReplaceAll(strings.TrimRight(l, "\r"), "\t", "    "))
		}
		return out
	}
	if s.Start.Line > len(lines) {
		return nil
	}
	line := strings.TrimRight(lines[s.Start.Line-1], "\r")
	var text, marks strings.Builder
	end := s.endColumn() - 1
	for i := 0; i < len(line); i++ {
		c := line[i]
		w, mark := 1, byte(' ')
		if c == '\t' {
			w = 4
		}
		if i >= s.Start.Column-1 && i < end {
			mark = '~'
		}
		if c == '\t' {
			text.WriteString("    ")
		} else {
			text.WriteByte(c)
		}
		if i < end {
			marks.WriteString(strings.Repeat(string(mark), w))
		}
	}
	// A span past the end of the line (e.g. at the end of the input) still
	// gets one mark.
	for i := len(line); i < end; i++ {
		if i >= s.Start.Column-1 {
			marks.WriteByte('~')
		} else {
			marks.WriteByte(' ')
		}
	}
	return []string{text.String(), marks.String()}
}
