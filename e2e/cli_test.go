package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotrace/gotrace/internal/difftest"
)

func TestStdinProgramAndQuiet(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gotrace(t), "-q", "-", "7")
	cmd.Stdin = strings.NewReader(`BEGIN { printf("param %d\n", $1); exit(); }`)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if string(out) != "param 7\n\n\n" || stderr.String() != "" {
		t.Errorf("stdout %q stderr %q", out, stderr.String())
	}
}

func TestHelpAndVersion(t *testing.T) {
	// Both print to stdout, as bpftrace's do.
	if got := run(t, "--version"); got.code != 0 || !regexp.MustCompile(`^bpftrace v\d+\.\d+\.\d+ compatible \(gotrace v\d+\.\d+\.\d+\)\n$`).MatchString(got.stdout) {
		t.Errorf("--version: %+v", got)
	}
	if got := run(t, "--help"); got.code != 0 || !strings.Contains(got.stdout, "USAGE:") {
		t.Errorf("--help: %+v", got)
	}
	if got := run(t); got.code != 1 || !strings.Contains(got.stderr, "USAGE:") {
		t.Errorf("no arguments: %+v", got)
	}
	if got := run(t, "/nonexistent/script.bt"); got.code != 1 || got.stderr != "ERROR: failed to open file '/nonexistent/script.bt': No such file or directory\n" {
		t.Errorf("missing file: %+v", got)
	}
}

// TestSIGTERM: SIGTERM runs END and prints the maps, like SIGINT.
func TestSIGTERM(t *testing.T) {
	s := startNoWait(t, "-e", `interval:s:100 { exit(); } END { printf("end\n"); @x = 1; }`)
	s.waitLinks(1, 20*time.Second)
	got := s.stop(syscall.SIGTERM)
	wantOutput(t, got, "end\n\n\n@x: 1\n", 0)
}

func TestTime(t *testing.T) {
	got := run(t, "-e", `BEGIN { time(); time("%Y-%m-%d\n"); exit(); }`)
	if !regexp.MustCompile(`^\d\d:\d\d:\d\d\n\d{4}-\d\d-\d\d\n\n\n$`).MatchString(got.stdout) {
		t.Errorf("time output %q", got.stdout)
	}
}

// TestProfileAndSoftware: profile and software probes fire on this kernel.
func TestProfileAndSoftware(t *testing.T) {
	got := run(t, "-e", `profile:hz:997 { @p = count(); } software:cpu-clock:100000 { @s = count(); } interval:ms:200 { exit(); }`)
	if got.code != 0 || !regexp.MustCompile(`(?m)^@p: [1-9]\d*\n@s: [1-9]\d*\n$`).MatchString(got.stdout) {
		t.Errorf("exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
}

// TestKstack: kstack keys print symbolized kernel frames.
func TestKstack(t *testing.T) {
	s := startNoWait(t, "-e", `tracepoint:syscalls:sys_enter_getppid /pid == $1/ { @[kstack] = count(); @two[kstack(2)] = count(); }`, fmt.Sprint(os.Getpid()))
	s.waitLinks(1, 20*time.Second)
	getppidN(10)
	got := s.stop(syscall.SIGINT)
	if !regexp.MustCompile(`(?s)@\[\n(        [a-z_0-9.]+\+\d+\n)*        do_syscall_64\+\d+\n.*\]: 10\n`).MatchString(got.stdout) {
		t.Errorf("no symbolized stack with do_syscall_64 counted 10 times:\n%s", got.stdout)
	}
	if !regexp.MustCompile(`(?m)^@two\[\n        \S+\n        \S+\n\]: 10$`).MatchString(got.stdout) {
		t.Errorf("kstack(2) should print two frames:\n%s", got.stdout)
	}
}

// TestMapFull: updates a full map drops are counted and reported per map.
func TestMapFull(t *testing.T) {
	got := run(t, "-e", `config = { max_map_keys = 4 } BEGIN { for ($i : 0..10) { @m[$i] = $i; } exit(); }`)
	want := "WARNING: Map full; can't update element of @m (4 entries): 6 updates were dropped; raise max_map_keys or declare it larger, e.g. let @m = hash(8);\n"
	if got.code != 0 || !strings.Contains(got.stderr, want) || !strings.Contains(got.stdout, "@m[3]: 3\n") {
		t.Errorf("exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
}

// TestEnvAndNamedParams: BPFTRACE_MAX_STRLEN, -I/--include (headers are not
// needed), and getopt() with --name=value parameters after the script.
func TestEnvAndNamedParams(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gotrace(t), "-I", "/nonexistent", "--include", "linux/sched.h", "-e",
		`macro depth() { getopt("depth", 3) } BEGIN { @s = str("abcdefghijkl"); printf("%d %d\n", depth, getopt("flag")); exit(); }`,
		"--", "--depth=10", "--flag")
	cmd.Env = append(os.Environ(), "BPFTRACE_MAX_STRLEN=8")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != "10 1\n\n\n@s: abcdefgh..\n" {
		t.Errorf("stdout %q", out)
	}
	got := run(t, "-e", `begin { print(getopt("aa", 10)); }`, "--", "--aa=False")
	if want := "ERROR: program command line option --aa invalid integer (value: False)\n"; got.code != 1 || got.stderr != want {
		t.Errorf("a bad integer option: exit %d, stderr %q, want %q", got.code, got.stderr, want)
	}
}

// TestHelperWarnings: -k reports failing probe reads as bpftrace 0.26
// does: at the expression that read (a dereference, a member access
// starting at its base without the parentheses around it, a call), with
// the helper, its code and the source line; -f json gives the position.
func TestHelperWarnings(t *testing.T) {
	got := run(t, "-k", "-e", `BEGIN { @x = *kptr((uint64 *)16); exit(); }`)
	if got.code != 0 || !regexp.MustCompile(`stdin:1:14-33: WARNING: .*\nAdditional Info - helper: probe_read_kernel, retcode: -\d+\n`).MatchString(got.stderr) {
		t.Errorf("exit %d stderr %q", got.code, got.stderr)
	}
	// A pointer made from an integer in BEGIN has no address space, so
	// it is read with probe_read, as in bpftrace.
	script := `struct foo {int a;}; begin { $tmp = ((struct foo*) 0).a; @x = *(uint64 *)16; exit(); }`
	got = run(t, "-k", "-e", script)
	want := "Attached 1 probe\n" +
		"stdin:1:38-56: WARNING: Bad address\nAdditional Info - helper: probe_read, retcode: -14\n" +
		script + "\n" + strings.Repeat(" ", 37) + strings.Repeat("~", 18) + "\n" +
		"stdin:1:63-76: WARNING: Bad address\nAdditional Info - helper: probe_read, retcode: -14\n" +
		script + "\n" + strings.Repeat(" ", 62) + strings.Repeat("~", 13) + "\n"
	if got.code != 0 || got.stderr != want {
		t.Errorf("exit %d stderr:\n%s\nwant:\n%s", got.code, got.stderr, want)
	}
	if got := run(t, "-e", script); strings.Contains(got.stderr, "WARNING") {
		t.Errorf("warnings without -k: %q", got.stderr)
	}
	// -f json reports them as helper_error records.
	got = run(t, "-k", "-q", "-f", "json", "-e", script)
	want = `{"type": "helper_error", "msg": "Bad address", "helper": "probe_read", "retcode": -14, "filename": "stdin", "line": 1, "col": 38}` + "\n" +
		`{"type": "helper_error", "msg": "Bad address", "helper": "probe_read", "retcode": -14, "filename": "stdin", "line": 1, "col": 63}` + "\n"
	if !strings.HasPrefix(got.stdout, want) {
		t.Errorf("-f json: stdout %q, want it to start with %q", got.stdout, want)
	}
}

// TestLookupMissWarning: -k reports reads of map keys that do not exist,
// with the map access and its source line, as bpftrace 0.26.
func TestLookupMissWarning(t *testing.T) {
	script := `BEGIN { @[1] = 1; @x[1]++; printf("%d %d %d\n", @[2], @[1], @x[1]); exit(); }`
	got := run(t, "-k", "-e", script)
	wantOutput(t, got, "0 1 1\n\n\n@[1]: 1\n@x[1]: 1\n", 0)
	want := "stdin:1:49-53: WARNING: Can't lookup map element because it does not exist.\n" +
		"Additional Info - helper: map_lookup_elem, retcode: 0\n" +
		script + "\n" + strings.Repeat(" ", 48) + "~~~~\n"
	if !strings.Contains(got.stderr, want) || strings.Count(got.stderr, "WARNING") != 1 {
		t.Errorf("stderr %q, want one warning:\n%s", got.stderr, want)
	}
	got = run(t, "-k", "-q", "-f", "json", "-e", script)
	if want := `{"type": "helper_error", "msg": "Success", "helper": "map_lookup_elem", "retcode": 0, "filename": "stdin", "line": 1, "col": 49}` + "\n"; !strings.HasPrefix(got.stdout, want) {
		t.Errorf("-f json: stdout %q, want it to start with %q", got.stdout, want)
	}
	if got := run(t, "-e", script); strings.Contains(got.stderr, "WARNING") {
		t.Errorf("warnings without -k: %q", got.stderr)
	}
}

// TestREPL feeds the interactive mode from a pipe: an expression, a
// statement, a multi-line program, an error, then \q.
func TestREPL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gotrace(t), "--repl")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	cmd.Stdin = strings.NewReader("1 + 2\n@x = 6 * 7\nBEGIN {\n  printf(\"multi\\n\"); exit();\n}\n@bad = ;\n\\q\nprintf(\"not reached\\n\")\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	for _, want := range []string{"3\n", "@x: 42\n", "multi\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "not reached") {
		t.Errorf("\\q did not quit:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "stdin:1:") || !strings.Contains(stderr.String(), "ERROR: unexpected token") {
		t.Errorf("stderr lacks the positioned error:\n%s", stderr.String())
	}
}

// TestCgroupPath: cgroup_path() resolves ids in the mounted hierarchies,
// as bpftrace 0.27 prints them: "name:/path" joined by ",", cgroup v2
// ("unified") first, then v1 by name, each hierarchy once.
func TestCgroupPath(t *testing.T) {
	got := run(t, "-e", `BEGIN { print(cgroup_path(cgroup)); exit(); }`)
	line, _, _ := strings.Cut(got.stdout, "\n")
	if got.code != 0 || !regexp.MustCompile(`^([a-z_.,-]+:/[^:\n]*,)*[a-z_.,-]+:/[^:\n]*$`).MatchString(line) {
		t.Fatalf("exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
	var names []string
	for _, p := range regexp.MustCompile(`(?:^|,)([a-z_.-]+(?:,[a-z_.-]+)*):/`).FindAllStringSubmatch(line, -1) {
		names = append(names, p[1])
	}
	v1 := names
	if len(names) > 0 && names[0] == "unified" {
		v1 = names[1:]
	}
	if !slices.IsSorted(v1) || slices.Contains(v1, "unified") || len(slices.Compact(slices.Clone(v1))) != len(v1) {
		t.Errorf("hierarchies %q: want unified first, then the others sorted, each once", names)
	}
}

// TestTseries: a time series of a counter, charted at exit.
func TestTseries(t *testing.T) {
	got := run(t, "-e", `i:ms:20 { @n++; @ts = tseries(@n, 100ms, 3, "max"); if (@n == 25) { exit(); } }`)
	chart := regexp.MustCompile(`(?m)^@ts:
 {13}\d+ +\d+
hh:mm:ss\.ms  \|_{51}\|
(\d\d:\d\d:\d\d\.\d00 [|*.]( |\*)*[|*] \d+\n){2,3} {13}v_{51}v
 {13}\d+ +\d+
$`)
	if got.code != 0 || !chart.MatchString(got.stdout) {
		t.Errorf("exit %d stdout:\n%s\nstderr:\n%s", got.code, got.stdout, got.stderr)
	}
}

// TestTseriesJSON: tseries maps in JSON are lists of intervals.
func TestTseriesJSON(t *testing.T) {
	got := run(t, "-f", "json", "-e", `i:ms:20 { @n++; @ts = tseries(@n, 100ms, 3); if (@n == 10) { exit(); } }`)
	re := regexp.MustCompile(`(?m)^\{"type": "tseries", "data": \{"@ts": \[(\{"interval_start":"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}","value":\d+\},?){1,3}\]\}\}$`)
	if got.code != 0 || !re.MatchString(got.stdout) {
		t.Errorf("exit %d stdout:\n%s", got.code, got.stdout)
	}
}

// TestConfigEnv: BPFTRACE_<CONFIG> variables set config defaults; a bad
// value is an error naming the variable.
func TestConfigEnv(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gotrace(t), "-e", `BEGIN { @x = 1; printf("%s\n", str("abcdefghij")); exit(); }`)
	cmd.Env = append(os.Environ(), "BPFTRACE_MAX_STRLEN=8", "BPFTRACE_PRINT_MAPS_ON_EXIT=false")
	out, err := cmd.Output()
	if err != nil || string(out) != "abcdefgh..\n\n\n" {
		t.Errorf("stdout %q, err %v", out, err)
	}
	cmd = exec.CommandContext(ctx, gotrace(t), "-e", `BEGIN { exit(); }`)
	cmd.Env = append(os.Environ(), "BPFTRACE_STACK_MODE=bogus")
	msg, _ := cmd.CombinedOutput()
	if !strings.Contains(string(msg), "BPFTRACE_STACK_MODE: ERROR: Invalid value for stack_mode: valid values are bpftrace, raw, perf, and build_id.") {
		t.Errorf("output %q", msg)
	}
}

// TestUnprivileged runs gotrace as nobody: every run that needs the kernel
// fails with one line saying what is missing, and printing a script's
// instructions, which needs no kernel, still works.
func TestUnprivileged(t *testing.T) {
	bin := gotrace(t)
	// The build directory is private to root: copy the binary where nobody
	// can run it.
	dir, err := os.MkdirTemp("", "gotrace-nobody")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	nobodyBin := filepath.Join(dir, "gotrace")
	if err := os.WriteFile(nobodyBin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	runAs := func(args ...string) result {
		cmd := exec.Command(nobodyBin, args...)
		cmd.Dir = dir
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		return runCmd(t, cmd)
	}
	const want = "ERROR: gotrace needs root (or the capabilities CAP_BPF and CAP_PERFMON, and CAP_SYS_ADMIN for some probe types)\n"
	for _, args := range [][]string{
		{"-e", `BEGIN { printf("hi\n"); exit(); }`},
		{"-e", `tracepoint:syscalls:sys_enter_openat { @ = count(); }`},
		{"--dry-run", "-e", `BEGIN { exit(); }`},
		{"--info"},
		{"-l", "tracepoint:syscalls:sys_enter_open*"},
		{"-lv"},
	} {
		if got := runAs(args...); got.code != 1 || got.stdout != "" || got.stderr != want {
			t.Errorf("gotrace %q as nobody: exit %d, stdout %q, stderr %q", args, got.code, got.stdout, got.stderr)
		}
	}
	got := runAs("--emit=asm", "-e", `BEGIN { printf("hi\n"); exit(); }`)
	if got.code != 0 || !strings.Contains(got.stdout, "; probe ") || !strings.Contains(got.stdout, "Exit") {
		t.Errorf("--emit=asm as nobody: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
}

// TestREPLUnsafe: the REPL allows system() with --unsafe, as its error
// without --unsafe says.
func TestREPLUnsafe(t *testing.T) {
	repl := func(args ...string) result {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, gotrace(t), append([]string{"--repl"}, args...)...)
		cmd.Stdin = strings.NewReader("system(\"echo from-system\")\n")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("gotrace --repl %q: %v, stderr:\n%s", args, err, stderr.String())
		}
		return result{stdout.String(), stderr.String(), 0}
	}
	got := repl()
	if strings.Contains(got.stdout, "from-system") || !strings.Contains(got.stderr, "unsafe function being used in safe mode") {
		t.Errorf("without --unsafe: stdout %q, stderr %q", got.stdout, got.stderr)
	}
	got = repl("--unsafe")
	if !strings.Contains(got.stdout, "from-system\n") || strings.Contains(strings.ToLower(got.stderr), "error") {
		t.Errorf("with --unsafe: stdout %q, stderr %q", got.stdout, got.stderr)
	}
}

// TestInputLimit: a program from /dev/zero, as a file or on stdin, stops
// with an error instead of filling memory.
func TestInputLimit(t *testing.T) {
	const want = "ERROR: /dev/zero: the program is larger than 16 MB\n"
	if got := run(t, "/dev/zero"); got.code != 1 || got.stderr != want {
		t.Errorf("file /dev/zero: exit %d, stderr %q", got.code, got.stderr)
	}
	zero, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer zero.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gotrace(t), "-")
	cmd.Stdin = zero
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if err == nil || ctx.Err() != nil || stderr.String() != "ERROR: reading the program from stdin: the program is larger than 16 MB\n" {
		t.Errorf("stdin /dev/zero: %v, stderr %q", err, stderr.String())
	}
}

// TestRuntimeMessages: errorf()/warnf() lines name the call's location,
// and cat() of a missing file gives the system's reason, as bpftrace does.
func TestRuntimeMessages(t *testing.T) {
	got := run(t, "-e", `BEGIN { errorf("bad %d", 10); warnf("odd"); cat("/does/not/exist"); exit(); }`)
	want := "Attached 1 probe\n" +
		"stdin:1:9-29: ERROR: bad 10\n" +
		"stdin:1:31-43: WARNING: odd\n" +
		"ERROR: failed to open file '/does/not/exist' (No such file or directory)\n"
	if got.code != 0 || got.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", got.code, got.stderr, want)
	}
}

// TestMissingProbeWarning: with missing_probes = "warn" a probe that does
// not exist is skipped with a positioned warning in bpftrace's words.
func TestMissingProbeWarning(t *testing.T) {
	src := `config = { missing_probes = "warn" } tracepoint:syscalls:sys_enter_getpid,tracepoint:nonsense:nonsense { exit(); } BEGIN { exit(); }`
	got := run(t, "-e", src)
	want := "stdin:1:75-103: WARNING: No matches for tracepoint nonsense:nonsense. Skipping.\n" + src + "\n" +
		strings.Repeat(" ", 74) + strings.Repeat("~", 28) + "\nAttached 2 probes\n"
	if got.code != 0 || got.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", got.code, got.stderr, want)
	}
	got = run(t, "-e", `tracepoint:nonsense:nonsense { exit(); }`)
	if want := "stdin:1:1-29: ERROR: No matches for tracepoint nonsense:nonsense.\n"; got.code != 1 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("exit %d, stderr %q, want prefix %q", got.code, got.stderr, want)
	}
	// A probe left without attach points is removed, with a warning; a
	// program left without probes is an error.
	got = run(t, "-e", `config = { missing_probes = "warn" } tracepoint:nonsense:nonsense { exit(); } BEGIN { exit(); }`)
	if want := ": WARNING: Probe has no valid attach points. It is being removed which may cause issues with program behavior.\n"; got.code != 0 || !strings.Contains(got.stderr, want) {
		t.Errorf("exit %d, stderr %q, want %q", got.code, got.stderr, want)
	}
	got = run(t, "-e", `config = { missing_probes = "ignore" } tracepoint:nonsense:nonsense { exit(); }`)
	if want := "No probes to attach\n"; got.code != 1 || got.stdout != want {
		t.Errorf("exit %d, stdout %q, stderr %q, want stdout %q", got.code, got.stdout, got.stderr, want)
	}
}

// TestMacroErrorf: errorf() in a macro names the macro use it was
// expanded from, with the source line, as bpftrace does.
func TestMacroErrorf(t *testing.T) {
	src := `macro bad() { errorf("Something bad"); } BEGIN { bad(); exit(); }`
	got := run(t, "-e", src)
	want := "Attached 1 probe\n" +
		"stdin:1:15-38: ERROR: Something bad\n" +
		"stdin:1:50-55: ERROR: expanded from\n" + src + "\n" + strings.Repeat(" ", 49) + "~~~~~\n"
	if got.code != 0 || got.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant:\n%s", got.code, got.stderr, want)
	}
}

// TestDummyTSMap: bpftrace's BPFTRACE_DUMMY_TS_MAP test hook makes a
// keyless map tseries()'s clock, so that intervals are reproducible; a
// missing or keyed map is an error.
func TestDummyTSMap(t *testing.T) {
	gt := func(env, prog string) (string, string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, gotrace(t), "-e", prog)
		cmd.Env = append(os.Environ(), "TZ=UTC", "BPFTRACE_DUMMY_TS_MAP="+env)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		return string(out), stderr.String(), err
	}
	out, stderr, err := gt("@ts", `BEGIN { @ts = (uint64)0; $i = (uint64)0;
		while ($i < 100) { @a = tseries($i % 10, 100ms, 5); @ts += 10000000; $i++; }
		clear(@ts); exit(); }`)
	want := "\n\n@a:\n" +
		"             8                                                  10\n" +
		"hh:mm:ss.ms  |___________________________________________________|\n" +
		"00:00:00.500 |                         *                         | 9\n" +
		"00:00:00.600 |                         *                         | 9\n" +
		"00:00:00.700 |                         *                         | 9\n" +
		"00:00:00.800 |                         *                         | 9\n" +
		"00:00:00.900 |                         *                         | 9\n" +
		"             v___________________________________________________v\n" +
		"             8                                                  10\n\n"
	if err != nil || out != want {
		t.Errorf("err %v, stdout (- want, + got):\n%s\nstderr:\n%s", err, difftest.Diff(want, out), stderr)
	}
	// A sample within the first interval (epoch 0) leaves its bucket
	// "never used", and the series of its key then starts at time 0 with
	// a 0, as bpftrace 0.26's; a key with no bucket at epoch 0 does not.
	out, stderr, err = gt("@ts", `BEGIN { @ts = (uint64)0; $i = 0;
		while ($i < 3) { @a["x"] = tseries(5, 100ms, 6); @ts += 100000000; $i++; }
		$i = 0; while ($i < 2) { @a["y"] = tseries(2, 100ms, 6); @ts += 100000000; $i++; }
		clear(@ts); exit(); }`)
	want = "\n\n@a[x]:\n" +
		"             0                                                   5\n" +
		"hh:mm:ss.ms  |___________________________________________________|\n" +
		"00:00:00.000 *                                                   | 0\n" +
		"00:00:00.100 |                                                   * 5\n" +
		"00:00:00.200 |                                                   * 5\n" +
		"00:00:00.300 |                                                   | -\n" +
		"00:00:00.400 |                                                   | -\n" +
		"             v___________________________________________________v\n" +
		"             0                                                   5\n\n" +
		"@a[y]:\n" +
		"             1                                                   3\n" +
		"hh:mm:ss.ms  |___________________________________________________|\n" +
		"00:00:00.300 |                         *                         | 2\n" +
		"00:00:00.400 |                         *                         | 2\n" +
		"             v___________________________________________________v\n" +
		"             1                                                   3\n\n"
	if err != nil || out != want {
		t.Errorf("epoch 0: err %v, stdout (- want, + got):\n%s\nstderr:\n%s", err, difftest.Diff(want, out), stderr)
	}
	prog := `BEGIN { @a = tseries(1, 100ms, 5); @k[1] = (uint64)1; exit(); }`
	for env, msg := range map[string]string{
		"@nope": `BPFTRACE_DUMMY_TS_MAP: ERROR: dummy_ts_map: "@nope" not found`,
		"@k":    `BPFTRACE_DUMMY_TS_MAP: ERROR: dummy_ts_map: "@k" must be scalar`,
	} {
		if _, stderr, err := gt(env, prog); err == nil || !strings.Contains(stderr, msg) {
			t.Errorf("BPFTRACE_DUMMY_TS_MAP=%s: err %v, stderr %q", env, err, stderr)
		}
	}
}

// TestLogSize: log_size (BPFTRACE_LOG_SIZE, or the config block) is the
// verifier log buffer of each program with -v; a log that does not fit
// fails the load with ENOSPC, reported as bpftrace 0.26 reports it.
func TestLogSize(t *testing.T) {
	t.Setenv("BPFTRACE_LOG_SIZE", "2")
	got := run(t, "-v", "-e", `begin { printf("loaded\n"); exit() }`)
	wantOutput(t, got, "", 1)
	want := "ERROR: Error loading BPF program for begin_1. Error code: -28.\nKernel error log: \n\n\n" +
		"WARNING: Kernel log seems to be trimmed. This may be due to buffer not being big enough, try increasing the BPFTRACE_LOG_SIZE environment variable beyond the current value of 2 bytes\n"
	if got.stderr != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", got.stderr, want)
	}
	// Without -v no log is asked for, so none is too large.
	wantOutput(t, run(t, "-e", `begin { printf("loaded\n"); exit() }`), "loaded\n\n\n", 0)
	// A log that fits loads.
	t.Setenv("BPFTRACE_LOG_SIZE", "10000000")
	if got := run(t, "-v", "-e", `begin { printf("loaded\n"); exit() }`); got.code != 0 || !strings.Contains(got.stdout, "loaded\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", got.code, got.stdout, got.stderr)
	}
	// The config block sets it too; the program is named after its probe
	// and position, as bpftrace names it.
	os.Unsetenv("BPFTRACE_LOG_SIZE")
	got = run(t, "-v", "-e", `config = { log_size = 20 } interval:s:1 { exit() } begin { exit() }`)
	if !strings.HasPrefix(got.stderr, "ERROR: Error loading BPF program for interval_s_1_1. Error code: -28.\n") || got.code != 1 {
		t.Errorf("exit %d stderr %q", got.code, got.stderr)
	}
}
