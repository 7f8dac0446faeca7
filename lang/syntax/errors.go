package syntax

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gotrace/gotrace/lang/srcpos"
)

// Error is a user-facing error at a span of a script.
type Error struct {
	Pos srcpos.Pos // start of the span
	End srcpos.Pos // end of the span (exclusive); zero when only Pos is known
	Msg string
	// Hints follow the error's source lines, one "HINT: " line each, as
	// bpftrace prints them.
	Hints []string
	// Warnings precede the error, each a WARNING diagnostic at its span
	// (bpftrace's "NAME is not traceable" before "No matches for ...").
	Warnings []string
	// Notes follow the error, each a diagnostic of the error's severity
	// at a span of its own (bpftrace's "This is the original
	// definition." under a macro's redefinition).
	Notes []Note
}

// Note is a diagnostic that explains an error at another place.
type Note struct {
	Span srcpos.Span
	Msg  string
}

// Span returns the span the error points at.
func (e *Error) Span() srcpos.Span { return srcpos.Span{Start: e.Pos, End: e.End} }

// Error renders the error's first line, as bpftrace does:
// "file:line:col-endcol: ERROR: message".
func (e *Error) Error() string { return prefix(e.Span()) + "ERROR: " + e.Msg }

// prefix is the location of sp followed by ": ", or "" when sp is nowhere.
func prefix(sp srcpos.Span) string {
	if loc := sp.Location(); loc != "" {
		return loc + ": "
	}
	return ""
}

// ErrorList is a list of errors, sorted by position. It implements error.
type ErrorList []*Error

// Add appends an error at the span of at (a node, a span or a position).
func (l *ErrorList) Add(at srcpos.Spanned, format string, args ...any) {
	sp := at.GetSpan()
	*l = append(*l, &Error{Pos: sp.Start, End: sp.End, Msg: fmt.Sprintf(format, args...)})
}

// Note adds a note at at to the last error of the list (none when the
// list is empty).
func (l ErrorList) Note(at srcpos.Spanned, format string, args ...any) {
	if len(l) > 0 {
		e := l[len(l)-1]
		e.Notes = append(e.Notes, Note{Span: at.GetSpan(), Msg: fmt.Sprintf(format, args...)})
	}
}

// Sort orders the list by position: the script's errors first, then those
// in the files it imports, by file name.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if (a.Src == nil) != (b.Src == nil) {
			return a.Src == nil
		}
		if a.Src != nil && a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
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

// Severity labels a rendered diagnostic.
type Severity string

// The severities, spelled as bpftrace prints them.
const (
	SeverityError   Severity = "ERROR"
	SeverityWarning Severity = "WARNING"
)

// RenderWarnings formats warnings like Render, labelled "WARNING".
func RenderWarnings(l ErrorList, src string) string {
	if len(l) == 0 {
		return ""
	}
	return render(l, src, SeverityWarning)
}

// Render formats err for a terminal the way bpftrace prints diagnostics:
// for each positioned error, "file:line:col-endcol: ERROR: message", the
// source line, and a row of '~' under the span (see srcpos.Span.Context),
// then its hints. src is the script's text; an error in a file the script
// imports shows that file's lines (srcpos.Pos.Src). Errors that are not from
// this package are rendered as "ERROR: msg".
func Render(err error, src string) string {
	var list ErrorList
	switch e := err.(type) {
	case ErrorList:
		list = e
	case *Error:
		list = ErrorList{e}
	default:
		return fmt.Sprintf("ERROR: %v\n", err)
	}
	return render(list, src, SeverityError)
}

func render(list ErrorList, src string, sev Severity) string {
	var b strings.Builder
	for _, e := range list {
		for _, w := range e.Warnings {
			b.WriteString(Diagnostic(SeverityWarning, e.Span(), w, src))
		}
		b.WriteString(Diagnostic(sev, e.Span(), e.Msg, src))
		for _, n := range e.Notes {
			b.WriteString(Diagnostic(sev, n.Span, n.Msg, src))
		}
		for _, h := range e.Hints {
			b.WriteString("HINT: " + h + "\n")
		}
	}
	return b.String()
}

// Diagnostic renders one diagnostic at sp: "location: SEVERITY: msg" (just
// "SEVERITY: msg" for the zero span), then the source context of sp in
// src, each line ending in a newline.
func Diagnostic(sev Severity, sp srcpos.Span, msg, src string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s: %s\n", prefix(sp), sev, msg)
	for _, l := range sp.Context(src) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}
