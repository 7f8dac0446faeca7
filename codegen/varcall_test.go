package codegen_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/lang/types"
)

// TestVarCallForms compiles each builtin variable's example with the
// variable in its call form (retval(), pid()): it compiles exactly when
// the example does, and an integer to the same instructions (the call form
// of retval dereferenced a type the checker never recorded).
func TestVarCallForms(t *testing.T) {
	for _, v := range builtin.Vars() {
		t.Run(v.Name, func(t *testing.T) {
			re := regexp.MustCompile(`\b` + regexp.QuoteMeta(v.Name) + `\b`)
			if !re.MatchString(v.Example) || v.Name == "args" || strings.Contains(v.Example, v.Name+"(") {
				t.Skipf("the example %q does not name %s, names a record's field or is a call", v.Example, v.Name)
			}
			call := re.ReplaceAllString(v.Example, v.Name+"()")
			plain, perr := compileScript(t, "example.bt", v.Example, codegen.Options{})
			called, cerr := compileScript(t, "example.bt", call, codegen.Options{})
			if (perr == nil) != (cerr == nil) {
				t.Fatalf("%q: %v; %q: %v", v.Example, perr, call, cerr)
			}
			if perr != nil {
				return
			}
			if v.Result != types.Int {
				return // a string may be built elsewhere on the stack
			}
			if a, b := noPositions(dump(plain)), noPositions(dump(called)); a != b {
				t.Errorf("%q and %q compile differently:\n%s\n%s", v.Example, call, a, b)
			}
		})
	}
}

// noPositions drops a dump's source position lines.
func noPositions(dump string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(dump, "\n") {
		if !strings.HasPrefix(strings.TrimLeft(line, " \t"), "; ") {
			b.WriteString(line)
		}
	}
	return b.String()
}
