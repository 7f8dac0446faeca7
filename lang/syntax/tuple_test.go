package syntax_test

import (
	"testing"

	"github.com/gotrace/gotrace/lang/syntax"
)

// TestParseTuples checks bpftrace 0.26's tuple syntax: () is the empty
// tuple, (a,) a one-element tuple, (a) a parenthesised expression, and a
// tuple may end with a comma.
func TestParseTuples(t *testing.T) {
	checkExprTrees(t, []struct{ src, want string }{
		{"()", "(tuple)"},
		{"( )", "(tuple)"},
		{"(1,)", "(tuple (int 1))"},
		{"(1)", "(paren (int 1))"},
		{"(1, 2)", "(tuple (int 1) (int 2))"},
		{"(1, 2,)", "(tuple (int 1) (int 2))"},
		{"((),)", "(tuple (tuple))"},
		{"((1,), ())", "(tuple (tuple (int 1)) (tuple))"},
	})
	for _, src := range []string{"(,)", "(1,,)", "(1, 2 3)"} {
		if _, err := syntax.ParseExpr(src); err == nil {
			t.Errorf("ParseExpr(%q) succeeded", src)
		}
	}
}

// TestParseContainerOf checks container_of(ptr, type, member) as bpftrace's
// stdlib macro expands it: (type *)((void *)ptr - offsetof(type, member)),
// the type written as a type, typeof(type) or a bare name.
func TestParseContainerOf(t *testing.T) {
	checkExprTrees(t, []struct{ src, want string }{
		{"container_of($p, struct Foo, n)",
			"(cast (type struct Foo *) (paren (binary - (cast (type void *) (var $p)) (offsetof (type struct Foo) n))))"},
		{"container_of($p, typeof(struct Foo), a.b)",
			"(cast (typeof (type struct Foo *)) (paren (binary - (cast (type void *) (var $p)) (offsetof (typeof (type struct Foo)) a.b))))"},
		{"container_of(arg0, foo_t, n)",
			"(cast (type foo_t *) (paren (binary - (cast (type void *) (ident arg0)) (offsetof (type foo_t) n))))"},
	})
	for _, src := range []string{"container_of($p, 2, n)", "container_of($p, struct Foo)", "container_of($p, struct Foo, )"} {
		if _, err := syntax.ParseExpr(src); err == nil {
			t.Errorf("ParseExpr(%q) succeeded", src)
		}
	}
}
