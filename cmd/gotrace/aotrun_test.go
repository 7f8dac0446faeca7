package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestParseAOTArgs: an AOT binary takes bpftrace's AOT shim options and
// named parameters, and the generation's settings from its payload.
func TestParseAOTArgs(t *testing.T) {
	p := testPayload()
	cfg, code, done := parseAOTArgs(p, "prog", []string{"-q", "-f", "json", "-o", "out", "-v", "-d", "all", "--", "--aa=20", "--dd"}, io.Discard, io.Discard)
	if done || code != 0 {
		t.Fatalf("stopped with exit %d", code)
	}
	if !cfg.fromAOT || !cfg.quiet || cfg.out.format != "json" || cfg.out.file != "out" || !cfg.out.verbose ||
		!cfg.debug["libbpf"] || !cfg.debug["verifier"] || len(cfg.debug) != 2 {
		t.Errorf("options: %+v", cfg)
	}
	if want := []string{"one", "", "--aa=20", "--dd"}; !reflect.DeepEqual(cfg.params, want) {
		t.Errorf("params %q, want %q", cfg.params, want)
	}
	if !cfg.out.unsafe || !reflect.DeepEqual(cfg.includeDirs, p.IncludeDirs) || !reflect.DeepEqual(cfg.configEnv, p.ConfigEnv) ||
		cfg.dummyTSMap != "@ts" || cfg.probeFilter != ":200" || cfg.env == nil {
		t.Errorf("payload settings: %+v", cfg)
	}
	// The embedded config is used, not this environment's.
	t.Setenv("BPFTRACE_MAX_STRLEN", "99")
	if got := compileOptions(cfg).ConfigEnv["max_strlen"]; got != "32" {
		t.Errorf("max_strlen %q, want the payload's 32", got)
	}
}

// TestParseAOTArgsStops: help, version and bad command lines, with
// bpftrace's AOT shim's messages.
func TestParseAOTArgsStops(t *testing.T) {
	for _, tc := range []struct {
		args         []string
		code         int
		stdout, errs string
	}{
		{args: []string{"--help"}, stdout: "USAGE: ./prog [options]"},
		{args: []string{"-h", "--", "--x"}, stdout: "USAGE: ./prog [options]"},
		{args: []string{"--vers"}, stdout: versionLine + "\n"},
		{args: []string{"pos"}, code: 1, errs: "ERROR: AOT does not support positional parameters\n"},
		{args: []string{"--", "--a=1", "pos"}, code: 1, errs: "ERROR: AOT does not support positional parameters\n"},
		// The options of a run that an AOT binary has not.
		{args: []string{"-c", "ls"}, code: 1, errs: "./prog: invalid option -- 'c'\nUSAGE: ./prog"},
		{args: []string{"-p", "1"}, code: 1, errs: "./prog: invalid option -- 'p'\nUSAGE: ./prog"},
		{args: []string{"-e", "begin{}"}, code: 1, errs: "./prog: invalid option -- 'e'\nUSAGE: ./prog"},
		{args: []string{"--unsafe"}, code: 1, errs: "./prog: unrecognized option '--unsafe'\n"},
		// Named parameters come after "--".
		{args: []string{"--aa=1"}, code: 1, errs: "./prog: unrecognized option '--aa=1'\n"},
		{args: []string{"-d", "ast"}, code: 1, errs: "ERROR: USAGE: invalid option for -d: ast\n"},
		{args: []string{"-f", "yaml"}, code: 1, errs: "ERROR: Invalid output format"},
	} {
		var stdout, stderr strings.Builder
		_, code, done := parseAOTArgs(testPayload(), "./prog", tc.args, &stdout, &stderr)
		if !done || code != tc.code || !strings.HasPrefix(stdout.String(), tc.stdout) || !strings.HasPrefix(stderr.String(), tc.errs) ||
			tc.stdout == "" && stdout.Len() != 0 || tc.errs == "" && stderr.Len() != 0 {
			t.Errorf("%q: done %v exit %d\nstdout %q\nstderr %q", tc.args, done, code, stdout.String(), stderr.String())
		}
	}
}

// TestCheckAOT: --aot refuses -k as bpftrace does, and -c, -p, --repl.
func TestCheckAOT(t *testing.T) {
	for _, tc := range []struct {
		args []string
		errs string
	}{
		{[]string{"-k", "-e", "p", "--aot", "f"}, "ERROR: Cannot use -k with --aot\n"},
		{[]string{"-e", "p", "--aot", "f", "--warnings"}, "ERROR: Cannot use -k with --aot\n"},
		{[]string{"-e", "p", "--aot", "f", "-c", "ls"}, "ERROR: Cannot use -c with --aot\n"},
		{[]string{"-e", "p", "--aot=f", "-p", "1"}, "ERROR: Cannot use -p with --aot\n"},
		{[]string{"--repl", "--aot", "f"}, "ERROR: Cannot use --repl with --aot\n"},
		{[]string{"-kk", "-e", "p", "--aot", "f"}, "ERROR: USAGE: -kk has been deprecated."},
	} {
		var stderr strings.Builder
		_, code, done := parseArgs(tc.args, io.Discard, &stderr)
		if !done || code != 1 || !strings.HasPrefix(stderr.String(), tc.errs) {
			t.Errorf("%q: done %v exit %d stderr %q, want %q", tc.args, done, code, stderr.String(), tc.errs)
		}
	}
	// --aot may follow the program, as in bpftrace's test.
	cfg, code, done := parseArgs([]string{"-e", "p", "--aot", "/tmp/f", "--", "--aa=1"}, io.Discard, io.Discard)
	if done || code != 0 || cfg.aot != "/tmp/f" || cfg.program != "p" || !reflect.DeepEqual(cfg.params, []string{"--aa=1"}) {
		t.Errorf("--aot after -e: %+v exit %d", cfg, code)
	}
}

// TestScriptFilesReplay: what the recording environment read is what the
// replaying one serves, and nothing else exists for it.
func TestScriptFilesReplay(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.h"), []byte("#define A 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	rec := newRecordingEnv()
	if _, err := rec.ReadScriptFile(filepath.Join(dir, "a.h")); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.ReadScriptFile(filepath.Join(dir, "none.h")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	wantStat, err := rec.StatScriptFile(filepath.Join(dir, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.ReadScriptDir(dir); err != nil {
		t.Fatal(err)
	}
	// Through the payload, with the files gone.
	p, err := decodePayload((&aotPayload{Files: rec.files}).encode())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	rep := newReplayEnv(p.Files)
	if data, err := rep.ReadScriptFile(filepath.Join(dir, "a.h")); err != nil || string(data) != "#define A 1\n" {
		t.Errorf("replayed a.h: %q, %v", data, err)
	}
	for _, path := range []string{filepath.Join(dir, "none.h"), filepath.Join(dir, "sub"), "/etc/passwd"} {
		if _, err := rep.ReadScriptFile(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("replayed read of %s: %v, want not exist", path, err)
		}
	}
	fi, err := rep.StatScriptFile(filepath.Join(dir, "sub"))
	if err != nil || fi.Name() != "sub" || fi.Mode() != wantStat.Mode() || !fi.IsDir() || !fi.ModTime().Equal(wantStat.ModTime()) {
		t.Errorf("replayed stat: %v, %v; want %v", fi, err, wantStat)
	}
	if _, err := rep.StatScriptFile(filepath.Join(dir, "a.h")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a stat not recorded: %v", err)
	}
	entries, err := rep.ReadScriptDir(dir)
	if err != nil || len(entries) != 2 || entries[0].Name() != "a.h" || entries[0].IsDir() || entries[1].Name() != "sub" || !entries[1].IsDir() {
		t.Fatalf("replayed directory: %v, %v", entries, err)
	}
	if info, err := entries[1].Info(); err != nil || info.Mode() != wantStat.Mode() {
		t.Errorf("replayed entry info: %v, %v", info, err)
	}
}
