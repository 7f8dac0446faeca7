package difftest

import "testing"

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		want, got, diff string
	}{
		{"a\nb\n", "a\nb\n", ""},
		{"a\nb\nc\n", "a\nx\nc\n", "@@ -1 +1 @@\n  a\n- b\n+ x\n  c\n"},
		{"a\n", "a", "the texts differ only in their final newline (want ends with a newline, got does not)\n"},
		{"1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\n5\n6\n7\n8\nnine\n", "@@ -7 +7 @@\n  7\n  8\n- 9\n+ nine\n"},
		// Changes far apart give two hunks.
		{"a\n1\n2\n3\n4\n5\n6\nb\n", "A\n1\n2\n3\n4\n5\n6\nB\n", "@@ -1 +1 @@\n- a\n+ A\n  1\n  2\n@@ -6 +6 @@\n  5\n  6\n- b\n+ B\n"},
		// Changes close together share one hunk.
		{"a\n1\n2\nb\n", "A\n1\n2\nB\n", "@@ -1 +1 @@\n- a\n+ A\n  1\n  2\n- b\n+ B\n"},
		{"a\n", "a\nb\n", "@@ -1 +1 @@\n  a\n+ b\n"},
		{"a \n", "a\n", "@@ -1 +1 @@\n- \"a \"\n+ a\n"},
	} {
		if got := Diff(tc.want, tc.got); got != tc.diff {
			t.Errorf("Diff(%q, %q) =\n%s\nwant\n%s", tc.want, tc.got, got, tc.diff)
		}
	}
}
