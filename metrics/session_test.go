package metrics

import (
	"testing"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// TestSessionSourceOnly: Only restricts the maps a SessionSource shows and
// reads, asked again at each call (a REPL's entries come and go); nil
// shows them all.
func TestSessionSourceOnly(t *testing.T) {
	count := &types.Type{Kind: types.Count, Size: 8}
	src := NewSessionSource(&object.Program{Maps: []*object.Map{
		{Name: "@a", Value: count}, {Name: "@b", Value: count},
	}})
	names := func() []string {
		var out []string
		for _, m := range src.Maps() {
			out = append(out, m.Name)
		}
		return out
	}
	if got := names(); len(got) != 2 {
		t.Fatalf("maps %v, want @a and @b", got)
	}
	live := map[string]bool{"@b": true}
	src.Only(func(name string) bool { return live[name] })
	if got := names(); len(got) != 1 || got[0] != "@b" {
		t.Errorf("maps %v with only @b live, want [@b]", got)
	}
	live["@a"], live["@b"] = true, false
	if got := names(); len(got) != 1 || got[0] != "@a" {
		t.Errorf("maps %v with only @a live, want [@a]", got)
	}
	if es, err := src.Read("@b"); es != nil || err != nil {
		t.Errorf("Read of a map left out: %v, %v", es, err)
	}
	src.Only(nil)
	if got := names(); len(got) != 2 {
		t.Errorf("maps %v after Only(nil), want both", got)
	}
}
