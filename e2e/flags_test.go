package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// getppidEnv makes the test binary a helper process that calls getppid(2)
// the given number of times and exits (see TestMain).
const getppidEnv = "GOTRACE_E2E_GETPPID"

func TestMain(m *testing.M) {
	if v := os.Getenv(getppidEnv); v != "" {
		n, _ := strconv.Atoi(v)
		getppidN(n)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The JSON lines are bpftrace's (tests/runtime/json-output), byte for byte.
func TestJSONOutput(t *testing.T) {
	got := run(t, "-q", "-f", "json", "-e", `BEGIN { printf("test %d", 5); printf("test \r \n \t \\ \" bar"); `+
		`@scalar = 5; @map["key1"] = 2; @map["key2"] = 3; @complex[comm, 2] = 5; `+
		`@hist = hist(2); @hist = hist(1025); @h = lhist(2, 0, 100, 10); @h = lhist(50, 0, 100, 10); @h = lhist(1000, 0, 100, 10); `+
		`@stats = stats(2); @stats = stats(10); @t = (1, 2, "string", (4, 5)); print((1, 2, "string")); $x = 5; print($x); }`)
	want := `{"type": "printf", "data": "test 5"}
{"type": "printf", "data": "test \r \n \t \\ \" bar"}
{"type": "value", "data": [1,2,"string"]}
{"type": "value", "data": 5}
{"type": "map", "data": {"@complex": {"gotrace,2": 5}}}
{"type": "hist", "data": {"@h": [{"min": 0, "max": 9, "count": 1},{"min": 10, "max": 19, "count": 0},{"min": 20, "max": 29, "count": 0},{"min": 30, "max": 39, "count": 0},{"min": 40, "max": 49, "count": 0},{"min": 50, "max": 59, "count": 1},{"min": 60, "max": 69, "count": 0},{"min": 70, "max": 79, "count": 0},{"min": 80, "max": 89, "count": 0},{"min": 90, "max": 99, "count": 0},{"min": 100, "count": 1}]}}
{"type": "hist", "data": {"@hist": [{"min": 2, "max": 3, "count": 1},{"min": 4, "max": 7, "count": 0},{"min": 8, "max": 15, "count": 0},{"min": 16, "max": 31, "count": 0},{"min": 32, "max": 63, "count": 0},{"min": 64, "max": 127, "count": 0},{"min": 128, "max": 255, "count": 0},{"min": 256, "max": 511, "count": 0},{"min": 512, "max": 1023, "count": 0},{"min": 1024, "max": 2047, "count": 1}]}}
{"type": "map", "data": {"@map": {"key1": 2, "key2": 3}}}
{"type": "map", "data": {"@scalar": 5}}
{"type": "stats", "data": {"@stats": {"count": 2, "average": 6, "total": 12}}}
{"type": "map", "data": {"@t": [1,2,"string",[4,5]]}}
`
	wantOutput(t, got, want, 0)
	if got.stderr != "" {
		t.Errorf("stderr = %q", got.stderr)
	}
}

// TestJSONAttachedAndPrint: without -q the attach message is a JSON line
// on stdout; print() with top and div arguments; errorf with its position.
func TestJSONAttachedAndPrint(t *testing.T) {
	got := run(t, "-f", "json", "-e", `BEGIN { @["a"] = avg(10); @["b"] = avg(20); @["c"] = avg(30); @["d"] = avg(40); print(@, 2, 10); clear(@);
  errorf("bad %d", 7); exit(); }`)
	want := `{"type": "attached_probes", "count": 1, "data": {"probes": 1}}
{"type": "stats", "data": {"@": {"c": 3, "d": 4}}}
{"type": "errorf", "msg": "bad 7", "filename": "stdin", "line": 2, "col": 3}
`
	wantOutput(t, got, want, 0)
}

func TestOutputFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out")
	got := run(t, "-o", file, "-e", `BEGIN { printf("hello\n"); @x = 1; exit(); }`)
	wantOutput(t, got, "", 0)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "hello\n\n\n@x: 1\n" {
		t.Errorf("output file holds %q", b)
	}
	for _, mode := range []string{"none", "line", "full"} {
		got := run(t, "-B", mode, "-f", "json", "-q", "-o", file, "-e", `BEGIN { printf("x"); }`)
		wantOutput(t, got, "", 0)
		if b, _ := os.ReadFile(file); string(b) != `{"type": "printf", "data": "x"}`+"\n" {
			t.Errorf("-B %s: output file holds %q", mode, b)
		}
	}
	got = run(t, "-o", filepath.Join(t.TempDir(), "no", "such", "dir"), "-e", `BEGIN { exit(); }`)
	if got.code != 1 || !strings.Contains(got.stderr, "ERROR: Failed to open output file") {
		t.Errorf("unwritable -o: exit %d, stderr %q", got.code, got.stderr)
	}
}

// TestOutputFileErrors: a failed write to -o's file is reported once, and
// a script that does not compile leaves the file untouched.
func TestOutputFileErrors(t *testing.T) {
	got := run(t, "-o", "/dev/full", "-e", `BEGIN { printf("hello\n"); exit(); }`)
	if n := strings.Count(got.stderr, "no space left on device"); got.code != 1 || n != 1 {
		t.Errorf("-o /dev/full: exit %d, the error printed %d times, stderr:\n%s", got.code, n, got.stderr)
	}
	file := filepath.Join(t.TempDir(), "out")
	if err := os.WriteFile(file, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = run(t, "-o", file, "-e", `BEGIN { printf("hello\n") exit(); }`)
	if got.code != 1 || !strings.Contains(got.stderr, "unexpected token") {
		t.Errorf("syntax error: exit %d, stderr %q", got.code, got.stderr)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep\n" {
		t.Errorf("a failed compile changed the output file to %q", b)
	}
}

// TestChildEnvIgnored: the variable that marks -c's stand-in process does
// nothing on its own, whatever fd 3 is: a file, a pipe without the run's
// token, or a named FIFO holding it (the stand-in's fd 3 is an anonymous
// pipe from its parent).
func TestChildEnvIgnored(t *testing.T) {
	bin := gotrace(t)
	// fd3 opens what the process gets as fd 3 for a run whose token is tok.
	fd3 := map[string]func(tok string) *os.File{
		"a file": func(string) *os.File {
			f, err := os.Open("/etc/passwd")
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
		"a pipe with another token": func(string) *os.File {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if _, err := w.WriteString("other\x00/bin/echo\x00\x01"); err != nil {
				t.Fatal(err)
			}
			return r
		},
		"a FIFO with the token": func(tok string) *os.File {
			path := filepath.Join(t.TempDir(), "fifo")
			if err := syscall.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_RDWR, 0) // does not wait for a writer
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(tok + "\x00/bin/echo\x00\x01"); err != nil {
				t.Fatal(err)
			}
			return f
		},
	}
	for what, open := range fd3 {
		for _, value := range []string{"/bin/echo", "guess"} {
			f := open(value)
			cmd := exec.Command(bin, "--version")
			cmd.Env = append(os.Environ(), "GOTRACE_CHILD_EXEC="+value)
			cmd.ExtraFiles = []*os.File{f}
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			f.Close()
			if err != nil || stderr.String() != "" || !strings.Contains(stdout.String(), "(gotrace v") {
				t.Errorf("GOTRACE_CHILD_EXEC=%s, fd 3 %s: %v, stdout %q, stderr %q", value, what, err, stdout.String(), stderr.String())
			}
		}
	}
}

// TestChildCommand: -c runs the command once the probes are attached,
// cpid is its pid, and gotrace stops (END, maps) when it exits.
func TestChildCommand(t *testing.T) {
	start := time.Now()
	got := run(t, "-c", "/bin/sh -c exit", "-e", `tracepoint:syscalls:sys_enter_exit_group /pid == cpid/ { @exits = count(); @pid = cpid; } END { printf("cpid %d\n", cpid); }`)
	m := regexp.MustCompile(`^cpid (\d+)\n\n\n@exits: 1\n@pid: (\d+)\n$`).FindStringSubmatch(got.stdout)
	if m == nil || m[1] != m[2] || got.code != 0 {
		t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", got.code, got.stdout, got.stderr)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("gotrace took %v to notice the child exited", d)
	}
	// The child is held back until the probes are attached: its execve is
	// seen.
	got = run(t, "-c", "/bin/true", "-e", `tracepoint:syscalls:sys_enter_execve /pid == cpid/ { @execs = count(); }`)
	wantOutput(t, got, "\n\n@execs: 1\n", 0)

	// Without -c, cpid is 0 and a warning, as in bpftrace 0.26.
	got = run(t, "-e", `BEGIN { print(cpid); exit(); }`)
	wantOutput(t, got, "0\n\n\n", 0)
	if !strings.Contains(got.stderr, "stdin:1:15-19: WARNING: No child command (`-c`); cpid is zero") {
		t.Errorf("cpid without -c: stderr %q lacks the warning", got.stderr)
	}
	got = run(t, "-c", "/no/such/command", "-e", `BEGIN { exit(); }`)
	if got.code != 1 || !strings.Contains(got.stderr, "Failed to fork child") {
		t.Errorf("-c with a missing command: exit %d, stderr %q", got.code, got.stderr)
	}
}

// TestPidFilter: -p counts only that process's getppid calls, even without
// a predicate, ANDs with an existing predicate, and stops when the
// process exits.
func TestPidFilter(t *testing.T) {
	const n = 700
	helper := exec.Command(os.Args[0])
	helper.Env = append(os.Environ(), getppidEnv+"=5000")
	s := startNoWait(t, "-p", fmt.Sprint(os.Getpid()), "-e",
		`tracepoint:syscalls:sys_enter_getppid { @all = count(); } tracepoint:syscalls:sys_enter_getppid /tid == 0/ { @none = count(); }`)
	s.waitAttached(20 * time.Second)
	if err := helper.Run(); err != nil { // another process's calls
		t.Fatal(err)
	}
	getppidN(n)
	got := s.stop(syscall.SIGINT)
	wantOutput(t, got, fmt.Sprintf("\n\n@all: %d\n", n), 0)

	// Exit with the process: it ends once gotrace is attached (a process
	// with a fixed lifetime could end first on a loaded machine).
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- sleep.Wait() }()
	s = startNoWait(t, "-p", fmt.Sprint(sleep.Process.Pid), "-e", `tracepoint:syscalls:sys_enter_getppid { @ = count(); } END { printf("end\n"); }`)
	s.waitAttached(20 * time.Second)
	sleep.Process.Kill()
	<-done
	wantOutput(t, s.wait(), "end\n\n\n", 0)

	got = run(t, "-c", "/bin/true", "-p", "1", "-e", `BEGIN { exit(); }`)
	if got.code != 1 || !strings.Contains(got.stderr, "USAGE: Cannot use both -c and -p.") {
		t.Errorf("-c with -p: exit %d, stderr %q", got.code, got.stderr)
	}
}

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-q", "-f", "jsonx", "-e", "BEGIN { @scalar = 5; }"}, `ERROR: Invalid output format "jsonx"`},
		{[]string{"-B", "some", "-e", "BEGIN { exit(); }"}, "ERROR: USAGE: -B must be either 'line', 'full', or 'none'."},
		{[]string{"-kk", "-e", "BEGIN { exit(); }"}, "ERROR: USAGE: -kk has been deprecated."},
		{[]string{"-p", "abc", "-e", "BEGIN { exit(); }"}, "ERROR: Failed to parse pid"},
	} {
		got := run(t, tc.args...)
		if got.code != 1 || !strings.Contains(got.stderr, tc.msg) {
			t.Errorf("%q: exit %d, stderr %q, want %q", tc.args, got.code, got.stderr, tc.msg)
		}
	}
	got := run(t, "--unsafe", "-q", "-f", "json", "-e", `BEGIN { system("echo a b c"); exit(); }`)
	wantOutput(t, got, `{"type": "syscall", "data": "a b c\n"}`+"\n", 0)
}

// TestSystemShell: system() runs /bin/sh, as system(3), not an sh that
// comes first on $PATH.
func TestSystemShell(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "sh"), []byte("#!/bin/sh\necho impostor\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gotrace(t), "--unsafe", "-q", "-e", `BEGIN { system("echo real"); exit(); }`)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
	wantOutput(t, runCmd(t, cmd), "real\n\n\n\n", 0)
}

// TestOptionOrder: options go before or after the script, as with
// bpftrace's getopt_long; "--" ends them and is not a parameter; named
// parameters come after it.
func TestOptionOrder(t *testing.T) {
	script := filepath.Join(t.TempDir(), "x.bt")
	if err := os.WriteFile(script, []byte(`BEGIN { printf("%s %s %d\n", $1, $2, $#); exit(); }`), 0o644); err != nil {
		t.Fatal(err)
	}
	got := run(t, script, "a", "-q", "b")
	wantOutput(t, got, "a b 2\n\n\n", 0)
	if got.stderr != "" {
		t.Errorf("stderr %q: -q after the script was not an option", got.stderr)
	}
	got = run(t, "-q", script, "a", "--", "-q")
	wantOutput(t, got, "a -q 2\n\n\n", 0)
	got = run(t, "-e", `BEGIN { print(($1, getopt("aa", 10), $2, getopt("cc", "hello"), getopt("dd"))); exit(); }`,
		"pos1", "-q", "--", "--aa=20", "--cc=bye", "pos2", "--dd")
	wantOutput(t, got, "(pos1, 20, pos2, bye, true)\n\n\n", 0)
	// Named parameters before "--" are unknown options.
	got = run(t, "-e", `BEGIN { exit(); }`, "--aa=20")
	if got.code != 1 || !strings.Contains(got.stderr, "unrecognized option '--aa=20'") || !strings.Contains(got.stderr, "USAGE:") {
		t.Errorf("--aa=20 before --: exit %d, stderr %q", got.code, got.stderr)
	}
}

// TestNamedParams: getopt's values (hex, booleans in any case), and
// bpftrace's errors for parameters the program does not read.
func TestNamedParams(t *testing.T) {
	got := run(t, "-e", `BEGIN { print((getopt("aa", 1), getopt("bb", true), getopt("cc", false), getopt("dd", -1))); exit(); }`,
		"--", "--aa=0x10", "--bb=False", "--cc=YES", "--dd=-10")
	wantOutput(t, got, "(16, false, true, -10)\n\n\n", 0)
	// A non-negative integer default makes a uint64, a negative one an int64.
	got = run(t, "-e", `BEGIN { print((getopt("aa", 20), getopt("bb", -1))); exit(); }`,
		"--", "--aa=0xffffffffffffffff", "--bb=-10")
	wantOutput(t, got, "(18446744073709551615, -10)\n\n\n", 0)
	got = run(t, "-e", `BEGIN { print(getopt("aa", 10)); exit(); }`, "--", "--bb")
	want := "ERROR: unexpected program command line options: --bb\nHINT: expected program options: --aa\n"
	if got.code != 1 || got.stdout != "" || got.stderr != want {
		t.Errorf("--bb: exit %d, stdout %q, stderr %q; want %q", got.code, got.stdout, got.stderr, want)
	}
	got = run(t, "-e", `BEGIN { print((getopt("aa", 10, "Description of aa"), getopt("bb", 1), getopt("cc"))); exit(); }`, "--", "--help")
	want = "HINT: expected program options:\n--aa: Description of aa\n--bb\n--cc\n"
	if got.code != 1 || got.stdout != "" || got.stderr != want {
		t.Errorf("--help: exit %d, stdout %q, stderr %q; want %q", got.code, got.stdout, got.stderr, want)
	}
	got = run(t, "-e", `BEGIN { print(getopt("aa", 10)); exit(); }`, "--", "--aa=False")
	if got.code != 1 || !strings.Contains(got.stderr, "program command line option --aa invalid integer (value: False)") {
		t.Errorf("--aa=False: exit %d, stderr %q", got.code, got.stderr)
	}
}

// TestNewFlags: --info, --no-warnings, --probe-filter, -d.
func TestNewFlags(t *testing.T) {
	got := run(t, "--info")
	if got.code != 0 || !regexp.MustCompile(`(?s)^System\n  OS: Linux .*\n  dwunwind \(DWARF stack unwinding\): yes\n.*\n  kprobe_session: (yes|no)\n`).MatchString(got.stdout) {
		t.Errorf("--info: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	got = run(t, "-e", `BEGIN { warnf("no warn"); printf("done\n"); exit(); }`, "--no-warnings")
	wantOutput(t, got, "done\n\n\n", 0)
	if strings.Contains(got.stderr, "no warn") {
		t.Errorf("--no-warnings: stderr %q", got.stderr)
	}
	got = run(t, "-q", "--probe-filter", "interval:ms:(200|300)", "-e",
		`BEGIN { printf("begin\n"); } interval:ms:100 { printf("bad\n"); exit(); } interval:ms:200 { printf("a\n"); } interval:ms:300 { printf("b\n"); exit(); } END { printf("end\n"); }`)
	// The 200 ms probe fires once before the 300 ms one ends the run,
	// or more often when a loaded machine attaches the second one late;
	// the 100 ms probe, filtered out, never.
	if got.code != 0 || !regexp.MustCompile(`^begin\n(a\n)+b\nend\n\n\n$`).MatchString(got.stdout) {
		t.Errorf("--probe-filter: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	got = run(t, "--probe-filter", "nomatch", "-e", `tracepoint:syscalls:sys_enter_openat { exit(); }`)
	if got.code != 1 || got.stdout != "No probes to attach\n" || got.stderr != "" {
		t.Errorf("--probe-filter nomatch: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	got = run(t, "--probe-filter", "[x", "-e", `BEGIN { exit(); }`)
	if got.code != 1 || !strings.HasPrefix(got.stderr, "ERROR: Invalid --probe-filter regex '[x': ") {
		t.Errorf("--probe-filter [x: exit %d, stderr %q", got.code, got.stderr)
	}
	got = run(t, "-q", "-d", "codegen", "-e", `BEGIN { printf("x\n"); exit(); }`)
	if got.code != 0 || !strings.HasPrefix(got.stdout, "; probe ") || !strings.HasSuffix(got.stdout, "Exit\n\nx\n\n\n") {
		t.Errorf("-d codegen: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	got = run(t, "-q", "--debug", "ast", "-e", `BEGIN { exit(); }`)
	if want := "AST\n-------------------\n(file\n  (probe (attach \"BEGIN\") (block (expr (call exit)))))\n"; got.code != 0 || got.stderr != want {
		t.Errorf("-d ast: exit %d, stderr %q, want %q", got.code, got.stderr, want)
	}
}

// TestListProgram: -l with a program lists its expanded attach points,
// each time the script names one;
// -lv 'struct X' prints the struct from BTF; -v after -l's pattern is -lv.
func TestListProgram(t *testing.T) {
	got := run(t, "-l", "-e", `tracepoint:syscalls:sys_enter_openat* { exit(); } BEGIN { } interval:s:1 { }`)
	wantOutput(t, got, "tracepoint:syscalls:sys_enter_openat\ntracepoint:syscalls:sys_enter_openat2\ninterval:s:\n", 0)
	got = run(t, "-l", "-e", `fentry:vfs_read { exit(); } software:cpu-clock:1000 { }`)
	wantOutput(t, got, "fentry:vmlinux:vfs_read\nsoftware:cpu-clock:\n", 0)
	// An attach point named twice (two probes, two patterns of one) is
	// listed each time, in the script's order, as bpftrace lists it.
	got = run(t, "-l", "-e", `tracepoint:syscalls:sys_enter_openat* { } tracepoint:syscalls:sys_enter_getpid, tracepoint:syscalls:sys_enter_openat { } interval:s:1 { } interval:s:2 { }`)
	wantOutput(t, got, "tracepoint:syscalls:sys_enter_openat\ntracepoint:syscalls:sys_enter_openat2\ntracepoint:syscalls:sys_enter_getpid\ntracepoint:syscalls:sys_enter_openat\ninterval:s:\ninterval:s:\n", 0)
	script := filepath.Join(t.TempDir(), "x.bt")
	if err := os.WriteFile(script, []byte("tracepoint:syscalls:sys_enter_openat { exit(); }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got = run(t, "-l", script, "-v")
	if got.code != 0 || !strings.HasPrefix(got.stdout, "tracepoint:syscalls:sys_enter_openat\n    int __syscall_nr\n") {
		t.Errorf("-l FILE -v: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	got = run(t, "-lv", "struct file,struct task_struct")
	if got.code != 0 || !strings.HasPrefix(got.stdout, "struct file {\n\t") || !strings.Contains(got.stdout, "};\nstruct task_struct {\n\tstruct thread_info thread_info;\n") {
		t.Errorf("-lv structs: exit %d, stdout %.300q, stderr %q", got.code, got.stdout, got.stderr)
	}
	got = run(t, "-l", "nonexistent_file.bt")
	if want := "WARNING: It appears that 'nonexistent_file.bt' is a filename but the file does not exist. Treating 'nonexistent_file.bt' as a search pattern.\n"; !strings.HasPrefix(got.stderr, want) {
		t.Errorf("-l nonexistent_file.bt: stderr %q", got.stderr)
	}
}

// TestConfigEnvWins: the environment overrides the config block, which
// accepts the BPFTRACE_ and upper-case spellings of the options. The
// string fills max_strlen, so it prints with the ".." trailer.
func TestConfigEnvWins(t *testing.T) {
	for _, key := range []string{"max_strlen", "MAX_STRLEN", "BPFTRACE_MAX_STRLEN"} {
		src := `config = { ` + key + ` = 6 } BEGIN { printf("%s\n", str("abcdefghij")); exit(); }`
		got := run(t, "-q", "-e", src)
		wantOutput(t, got, "abcdef..\n\n\n", 0)
		cmd := exec.Command(gotrace(t), "-q", "-e", src)
		cmd.Env = append(os.Environ(), "BPFTRACE_MAX_STRLEN=3")
		out, err := cmd.Output()
		if err != nil || string(out) != "abc..\n\n\n" {
			t.Errorf("%s with BPFTRACE_MAX_STRLEN=3: stdout %q, err %v", key, out, err)
		}
	}
}

// TestChildCommandLastEvents: the events the child sends just before it
// exits are printed, every time, before END (the ring buffer is drained
// when the child's exit stops the run).
func TestChildCommandLastEvents(t *testing.T) {
	script := filepath.Join(t.TempDir(), "writes.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nexec >/dev/null\necho 1; echo 22; echo 333; echo 4444; echo 55555\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		got := run(t, "-c", script, "-e", `tracepoint:syscalls:sys_enter_write /pid == cpid/ { printf("%d\n", args.count); } END { printf("end\n"); }`)
		wantOutput(t, got, "2\n3\n4\n5\n6\nend\n\n\n", 0)
		if t.Failed() {
			t.Fatalf("run %d", i+1)
		}
	}
}

// TestNotifyAttached: bpftrace's __BPFTRACE_NOTIFY_PROBES_ATTACHED test
// hook prints its own name on standard output once the probes are
// attached, before what begin probes print.
func TestNotifyAttached(t *testing.T) {
	cmd := exec.Command(gotrace(t), "-q", "-e", `BEGIN { printf("x\n"); exit(); }`)
	cmd.Env = append(cmd.Environ(), "__BPFTRACE_NOTIFY_PROBES_ATTACHED=1")
	wantOutput(t, runCmd(t, cmd), "__BPFTRACE_NOTIFY_PROBES_ATTACHED\nx\n\n\n", 0)
}
