package format

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	f := Parse("a%-+ #012.5llxb%%c%rhd%0-5d%*.*s%")
	want := &Format{
		Fragments: []string{"a", "b%c", "d%0-5d", "%"},
		Specs: []Spec{
			{Left: true, Plus: true, Space: true, Alt: true, Zero: true, Width: 12, Precision: 5, Length: "ll", Verb: "x"},
			{Precision: -1, Verb: "rh"},
			{Precision: -1, Verb: "s"},
		},
		Offsets: []int{1, 18, 27},
		Texts:   []string{"%-+ #012.5llx", "%rh", "%*.*s"},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("Parse:\n got %+v\nwant %+v", f, want)
	}
}

func TestCheck(t *testing.T) {
	for fs, want := range map[string]int{
		"%d %s %rx %p %c %u":     0,
		"%f %e %g %n":            4,
		"%gr %x":                 0,
		"%4096d %.4096s":         0,
		"%4097d %.4097s":         2,
		"%99999999999999999999d": 1,
	} {
		if got := len(Parse(fs).Check()); got != want {
			t.Errorf("Check(%q): %d errors, want %d", fs, got, want)
		}
	}
}
