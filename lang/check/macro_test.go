package check_test

import (
	"testing"

	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestMacroExpansions checks that a call copied out of nested macros
// records the macro uses it came from, innermost first.
func TestMacroExpansions(t *testing.T) {
	src := `macro inner(x) { warnf("w %d", x); x } macro outer() { inner(1) + 1 } BEGIN { $a = outer(); }`
	file, err := syntax.Parse("stdin", src)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := check.Check(file, testEnv(t), check.Options{})
	if err != nil {
		t.Fatal(syntax.Render(err, src))
	}
	var got [][]string
	for call, sites := range prog.Expansions {
		var texts []string
		for _, sp := range sites {
			texts = append(texts, src[sp.Start.Offset:sp.End.Offset])
		}
		got = append(got, append([]string{call.Name}, texts...))
	}
	want := []string{"warnf", "inner(1)", "outer()"}
	if len(got) != 1 || len(got[0]) != len(want) || got[0][0] != want[0] || got[0][1] != want[1] || got[0][2] != want[2] {
		t.Errorf("expansions = %q, want [%q]", got, want)
	}
}
