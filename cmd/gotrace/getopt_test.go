package main

import (
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestParseArgs: the command line is read as bpftrace's getopt_long with
// permutation reads it.
func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		file   string
		prog   string
		params []string
		check  func(*config) bool
	}{
		// Options after the script file are options.
		{args: []string{"x.bt", "-p", "1"}, file: "x.bt", check: func(c *config) bool { return c.out.pidN == 1 }},
		{args: []string{"x.bt", "a", "-q", "b"}, file: "x.bt", params: []string{"a", "b"}, check: func(c *config) bool { return c.quiet }},
		// "--" ends the options and is not a parameter; named
		// parameters come after it.
		{args: []string{"-e", "p", "pos1", "--", "--aa=20", "pos2", "-q"}, prog: "p", params: []string{"pos1", "--aa=20", "pos2", "-q"},
			check: func(c *config) bool { return !c.quiet }},
		{args: []string{"--", "x.bt", "-p"}, file: "x.bt", params: []string{"-p"}},
		// Clustered short options, attached arguments, long forms.
		{args: []string{"-qe", "p"}, prog: "p", check: func(c *config) bool { return c.quiet }},
		{args: []string{"-kp1", "-ep"}, prog: "p", check: func(c *config) bool { return c.out.warnings && c.out.pidN == 1 }},
		{args: []string{"--quiet", "--pid=7", "--probe-filter", ":200", "-e", "p"}, prog: "p",
			check: func(c *config) bool { return c.quiet && c.out.pidN == 7 && c.probeFilter == ":200" }},
		// A unique prefix of a long option.
		{args: []string{"--unsa", "-e", "p"}, prog: "p", check: func(c *config) bool { return c.out.unsafe }},
		// The last -e wins, as in bpftrace.
		{args: []string{"-e", "a", "-e", "b"}, prog: "b"},
		// -d takes bpftrace's stage names; --dry-run is separate.
		{args: []string{"-d", "codegen,verifier", "--dry-run", "-e", "p"}, prog: "p",
			check: func(c *config) bool { return c.debug["codegen"] && c.debug["verifier"] && !c.debug["ast"] && c.dryRun }},
		{args: []string{"--debug=all", "-e", "p"}, prog: "p", check: func(c *config) bool { return c.debug["ast"] && !c.dryRun }},
		// -l, with -v after the pattern, and with a program.
		{args: []string{"-l", "tracepoint:*", "-v"}, check: func(c *config) bool { return c.list && c.listV && c.search == "tracepoint:*" }},
		{args: []string{"-lv", "-e", "p"}, prog: "p", check: func(c *config) bool { return c.list && c.listV && c.search == "" }},
		{args: []string{"--list", "-e", "p", "--no-warnings"}, prog: "p", check: func(c *config) bool { return c.list && c.out.noWarnings }},
	} {
		cfg, code, done := parseArgs(tc.args, io.Discard, io.Discard)
		if done || code != 0 {
			t.Errorf("%q: stopped with exit %d", tc.args, code)
			continue
		}
		if cfg.file != tc.file || cfg.program != tc.prog || (len(cfg.params) != 0 || len(tc.params) != 0) && !reflect.DeepEqual(cfg.params, tc.params) {
			t.Errorf("%q: file %q program %q params %q; want %q %q %q", tc.args, cfg.file, cfg.program, cfg.params, tc.file, tc.prog, tc.params)
		}
		if tc.check != nil && !tc.check(cfg) {
			t.Errorf("%q: options not set: %+v", tc.args, cfg)
		}
	}
}

// TestParseArgsErrors: bad command lines stop with bpftrace's messages.
func TestParseArgsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-e", "p", "--aa=20"}, "unrecognized option '--aa=20'"},
		{[]string{"-e", "p", "--ver"}, "option '--ver' is ambiguous"},
		{[]string{"-x", "-e", "p"}, "invalid option -- 'x'"},
		{[]string{"-e"}, "option requires an argument -- 'e'"},
		{[]string{"--pid"}, "option '--pid' requires an argument"},
		{[]string{"--unsafe=1", "-e", "p"}, "option '--unsafe' doesn't allow an argument"},
		{[]string{"-d", "bogus", "-e", "p"}, "ERROR: USAGE: invalid option for -d: bogus"},
		{[]string{"-p", "a1111", "x.bt"}, "ERROR: Failed to parse pid: invalid integer: a1111"},
		{[]string{"-p", "111a1", "x.bt"}, "ERROR: Failed to parse pid: invalid trailing bytes: 111a1"},
		{[]string{"-p", "5000000", "x.bt"}, "ERROR: Pid out of range: 5000000"},
		{[]string{"-k", "--no-warnings", "-e", "p"}, "ERROR: USAGE: -k, --warnings conflicts with --no-warnings"},
		{[]string{"-kk", "-e", "p"}, "ERROR: USAGE: -kk has been deprecated."},
		{[]string{"-q"}, "ERROR: USAGE: filename or -e 'program' required."},
		{[]string{"-l", "a", "b"}, "USAGE:"},
	} {
		var stderr strings.Builder
		_, code, done := parseArgs(tc.args, io.Discard, &stderr)
		if !done || code != 1 || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%q: exit %d (done %v), stderr %q; want exit 1 and %q", tc.args, code, done, stderr.String(), tc.msg)
		}
	}
}

// TestHelpVersion: -h and -V print to stdout and stop.
func TestHelpVersion(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-V"}, {"--version"}, {"-e", "p", "-V"}} {
		var stdout, stderr strings.Builder
		_, code, done := parseArgs(args, &stdout, &stderr)
		if !done || code != 0 || stdout.Len() == 0 || stderr.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
		}
	}
}
