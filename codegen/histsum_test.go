package codegen_test

import (
	"testing"

	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestHistSumLayout: with Options.HistSum, hist() and lhist() buckets hold
// {count, sum} (16 bytes, object.Map.HistSum) and nothing else changes;
// without it they hold the count alone, as bpftrace's do.
func TestHistSumLayout(t *testing.T) {
	const src = `BEGIN { @h[pid] = hist(nsecs); @l = lhist(1, 0, 10, 1); @c = count(); }`
	for _, histSum := range []bool{false, true} {
		prog, err := compileScript(t, "histsum.bt", src, codegen.Options{HistSum: histSum})
		if err != nil {
			t.Fatal(syntax.Render(err, src))
		}
		for _, m := range prog.Maps {
			size := prog.Collection.Maps[m.BPFName].ValueSize
			wantSum, wantSize := histSum, uint32(16)
			if m.Name == "@c" {
				wantSum = false
			}
			if !wantSum {
				wantSize = 8
			}
			if m.HistSum != wantSum || size != wantSize {
				t.Errorf("HistSum %v: %s: HistSum %v, value %d bytes; want %v, %d", histSum, m.Name, m.HistSum, size, wantSum, wantSize)
			}
		}
	}
}
