package langtest

import (
	"sort"
	"testing"

	"github.com/gotrace/gotrace/lang/syntax"
)

// LineIndex maps byte offsets to lines and columns in O(log n).
type LineIndex []int // offsets at which lines start

// NewLineIndex indexes the lines of src.
func NewLineIndex(src string) LineIndex {
	idx := LineIndex{0}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

// LineCol returns the 1-based line and column of byte offset off.
func (idx LineIndex) LineCol(off int) (int, int) {
	i := sort.Search(len(idx), func(i int) bool { return idx[i] > off }) - 1
	return i + 1, off - idx[i] + 1
}

// ErrorPos verifies that every error's offset, line and column agree.
func ErrorPos(t *testing.T, src string, list syntax.ErrorList) {
	t.Helper()
	idx := NewLineIndex(src)
	for _, e := range list {
		if e.Pos.Line < 1 || e.Pos.Column < 1 || e.Pos.Offset < 0 || e.Pos.Offset > len(src) {
			t.Errorf("error %v has an invalid position %+v", e, e.Pos)
			continue
		}
		if line, col := idx.LineCol(e.Pos.Offset); line != e.Pos.Line || col != e.Pos.Column {
			t.Errorf("error %v: offset %d is %d:%d", e, e.Pos.Offset, line, col)
		}
	}
}
