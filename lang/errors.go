package lang

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
)

// Error is a user-facing error at a position in a script.
type Error struct {
	Pos ast.Pos
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("%s: error: %s", e.Pos, e.Msg) }

// ErrorList is a list of errors, sorted by position. It implements error.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos ast.Pos, format string, args ...any) {
	*l = append(*l, &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Sort orders the list by position.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
}

// Err returns the list as an error, or nil when it is empty.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	return fmt.Sprintf("%s (and %d more errors)", l[0], len(l)-1)
}

// RenderWarnings formats warnings like Render, labelled "warning".
func RenderWarnings(l ErrorList, src string) string {
	if len(l) == 0 {
		return ""
	}
	return strings.ReplaceAll(Render(l, src), ": error: ", ": warning: ")
}

// Render formats err for a terminal: for each positioned error,
// "file:line:col: error: message", the source line, and a caret under the
// column. Errors that are not from this package are rendered as "error: msg".
func Render(err error, src string) string {
	var list ErrorList
	switch e := err.(type) {
	case ErrorList:
		list = e
	case *Error:
		list = ErrorList{e}
	default:
		return fmt.Sprintf("error: %v\n", err)
	}
	lines := strings.Split(src, "\n")
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.Error())
		b.WriteByte('\n')
		if e.Pos.Line >= 1 && e.Pos.Line <= len(lines) {
			line := strings.TrimRight(lines[e.Pos.Line-1], "\r")
			b.WriteString(line)
			b.WriteByte('\n')
			// Keep tabs so the caret lines up under tab-indented source.
			col := e.Pos.Column - 1
			if col > len(line) {
				col = len(line)
			}
			for _, r := range line[:max(col, 0)] {
				if r == '\t' {
					b.WriteByte('\t')
				} else {
					b.WriteByte(' ')
				}
			}
			b.WriteString("^\n")
		}
	}
	return b.String()
}
