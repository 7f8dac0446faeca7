package check_test

import (
	"errors"
	"testing"

	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestPrintfErrorPositions checks that a rejected conversion is reported at
// its '%', also after escapes in the format.
func TestPrintfErrorPositions(t *testing.T) {
	src := `BEGIN { printf("a\tb %f %5000d\n", 1, 2); }`
	file, err := syntax.Parse("p.bt", src)
	if err != nil {
		t.Fatal(err)
	}
	_, err = check.Check(file, testEnv(t), check.Options{})
	var errs syntax.ErrorList
	if !errors.As(err, &errs) || len(errs) != 2 {
		t.Fatalf("got %v, want two errors", err)
	}
	for i, col := range []int{22, 25} {
		if errs[i].Pos.Line != 1 || errs[i].Pos.Column != col {
			t.Errorf("error %d %q at %d:%d, want 1:%d", i, errs[i].Msg, errs[i].Pos.Line, errs[i].Pos.Column, col)
		}
	}
}
