package check_test

import (
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestCDefinitionErrorSpans: an error about one member of a script's C
// definition points at that member's declaration, not the whole definition.
func TestCDefinitionErrorSpans(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{
			`struct task_struct { struct thread_info x; } BEGIN { }`,
			"stdin:1:22-42: ERROR: C definition: field x has incomplete type 'struct thread_info'",
		},
		{
			"struct task_struct {\n  int a;\n  struct thread_info ti;\n} BEGIN { }",
			"stdin:3:3-24: ERROR: C definition: field ti has incomplete type 'struct thread_info'",
		},
		{
			`struct foo { int a; struct nosuch x; } BEGIN { }`,
			`stdin:1:21-34: ERROR: C definition: unknown type "struct nosuch"`,
		},
		{
			`struct foo { int a; struct { struct nosuch x; } y; } BEGIN { }`,
			`stdin:1:30-43: ERROR: C definition: unknown type "struct nosuch"`,
		},
	} {
		file, err := syntax.Parse("stdin", tc.src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = check.Check(file, testEnv(t), check.Options{})
		if got := syntax.Render(err, tc.src); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q:\ngot:\n%s\nwant a first line starting\n%s", tc.src, got, tc.want)
		}
	}
}
