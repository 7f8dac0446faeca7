package syntax_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestRender checks the shape of rendered diagnostics: the location as
// file:line:col-endcol (end exclusive) or file:line-endline, the severity,
// the source line with tabs expanded and '~' under the span.
func TestRender(t *testing.T) {
	src := "BEGIN {\n\t@x = nosuch;\n}\n"
	at := func(line, col int) srcpos.Pos { return srcpos.Pos{Filename: "stdin", Line: line, Column: col} }
	lib := &srcpos.Source{Name: "lib/a.bt", Text: "// helpers\nmacro m() {\n}\n"}
	for _, tt := range []struct {
		name string
		err  *syntax.Error
		want string
	}{
		{"span", &syntax.Error{Pos: at(2, 7), End: at(2, 13), Msg: "unknown identifier"},
			"stdin:2:7-13: ERROR: unknown identifier\n    @x = nosuch;\n         ~~~~~~\n"},
		{"position only", &syntax.Error{Pos: at(2, 2), Msg: "here"},
			"stdin:2:2-3: ERROR: here\n    @x = nosuch;\n    ~\n"},
		{"tab under span", &syntax.Error{Pos: at(2, 1), End: at(2, 3), Msg: "tab"},
			"stdin:2:1-3: ERROR: tab\n    @x = nosuch;\n~~~~~\n"},
		{"lines", &syntax.Error{Pos: at(1, 1), End: at(3, 2), Msg: "probe"},
			"stdin:1-3: ERROR: probe\nBEGIN {\n    @x = nosuch;\n}\n"},
		{"end of input", &syntax.Error{Pos: at(4, 1), Msg: "unexpected end of input"},
			"stdin:4:1-2: ERROR: unexpected end of input\n\n~\n"},
		{"no line", &syntax.Error{Pos: srcpos.Pos{Filename: "BPFTRACE_MAX_STRLEN"}, Msg: "bad value"},
			"BPFTRACE_MAX_STRLEN: ERROR: bad value\n"},
		{"nowhere", &syntax.Error{Msg: "bad option"}, "ERROR: bad option\n"},
		{"no name", &syntax.Error{Pos: srcpos.Pos{Line: 1, Column: 1}, End: srcpos.Pos{Line: 1, Column: 6}, Msg: "x"},
			"stdin:1:1-6: ERROR: x\nBEGIN {\n~~~~~\n"},
		{"hints", &syntax.Error{Pos: at(2, 7), End: at(2, 13), Msg: "not found", Hints: []string{"checked: a.bt", "similar: b.bt"}},
			"stdin:2:7-13: ERROR: not found\n    @x = nosuch;\n         ~~~~~~\nHINT: checked: a.bt\nHINT: similar: b.bt\n"},
		{"imported file", &syntax.Error{Pos: srcpos.Pos{Filename: "lib/a.bt", Line: 2, Column: 3, Src: lib}, End: srcpos.Pos{Filename: "lib/a.bt", Line: 2, Column: 6, Src: lib}, Msg: "in the import"},
			"lib/a.bt:2:3-6: ERROR: in the import\nmacro m() {\n  ~~~\n"},
	} {
		if got := syntax.Render(tt.err, src); got != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
	list := syntax.ErrorList{{Pos: at(2, 7), End: at(2, 13), Msg: "first"}, {Pos: at(1, 1), Msg: "second"}}
	want := "stdin:2:7-13: WARNING: first\n    @x = nosuch;\n         ~~~~~~\nstdin:1:1-2: WARNING: second\nBEGIN {\n~\n"
	if got := syntax.RenderWarnings(list, src); got != want {
		t.Errorf("warnings: got\n%s\nwant\n%s", got, want)
	}
	if got, want := syntax.Render(errors.New("boom"), src), "ERROR: boom\n"; got != want {
		t.Errorf("plain error: got %q, want %q", got, want)
	}
	if got, want := list[0].Error(), "stdin:2:7-13: ERROR: first"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

// TestSortByFile checks that errors in the script come before those in
// the files it imports, which are ordered by name, then by position.
func TestSortByFile(t *testing.T) {
	a, b := &srcpos.Source{Name: "a.bt"}, &srcpos.Source{Name: "b.bt"}
	l := syntax.ErrorList{
		{Pos: srcpos.Pos{Filename: "b.bt", Line: 1, Column: 1, Src: b}, Msg: "b1"},
		{Pos: srcpos.Pos{Filename: "a.bt", Line: 2, Column: 1, Src: a}, Msg: "a2"},
		{Pos: srcpos.Pos{Filename: "stdin", Line: 3, Column: 1}, Msg: "s3"},
		{Pos: srcpos.Pos{Filename: "a.bt", Line: 1, Column: 5, Src: a}, Msg: "a1"},
		{Pos: srcpos.Pos{Filename: "stdin", Line: 1, Column: 1}, Msg: "s1"},
	}
	l.Sort()
	var got []string
	for _, e := range l {
		got = append(got, e.Msg)
	}
	if s := strings.Join(got, " "); s != "s1 s3 a1 a2 b1" {
		t.Errorf("sorted: %s", s)
	}
}

// TestErrorListAddSpan checks that Add keeps a node's whole span.
func TestErrorListAddSpan(t *testing.T) {
	f, err := syntax.Parse("stdin", "BEGIN { print(kaddr(\"nope\")); }")
	if err != nil {
		t.Fatal(err)
	}
	call := f.Probes[0].Body.Stmts[0].(*ast.ExprStmt).X.(*ast.Call).Args[0]
	var l syntax.ErrorList
	l.Add(call, "no symbol")
	if got, want := l[0].Error(), "stdin:1:15-28: ERROR: no symbol"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
