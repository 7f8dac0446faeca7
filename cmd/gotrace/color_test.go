package main

import (
	"bytes"
	"os"
	"testing"
)

// TestColorWriter: the message line of an error is red and of a warning
// yellow, whatever the writes' boundaries; the source and caret lines and
// other output are left alone.
func TestColorWriter(t *testing.T) {
	var out bytes.Buffer
	cw := &colorWriter{w: &out}
	in := "stdin:1:14-22: ERROR: unknown function nosuch()\nbegin { @x = nosuch(); }\n             ~~~~~~~~\nAttached 1 probe\nWARNING: careful\nbegin { printf(\"ERROR: no\"); }\nERROR: last"
	for i := 0; i < len(in); i += 7 {
		if _, err := cw.Write([]byte(in[i:min(i+7, len(in))])); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Flush(); err != nil {
		t.Fatal(err)
	}
	want := "\033[31mstdin:1:14-22: ERROR: unknown function nosuch()\033[0m\nbegin { @x = nosuch(); }\n             ~~~~~~~~\nAttached 1 probe\n\033[33mWARNING: careful\033[0m\nbegin { printf(\"ERROR: no\"); }\n\033[31mERROR: last\033[0m"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
}

// TestColorize: BPFTRACE_COLOR always and never decide; auto (and an
// invalid value, with a warning) colours only terminals.
func TestColorize(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for mode, want := range map[string]bool{"always": true, "never": false, "auto": false, "": false, "bogus": false} {
		t.Setenv(colorEnv, mode)
		if got := colorize(f, f); got != want {
			t.Errorf("%s=%q: colorize %v, want %v", colorEnv, mode, got, want)
		}
	}
	data, _ := os.ReadFile(f.Name())
	if !bytes.Contains(data, []byte("WARNING: Invalid env value! The valid values of `BPFTRACE_COLOR` are [auto|always|never]. The current value is bogus!")) {
		t.Errorf("no warning for an invalid value: %q", data)
	}
}
