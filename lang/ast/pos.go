package ast

import "fmt"

// Pos is a position in a script: a byte offset and its 1-based line and column.
type Pos struct {
	Filename string
	Offset   int
	Line     int
	Column   int
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

// Node is implemented by every syntax tree node.
type Node interface {
	GetSpan() Span
	Pos() Pos
}
