package difftest

import (
	"fmt"
	"strings"
)

// context is how many unchanged lines are shown around each change.
const context = 2

// maxCells bounds the line-matching table; past it the changed middle of
// the texts is shown as removed and added whole.
const maxCells = 1 << 22

// Diff returns a line diff from want to got, "" when they are equal: hunks
// headed "@@ -L +L @@" (1-based line numbers in want and got) with lines
// prefixed "-" (only in want), "+" (only in got) and " " (in both, shown
// for context). A difference in the final newline alone is said in words.
func Diff(want, got string) string {
	if want == got {
		return ""
	}
	w, g := split(want), split(got)
	if equal(w, g) {
		return fmt.Sprintf("the texts differ only in their final newline (want %s, got %s)\n", final(want), final(got))
	}
	ops := match(w, g)
	var sb strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from context lines before this change to context lines
		// after the last change closer than 2*context+1 lines.
		start := max(i-context, 0)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		end = min(end+context, len(ops))
		fmt.Fprintf(&sb, "@@ -%d +%d @@\n", ops[start].wi+1, ops[start].gi+1)
		for _, op := range ops[start:end] {
			line := op.text
			if strings.TrimRight(line, " \t") != line {
				line = fmt.Sprintf("%q", line) // make trailing blanks visible
			}
			fmt.Fprintf(&sb, "%c %s\n", op.kind, line)
		}
		i = end
	}
	return sb.String()
}

// op is one line of the diff, with the index it has (or would have) in
// want and in got.
type op struct {
	kind   byte // ' ', '-', '+'
	text   string
	wi, gi int
}

// match aligns w and g with a longest common subsequence of lines, after
// taking off their common prefix and suffix.
func match(w, g []string) []op {
	var ops []op
	p := 0
	for p < len(w) && p < len(g) && w[p] == g[p] {
		ops = append(ops, op{' ', w[p], p, p})
		p++
	}
	s := 0
	for s < len(w)-p && s < len(g)-p && w[len(w)-1-s] == g[len(g)-1-s] {
		s++
	}
	mw, mg := w[p:len(w)-s], g[p:len(g)-s]
	ops = append(ops, middle(mw, mg, p)...)
	for k := 0; k < s; k++ {
		ops = append(ops, op{' ', w[len(w)-s+k], len(w) - s + k, len(g) - s + k})
	}
	return ops
}

// middle diffs the changed middle of the texts, which starts at line off
// of both.
func middle(w, g []string, off int) []op {
	var ops []op
	if len(w)*len(g) > maxCells {
		for i, l := range w {
			ops = append(ops, op{'-', l, off + i, off})
		}
		for i, l := range g {
			ops = append(ops, op{'+', l, off + len(w), off + i})
		}
		return ops
	}
	// lcs[i][j] is the LCS length of w[i:] and g[j:].
	lcs := make([][]int32, len(w)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(g)+1)
	}
	for i := len(w) - 1; i >= 0; i-- {
		for j := len(g) - 1; j >= 0; j-- {
			if w[i] == g[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case i < len(w) && j < len(g) && w[i] == g[j]:
			ops = append(ops, op{' ', w[i], off + i, off + j})
			i++
			j++
		case j < len(g) && (i == len(w) || lcs[i][j+1] > lcs[i+1][j]):
			ops = append(ops, op{'+', g[j], off + i, off + j})
			j++
		default:
			ops = append(ops, op{'-', w[i], off + i, off + j})
			i++
		}
	}
	return ops
}

// split splits s into lines without their newlines.
func split(s string) []string {
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func final(s string) string {
	if strings.HasSuffix(s, "\n") {
		return "ends with a newline"
	}
	return "does not"
}
