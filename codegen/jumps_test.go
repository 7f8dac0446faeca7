package codegen_test

import (
	"errors"
	"testing"

	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/provider"
)

// longBranch skips 20,000 statements (about 60,000 instructions).
const longBranch = `BEGIN {
	$c = 0;
	if ($c == 2) {
		unroll(100) { unroll(100) { $c = $c + 1; $c = $c + 1; } }
	}
	printf("c=%d\n", $c);
}`

func TestLongBranch(t *testing.T) {
	// Without gotol: a positioned error, never a wrapped offset.
	_, err := compileScript(t, "long.bt", longBranch, codegen.Options{})
	var cerr *codegen.Error
	if !errors.Is(err, codegen.ErrJumpRange) || !errors.As(err, &cerr) || cerr.Pos.String() != "long.bt:3:2" {
		t.Fatalf("without long jumps: got %v, want a jump out of range at long.bt:3:2", err)
	}
	p, err := compileScript(t, "long.bt", longBranch, codegen.Options{Features: provider.Features{LongJumps: true}})
	if err != nil {
		t.Fatal(err)
	}
	for name, ps := range p.Collection.Programs {
		n := 0
		for _, ins := range ps.Instructions {
			if ins.OpCode.String() == "Ja32" {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s: %d gotol instructions, want 1", name, n)
		}
	}
}
