package btdiff

import (
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestProgramsCheck: the generator is deterministic, and the checker
// accepts every program it generates (a refused one would test nothing
// against bpftrace).
func TestProgramsCheck(t *testing.T) {
	for id := range 300 {
		src := Program(1, id)
		if src != Program(1, id) {
			t.Fatalf("program %d differs between two calls", id)
		}
		sc := buildScript(map[int]string{id: src}, []int{id})
		file, err := syntax.Parse("p.bt", sc.text)
		if err == nil {
			_, err = check.Check(file, nil, check.Options{})
		}
		if err != nil {
			t.Errorf("program %d:\n%s\n%s", id, sc.text, syntax.Render(err, sc.text))
		}
	}
}

// TestSplitOutput: a batch's output splits by marker, and the exit print
// goes to the programs its maps name.
func TestSplitOutput(t *testing.T) {
	out := splitOutput("=== 3\n1\n=== 4\nx\n@p4_a: 2\n\n\n@p3_m[1]: 5\n@p3_m[2]: 6\n@p4_a: 2\n")
	want := map[int]string{3: "1\n", 4: "x\n@p4_a: 2\n", -4: "@p3_m[1]: 5\n@p3_m[2]: 6\n", -5: "@p4_a: 2\n"}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("part %d = %q, want %q", k, out[k], v)
		}
	}
}

// TestSortMapLines: only the order of a map's keyed entries is ignored.
func TestSortMapLines(t *testing.T) {
	a := "x\n@p1_m[b]: 1\n@p1_m[a]: 1\ny\n"
	b := "x\n@p1_m[a]: 1\n@p1_m[b]: 1\ny\n"
	if sortMapLines(a) != sortMapLines(b) {
		t.Error("entries in another order differ")
	}
	if sortMapLines("1\n2\n") == sortMapLines("2\n1\n") {
		t.Error("lines outside map prints were sorted")
	}
	if !strings.Contains(sortMapLines(a), "@p1_m[a]: 1\n@p1_m[b]: 1") {
		t.Error("entries not sorted")
	}
}

// TestValueOrdered: the map order explanation holds only for entries in
// ascending value order.
func TestValueOrdered(t *testing.T) {
	for out, want := range map[string]bool{
		"@p1_m[a]: -5\n@p1_m[b]: 0\n@p1_m[c]: 18446744073709551615\nx\n@p1_n[a]: 3\n": true,
		"@p1_m[a]: 0\n@p1_m[b]: 114\n@p1_m[c]: 0\n":                                   false,
		"@p1_m[a]: 18446744073709551615\n@p1_m[b]: 3\n":                               false,
		"@p1_m[a]: (1, 2)\n@p1_m[b]: (0, 1)\n":                                        true,
		"@p1_m[a]: 5\n@p1_n[a]: 1\n":                                                  true,
		"@p1_m[a]: 1\n@p1_m[b]: 5\n@p1_m[a]: 1\n@p1_m[b]: 5\n":                        true,
		"@p1_m[a]: 1\n@p1_m[b]: 5\n@p1_m[c]: 1\n@p1_m[b]: 5\n":                        false,
	} {
		if got := valueOrdered(out); got != want {
			t.Errorf("valueOrdered(%q) = %v, want %v", out, got, want)
		}
	}
}
