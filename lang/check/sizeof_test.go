package check_test

import (
	"testing"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestSizeofOwnType: sizeof and strcap report the type bpftrace 0.27 gives
// a value, not the 8-byte slot gotrace stores it in: a literal's smallest
// type, a map value's own type, a variable's string of its literal's
// length.
func TestSizeofOwnType(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want uint64
	}{
		{"@x = (int32)1; @r = sizeof(@x);", 4},
		{"@x = 5; @r = sizeof(@x);", 1},
		{"@x = (uint16)1; @x = -1; @r = sizeof(@x);", 4},
		{"@m[1] = (int16)2; @r = sizeof(@m[1]);", 2},
		{"@r = sizeof(1);", 1},
		{"@r = sizeof(-1);", 1},
		{"@r = sizeof(300);", 2},
		{"@r = sizeof(1000000);", 4},
		{"@r = sizeof((1));", 1},
		{"@x = (int32)1; @r = sizeof(@x + 1);", 8},
		{"$v = (int8)3; @r = sizeof($v);", 1},
		{`@r = sizeof((1, "two", 3));`, 6},
		{`$s = "abc"; @r = strcap($s);`, 4},
		{`@s = "abc"; @r = strcap(@s);`, 4},
		{`@r = strcap("hello");`, 6},
		{"@r = sizeof(~(uint16)51);", 8},
		{"$x = (uint8)19; $y = -$x; @r = sizeof($y);", 8},
		{"@r = sizeof(((uint8)1, -(uint8)1));", 16},
		// str_concat is a string[1024], however long its operands
		{`@r = sizeof(str_concat("a", "b"));`, 1024},
		{`$a = str_concat("a", "b"); @r = sizeof(str_concat($a, $a));`, 1024},
	} {
		src := "BEGIN { " + tc.src + " }"
		file, err := syntax.Parse("t.bt", src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		prog, err := check.Check(file, testEnv(t), check.Options{})
		if err != nil {
			t.Errorf("%s: %v", src, syntax.Render(err, src))
			continue
		}
		info := prog.Probes[0].Info
		var got *uint64
		ast.Inspect(prog.Probes[0].AST, func(n ast.Node) bool {
			if a, ok := n.(*ast.AssignStmt); ok {
				if m, ok := a.Lhs.(*ast.MapRef); ok && m.Name == "@r" {
					if cv, ok := info.Consts[a.Rhs]; ok {
						got = &cv.Int
					}
				}
			}
			return true
		})
		if got == nil || *got != tc.want {
			t.Errorf("%s: got %v, want %d", tc.src, got, tc.want)
		}
	}
}
