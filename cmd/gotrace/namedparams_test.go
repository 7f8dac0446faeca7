package main

import (
	"strings"
	"testing"
)

func TestCheckNamedParams(t *testing.T) {
	getopts := map[string]string{"aa": "Description of aa", "bb": ""}
	for _, tc := range []struct {
		params []string
		ok     bool
		out    string
	}{
		{[]string{"pos", "--aa=1", "--bb"}, true, ""},
		{[]string{"--cc", "--dd=2"}, false, "ERROR: unexpected program command line options: --cc, --dd\nHINT: expected program options: --aa: --bb\n"},
		{[]string{"--help"}, false, "HINT: expected program options:\n--aa: Description of aa\n--bb\n"},
	} {
		var w strings.Builder
		if ok := checkNamedParams(&w, tc.params, getopts); ok != tc.ok || w.String() != tc.out {
			t.Errorf("%q: %v %q, want %v %q", tc.params, ok, w.String(), tc.ok, tc.out)
		}
	}
	var w strings.Builder
	if checkNamedParams(&w, []string{"--x"}, nil) || w.String() != "ERROR: unexpected program command line options: --x\nHINT: no custom program options defined.\n" {
		t.Errorf("no getopt: %q", w.String())
	}
}

func TestNoWarnings(t *testing.T) {
	var w strings.Builder
	nw := &noWarnings{w: &w}
	for _, s := range []string{"Attaching 1 probe...\n", "WARNING: x\n", "stdin:1:2-3: WARNING: y\nERROR: z\n", "-e:1:2: warning: kept\n"} {
		if n, err := nw.Write([]byte(s)); n != len(s) || err != nil {
			t.Errorf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if want := "Attaching 1 probe...\nERROR: z\n-e:1:2: warning: kept\n"; w.String() != want {
		t.Errorf("got %q, want %q", w.String(), want)
	}
}
