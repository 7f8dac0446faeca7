package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	gt "github.com/gotrace/gotrace"
)

// runBin runs an AOT binary to completion with a timeout.
func runBin(t *testing.T, env []string, bin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	got := runCmd(t, cmd)
	if ctx.Err() != nil {
		t.Fatalf("%s %q timed out; stderr:\n%s", bin, args, got.stderr)
	}
	return got
}

// generate runs `gotrace args... --aot FILE` in a temporary directory and
// returns FILE; it must succeed silently.
func generate(t *testing.T, args ...string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "prog")
	got := run(t, append(args, "--aot", bin)...)
	if got.code != 0 || got.stdout != "" || got.stderr != "" {
		t.Fatalf("gotrace %q --aot: exit %d\nstdout %q\nstderr %q", args, got.code, got.stdout, got.stderr)
	}
	fi, err := os.Stat(bin)
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("the AOT binary: %v, %v", fi, err)
	}
	return bin
}

// TestAOTNamedParams is bpftrace's "named command line params aot": the
// binary takes the script's named parameters after "--".
func TestAOTNamedParams(t *testing.T) {
	// --aot may come after the program, as in bpftrace's test.
	bin := generate(t, "-e", `begin { print((getopt("aa", 10), getopt("cc", true), getopt("dd"), getopt("ee", "hello"))); }`)
	got := runBin(t, nil, bin, "--", "--dd", "--aa=20", "--cc=False")
	wantOutput(t, got, "(20, false, true, hello)\n\n\n", 0)
	if got.stderr != "Attached 1 probe\n" {
		t.Errorf("stderr %q", got.stderr)
	}
	wantOutput(t, runBin(t, nil, bin), "(10, true, false, hello)\n\n\n", 0)
	// -- --help lists the script's parameters; others are errors.
	got = runBin(t, nil, bin, "--", "--help")
	if got.code != 1 || got.stderr != "HINT: expected program options:\n--aa\n--cc\n--dd\n--ee\n" {
		t.Errorf("-- --help: exit %d stderr %q", got.code, got.stderr)
	}
	got = runBin(t, nil, bin, "--", "--zz=1")
	if got.code != 1 || !strings.HasPrefix(got.stderr, "ERROR: unexpected program command line options: --zz\n") {
		t.Errorf("-- --zz=1: exit %d stderr %q", got.code, got.stderr)
	}
}

// TestAOTScriptFile: a binary from a script file keeps the script, its
// positional parameters and the generating environment's config, needs the
// file no more, and its errors still name it.
func TestAOTScriptFile(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "x.bt")
	src := "begin {\n  printf(\"%s %d %s\\n\", $1, getopt(\"n\", 1), str(\"abcdefghij\"));\n  exit();\n}\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "prog")
	gen := exec.Command(gotrace(t), script, "--aot", bin, "baked")
	gen.Env = append(os.Environ(), "BPFTRACE_MAX_STRLEN=8")
	if got := runCmd(t, gen); got.code != 0 || got.stdout != "" || got.stderr != "" {
		t.Fatalf("--aot: %+v", got)
	}
	if err := os.Remove(script); err != nil {
		t.Fatal(err)
	}
	// The config is the generation's, whatever the binary's environment.
	wantOutput(t, runBin(t, []string{"BPFTRACE_MAX_STRLEN=64"}, bin, "-q", "--", "--n=3"), "baked 3 abcdefgh..\n\n\n", 0)

	// An uprobe target that is gone when the binary runs: the error is
	// positioned in the script, under its name.
	target := filepath.Join(dir, "target")
	if err := os.Link(gotrace(t), target); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte("uprobe:"+target+":main.main { exit(); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin = generate(t, script)
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	got := runBin(t, nil, bin)
	if got.code != 1 || !regexp.MustCompile(`^`+regexp.QuoteMeta(script)+`:1:1-\d+: ERROR: .*\nuprobe:`).MatchString(got.stderr) {
		t.Errorf("missing target: exit %d stderr %q", got.code, got.stderr)
	}
}

// TestAOTOutputOptions: -q, -f json and -o are the binary's own.
func TestAOTOutputOptions(t *testing.T) {
	bin := generate(t, "-e", `begin { @n = getopt("n", 1); printf("n=%d\n", @n); exit(); }`)
	got := runBin(t, nil, bin, "-q", "-f", "json", "--", "--n=5")
	wantOutput(t, got, "{\"type\": \"printf\", \"data\": \"n=5\\n\"}\n{\"type\": \"map\", \"data\": {\"@n\": 5}}\n", 0)
	if got.stderr != "" {
		t.Errorf("-q: stderr %q", got.stderr)
	}
	out := filepath.Join(t.TempDir(), "out")
	wantOutput(t, runBin(t, nil, bin, "-qo", out), "", 0)
	if data, err := os.ReadFile(out); err != nil || string(data) != "n=1\n\n\n@n: 1\n" {
		t.Errorf("-o: %q, %v", data, err)
	}
}

// TestAOTCommandLine: the binary's help and version, and what it refuses:
// positional parameters, the options it has not (as bpftrace's AOT shim).
func TestAOTCommandLine(t *testing.T) {
	bin := generate(t, "-e", `begin { exit(); }`)
	got := runBin(t, nil, bin, "--help")
	if got.code != 0 || !strings.HasPrefix(got.stdout, "USAGE: "+bin+" [options]") || !strings.Contains(got.stdout, "\n    -f FORMAT ") || got.stderr != "" {
		t.Errorf("--help: %+v", got)
	}
	if got := runBin(t, nil, bin, "-V"); got.code != 0 || !regexp.MustCompile(`^bpftrace v\d+\.\d+\.\d+ compatible \(gotrace v\d+\.\d+\.\d+\)\n$`).MatchString(got.stdout) {
		t.Errorf("-V: %+v", got)
	}
	got = runBin(t, nil, bin, "7")
	if got.code != 1 || got.stdout != "" || got.stderr != "ERROR: AOT does not support positional parameters\n" {
		t.Errorf("a positional parameter: %+v", got)
	}
	for _, args := range [][]string{{"-c", "true"}, {"-p", "1"}, {"-e", "begin {}"}} {
		got = runBin(t, nil, bin, args...)
		if want := bin + ": invalid option -- '" + args[0][1:] + "'\nUSAGE: " + bin + " [options]"; got.code != 1 || !strings.HasPrefix(got.stderr, want) {
			t.Errorf("%q: exit %d stderr %q, want %q...", args, got.code, got.stderr, want)
		}
	}
}

// TestAOTGenerationErrors: what --aot refuses, and a script with errors,
// leave no file.
func TestAOTGenerationErrors(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "prog")
	for _, tc := range []struct {
		args []string
		errs string
	}{
		{[]string{"-k", "-e", `begin { exit(); }`}, "ERROR: Cannot use -k with --aot\n"},
		{[]string{"-e", `begin { exit(); }`, "-c", "true"}, "ERROR: Cannot use -c with --aot\n"},
		{[]string{"-e", "begin { @x = nope; }"}, "stdin:1:14-18: ERROR: unknown identifier \"nope\"\nbegin { @x = nope; }\n             ~~~~\n"},
	} {
		got := run(t, append(tc.args, "--aot", bin)...)
		if got.code != 1 || got.stdout != "" || got.stderr != tc.errs {
			t.Errorf("%q: exit %d stdout %q\nstderr %q\nwant   %q", tc.args, got.code, got.stdout, got.stderr, tc.errs)
		}
		if _, err := os.Stat(bin); !os.IsNotExist(err) {
			t.Errorf("%q: %s was written", tc.args, bin)
		}
	}
	got := run(t, "-e", `begin { exit(); }`, "--aot", "/nonexistent/prog")
	if got.code != 1 || got.stderr != "ERROR: failed to write '/nonexistent/prog': No such file or directory\n" {
		t.Errorf("a missing directory: %+v", got)
	}
	// Nothing but a regular file is replaced: a device node or a FIFO at
	// the path stays what it was.
	dir := t.TempDir()
	null, fifo := filepath.Join(dir, "null"), filepath.Join(dir, "fifo")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // /dev/null's 1:3
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{null, fifo} {
		fi, _ := os.Lstat(p)
		got := run(t, "-e", `begin { exit(); }`, "--aot", p)
		if got.code != 1 || got.stderr != "ERROR: failed to write '"+p+"': not a regular file\n" {
			t.Errorf("--aot %s: %+v", p, got)
		}
		if now, err := os.Lstat(p); err != nil || now.Mode() != fi.Mode() {
			t.Errorf("--aot %s: was %v, now %v %v", p, fi.Mode(), now.Mode(), err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("files left in %s: %v", dir, entries)
	}
}

// TestAOTHeaders: the headers a script includes (-I, --include, #include)
// are read at generation; the binary carries them.
func TestAOTHeaders(t *testing.T) {
	dir := t.TempDir()
	inc := filepath.Join(dir, "inc")
	if err := os.Mkdir(inc, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		filepath.Join(dir, "local.h"): "#define LOCAL 1\n",
		filepath.Join(inc, "dir.h"):   "#define DIR 2\n",
		filepath.Join(inc, "pre.h"):   "#define PRE 3\n",
		filepath.Join(dir, "x.bt"):    "#include \"local.h\"\n#include <dir.h>\nbegin { printf(\"%d %d %d\\n\", LOCAL, DIR, PRE); exit(); }\n",
	} {
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := generate(t, "-I", inc, "--include", "pre.h", filepath.Join(dir, "x.bt"))
	wantOutput(t, runBin(t, nil, bin, "-q"), "1 2 3\n\n\n", 0)
	// The checker reads the script's files through its environment
	// (preamble.ScriptFiles) when the kernel's environment has the methods;
	// before that it reads the host's files itself, and the binary needs
	// the headers still.
	if _, ok := any(gt.NewKernelEnv()).(interface{ ReadScriptFile(string) ([]byte, error) }); !ok {
		t.Skip("the checker reads headers from the host: preamble.ScriptFiles is not there yet")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	wantOutput(t, runBin(t, nil, bin, "-q"), "1 2 3\n\n\n", 0)
}
