package btdiff

import (
	"os"
	"path/filepath"
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

// TestLostOutputRerun: a run whose output lacks a program's marker (events
// lost on a loaded machine) runs again and is counted, and a tool that
// keeps losing output stops after maxRuns.
func TestLostOutputRerun(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "fake.sh")
	// The first run prints only program 0's marker; later runs print both.
	script := "#!/bin/sh\nn=$(cat " + dir + "/runs 2>/dev/null || echo 0)\necho $((n+1)) > " + dir + "/runs\n" +
		"echo '=== 0'; echo a\n[ \"$n\" -gt 0 ] && { echo '=== 1'; echo b; }\nexit 0\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &Runner{Dir: dir}
	st := &Stats{}
	sc := buildScript(map[int]string{0: "", 1: ""}, []int{0, 1})
	out, _, _, err := r.runWhole(t.Context(), Tool{Name: "fake", Argv: []string{fake}}, sc, []int{0, 1}, st)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out[0]) != "a" || strings.TrimSpace(out[1]) != "b" || st.Reruns["fake"] != 1 {
		t.Errorf("out = %v, reruns = %v; want both parts after 1 rerun", out, st.Reruns)
	}

	never := Tool{Name: "never", Argv: []string{"sh", "-c", "echo '=== 0'", "sh"}}
	st = &Stats{}
	out, _, _, err = r.runWhole(t.Context(), never, sc, []int{0, 1}, st)
	if err != nil || out == nil || st.Reruns["never"] != maxRuns-1 {
		t.Errorf("out = %v, err = %v, reruns = %v; want the last output after %d reruns", out, err, st.Reruns, maxRuns-1)
	}
}

// TestJSONToText: -f json output takes the text shape, map entries in the
// order written and values as written, and the end marker opens the exit
// print.
func TestJSONToText(t *testing.T) {
	in := `{"type": "printf", "data": "=== 3\n"}
{"type": "value", "data": [1,"a"]}
{"type": "map", "data": {"@p3_m": {"b": 2, "a,1": [97,-1]}}}
{"type": "map", "data": {"@p3_s": 18446744073709551615}}
{"type": "printf", "data": "=== END\n"}
{"type": "map", "data": {"@p3_h": [{"min": 0, "max": 1, "count": 1}]}}
`
	want := "=== 3\nvalue: [1,\"a\"]\n@p3_m[b]: 2\n@p3_m[a,1]: [97,-1]\n@p3_s: 18446744073709551615\n\n\n\n" +
		"@p3_h: [{\"min\": 0, \"max\": 1, \"count\": 1}]\n"
	if got := jsonToText(in); got != want {
		t.Errorf("jsonToText =\n%q\nwant\n%q", got, want)
	}
	parts := splitOutput(jsonToText(in))
	if parts[3] == "" || parts[-4] == "" {
		t.Errorf("parts = %v; want program 3's run and exit print", parts)
	}
}
