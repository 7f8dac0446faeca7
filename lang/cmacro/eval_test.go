package cmacro

import (
	"errors"
	"fmt"
	"testing"
)

// TestEvalExpansionLimit: macros that each name the previous one twice
// stop at MaxExpansions with ErrTooManyExpansions, whatever the depth;
// below it they evaluate.
func TestEvalExpansionLimit(t *testing.T) {
	defs := map[string]string{"A0": "1"}
	for i := 1; i <= 40; i++ {
		defs[fmt.Sprintf("A%d", i)] = fmt.Sprintf("(A%d + A%d)", i-1, i-1)
	}
	lookup := func(name string) (string, bool) { b, ok := defs[name]; return b, ok }
	if v, err := Eval("A10", lookup, false); err != nil || v != 1024 {
		t.Errorf("A10 = %d, %v; want 1024", v, err)
	}
	for _, cond := range []bool{false, true} {
		if _, err := Eval("A40", lookup, cond); !errors.Is(err, ErrTooManyExpansions) {
			t.Errorf("A40 (cond %v): %v", cond, err)
		}
	}
}
