package output_test

import (
	"testing"

	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/output"
)

// TestMessage checks errorf()/warnf() lines: bpftrace's location prefix
// when the call's span is known, the bare severity otherwise.
func TestMessage(t *testing.T) {
	call := srcpos.Span{Start: srcpos.Pos{Filename: "stdin", Line: 1, Column: 9}, End: srcpos.Pos{Filename: "stdin", Line: 1, Column: 62}}
	for _, tt := range []struct {
		isError bool
		span    srcpos.Span
		want    string
	}{
		{true, call, "stdin:1:9-62: ERROR: bad 10\n"},
		{false, call, "stdin:1:9-62: WARNING: bad 10\n"},
		{true, srcpos.Span{}, "ERROR: bad 10\n"},
	} {
		if got := output.Message(tt.isError, "bad 10", tt.span, nil, ""); got != tt.want {
			t.Errorf("Message(%v, %v) = %q, want %q", tt.isError, tt.span, got, tt.want)
		}
	}
}

// TestMessageExpanded checks the "expanded from" notes of an errorf()
// copied out of a macro: one per macro use, with its line and '~' under it.
func TestMessageExpanded(t *testing.T) {
	src := `macro bad() { errorf("Something bad"); } begin { bad(); }`
	at := func(from, to int) srcpos.Span {
		return srcpos.Span{Start: srcpos.Pos{Filename: "stdin", Line: 1, Column: from}, End: srcpos.Pos{Filename: "stdin", Line: 1, Column: to}}
	}
	got := output.Message(true, "Something bad", at(15, 38), []srcpos.Span{at(50, 55)}, src)
	want := "stdin:1:15-38: ERROR: Something bad\n" +
		"stdin:1:50-55: ERROR: expanded from\n" +
		src + "\n" +
		"                                                 ~~~~~\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
