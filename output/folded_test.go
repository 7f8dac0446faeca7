package output

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/types"
)

// TestWriteMapFolded: a map keyed by a comm and a stack prints one folded
// line per entry, outermost frame first, in the text format's order; a map
// without a stack prints as text.
func TestWriteMapFolded(t *testing.T) {
	f := NewFormatter()
	f.Stack = func(_ *types.Type, id, _ uint64) string {
		// bpftrace's text: innermost frame first, one per line.
		return fmt.Sprintf("\n\tinner%d+1\n\tmid;dle\n\touter\n", id)
	}
	stack := types.NewStack(false, 127)
	m := newMap("@", countT, str4, stack)
	key := func(comm string, id uint64) []byte {
		k := append([]byte(comm), make([]byte, 4-len(comm))...)
		k = append(k, make([]byte, 4)...) // the stack's alignment
		return append(k, u64(id)...)
	}
	entries := []Entry{
		{Key: key("sh", 1), Values: [][]byte{u64(3), u64(4)}},
		{Key: key("cat", 2), Values: [][]byte{u64(2)}},
	}
	if !Folded(m) {
		t.Fatal("a count keyed by a stack is not folded")
	}
	var b strings.Builder
	if err := f.WriteMapFolded(&b, m, entries, MapOptions{}); err != nil {
		t.Fatal(err)
	}
	want := "cat;outer;mid:dle;inner2+1 2\nsh;outer;mid:dle;inner1+1 7\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	plain := newMap("@c", countT, str4)
	b.Reset()
	if err := f.WriteMapFolded(&b, plain, []Entry{{Key: key("sh", 0)[:4], Values: [][]byte{u64(1)}}}, MapOptions{}); err != nil {
		t.Fatal(err)
	}
	if b.String() != "@c[sh]: 1\n" {
		t.Errorf("a map without a stack: got %q", b.String())
	}
}

func TestParseFolded(t *testing.T) {
	if f, err := ParseOutputFormat("folded"); err != nil || f != FormatFolded {
		t.Fatalf("got %v, %v", f, err)
	}
}
