package lang_test

import (
	"testing"

	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/lang/ast"
)

// TestParseTuples checks bpftrace 0.26's tuple syntax: () is the empty
// tuple, (a,) a one-element tuple, (a) a parenthesised expression, and a
// tuple may end with a comma.
func TestParseTuples(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{"()", "(tuple)"},
		{"( )", "(tuple)"},
		{"(1,)", "(tuple (int 1))"},
		{"(1)", "(paren (int 1))"},
		{"(1, 2)", "(tuple (int 1) (int 2))"},
		{"(1, 2,)", "(tuple (int 1) (int 2))"},
		{"((),)", "(tuple (tuple))"},
		{"((1,), ())", "(tuple (tuple (int 1)) (tuple))"},
	} {
		x, err := lang.ParseExpr(tt.src)
		if err != nil {
			t.Errorf("ParseExpr(%q): %v", tt.src, err)
			continue
		}
		if got := ast.Dump(x); got != tt.want {
			t.Errorf("ParseExpr(%q) = %s, want %s", tt.src, got, tt.want)
		}
		checkSpans(t, tt.src, "", x)
	}
	for _, src := range []string{"(,)", "(1,,)", "(1, 2 3)"} {
		if _, err := lang.ParseExpr(src); err == nil {
			t.Errorf("ParseExpr(%q) succeeded", src)
		}
	}
}
