package check_test

import (
	"testing"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestTypeof checks the type typeof(x) names in a declaration, as bpftrace
// 0.27 gives it: a variable's own type (not the 64 bits it is stored in), a
// literal's smallest type, a keyed map's key type (the tuple of its keys
// when it has several), a map value's own type (uint16 for @s =
// (uint16)1, as sizeof(@s) is 2).
func TestTypeof(t *testing.T) {
	tests := []struct{ stmts, of, want, after string }{
		{"$x = (uint16)1;", "$x", "uint16", ""},
		{"$x = 1;", "$x", "int8", ""},
		{"$x = 1; $x = 1000;", "$x", "int16", ""},
		{"", "1000", "int16", ""},
		{"", "(uint32)1", "uint32", ""},
		{"", "int16", "int16", ""},
		{"", "struct task_struct *", "struct task_struct *", ""},
		{`$s = "abc";`, "$s", "string[4]", ""},
		{"$t = (1, (int16)2);", "$t", "(int8,int16)", ""},
		{"@m[(uint8)1] = 1;", "@m", "uint8", ""},
		{`@m[(uint8)1, "a"] = 1;`, "@m", "(uint8,string[2])", ""},
		{"@m[1] = 1;", "@m[1]", "int8", ""},
		{"@s = (uint16)1;", "@s", "uint16", ""},
		{"@s = (uint16)1; @s = -1;", "@s", "int32", ""},
		{"", "{ 1 }", "int8", ""},
		// a map typed after the typeof (the first pass types it)
		{"", "@m", "(uint8,string[3])", `@m[(uint8)1, "ab"] = 1;`},
		{"", "@s", "uint16", "@s = (uint16)1;"},
	}
	for _, tt := range tests {
		src := "BEGIN { " + tt.stmts + " let $r: typeof(" + tt.of + "); " + tt.after + " }"
		file, err := syntax.Parse("t.bt", src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		prog, err := check.Check(file, testEnv(t), check.Options{})
		if err != nil {
			t.Errorf("%s: %v", src, syntax.Render(err, src))
			continue
		}
		p := prog.Probes[0]
		stmts := p.AST.Body.Stmts
		var v *ast.Var
		for _, st := range stmts {
			if l, ok := st.(*ast.LetStmt); ok && l.Var.Name == "$r" {
				v = l.Var
			}
		}
		if got := p.Info.VarOwnTypes[p.Info.VarIDs[v]].String(); got != tt.want {
			t.Errorf("%s: typeof(%s) is %s, want %s", tt.stmts, tt.of, got, tt.want)
		}
	}
}
