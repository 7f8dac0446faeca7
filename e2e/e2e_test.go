package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gotrace/gotrace/internal/difftest"
	"github.com/gotrace/gotrace/internal/testbin"
)

// gotrace returns the path of the built binary; it skips the test when not
// running as root, since loading BPF needs CAP_BPF and CAP_PERFMON.
func gotrace(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("kernel e2e tests need root (CAP_BPF, CAP_PERFMON)")
	}
	bin, err := testbin.Gotrace()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

type result struct {
	stdout, stderr string
	code           int
}

// run runs gotrace to completion with a timeout.
func run(t *testing.T, args ...string) result {
	t.Helper()
	return runFor(t, 30*time.Second, args...)
}

// runFor runs gotrace to completion, giving up after timeout.
func runFor(t *testing.T, timeout time.Duration, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	got := runCmd(t, exec.CommandContext(ctx, gotrace(t), args...))
	if ctx.Err() != nil {
		t.Fatalf("gotrace %q timed out; stderr:\n%s", args, got.stderr)
	}
	return got
}

// runCmd runs cmd to completion and returns its output and exit status; a
// failure to run it at all ends the test.
func runCmd(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%q: %v", cmd.Args, err)
	}
	return result{stdout.String(), stderr.String(), code}
}

// session is a gotrace process running in the background.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	lines  chan string
	stdout bytes.Buffer
	stderr bytes.Buffer
	mu     sync.Mutex
	done   chan struct{}
}

// waitLinks waits until the gotrace process holds n BPF links.
func (s *session) waitLinks(n int, timeout time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", s.cmd.Process.Pid))
		links := 0
		for _, fd := range fds {
			if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", s.cmd.Process.Pid, fd.Name())); err == nil && l == "anon_inode:bpf_link" {
				links++
			}
		}
		if links >= n {
			return
		}
		select {
		case <-s.done:
			s.t.Fatalf("gotrace exited before attaching; stderr:\n%s", s.errText())
		case <-time.After(time.Millisecond):
		}
	}
	s.t.Fatalf("gotrace did not attach %d links in %v; stderr:\n%s", n, timeout, s.errText())
}

// startNoWait runs gotrace in the background.
func startNoWait(t *testing.T, args ...string) *session {
	return start(t, "", args...)
}

// start runs gotrace in the background and, unless ready is "", waits
// until it printed the line ready on stdout.
func start(t *testing.T, ready string, args ...string) *session {
	t.Helper()
	s := &session{t: t, lines: make(chan string, 1024), done: make(chan struct{})}
	s.cmd = exec.Command(gotrace(t), args...)
	s.cmd.Stderr = &lockedWriter{mu: &s.mu, w: &s.stderr}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			s.mu.Lock()
			s.stdout.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			select {
			case s.lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			_ = s.cmd.Process.Kill()
			_ = s.cmd.Wait()
		}
	})
	if ready != "" {
		s.waitLine(ready, 20*time.Second)
	}
	return s
}

func (s *session) waitLine(want string, timeout time.Duration) {
	s.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case l := <-s.lines:
			if l == want {
				return
			}
		case <-s.done:
			s.t.Fatalf("gotrace exited before printing %q; stderr:\n%s", want, s.errText())
		case <-deadline:
			s.t.Fatalf("gotrace did not print %q in %v; stderr:\n%s", want, timeout, s.errText())
		}
	}
}

func (s *session) errText() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stderr.String()
}

// stop sends sig and waits for gotrace to exit; it returns the whole stdout.
func (s *session) stop(sig os.Signal) result {
	s.t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		s.t.Fatal(err)
	}
	return s.wait()
}

func (s *session) wait() result {
	s.t.Helper()
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.t.Fatalf("gotrace did not exit; stderr:\n%s", s.errText())
	}
	err := s.cmd.Wait()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return result{s.stdout.String(), s.stderr.String(), code}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// getppidN makes exactly n getppid(2) calls from one locked OS thread.
func getppidN(n int) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := 0; i < n; i++ {
		syscall.Getppid()
	}
}

func wantOutput(t *testing.T, got result, wantStdout string, wantCode int) {
	t.Helper()
	if got.stdout != wantStdout || got.code != wantCode {
		t.Errorf("exit %d, want exit %d; stdout (- want, + got):\n%s\nstderr:\n%s", got.code, wantCode, difftest.Diff(wantStdout, got.stdout), got.stderr)
	}
}

func example(name string) string { return filepath.Join("..", "examples", name) }

func TestHello(t *testing.T) {
	got := run(t, "-e", `BEGIN { printf("hello %s %d\n", "world", 6 * 7); exit(); }`)
	wantOutput(t, got, "hello world 42\n\n\n", 0)
	if !strings.Contains(got.stderr, "Attached 1 probe") {
		t.Errorf("stderr %q lacks the Attached line", got.stderr)
	}
	wantOutput(t, run(t, example("hello.bt")), "hello world 42\n\n\n", 0)
}

// TestGetppidCount: a tracepoint with a predicate on $1 counts exactly the
// calls this process makes.
func TestGetppidCount(t *testing.T) {
	const n = 1000
	script := `tracepoint:syscalls:sys_enter_getppid /pid == $1/ { @ = count(); }`
	s := startNoWait(t, "-e", script, fmt.Sprint(os.Getpid()))
	s.waitLinks(1, 20*time.Second)
	getppidN(n)
	got := s.stop(syscall.SIGINT)
	wantOutput(t, got, fmt.Sprintf("\n\n@: %d\n", n), 0)
	if got.stderr != "Attached 1 probe\n" {
		t.Errorf("stderr = %q", got.stderr)
	}
}

// TestGetppidExample runs the one-liner, examples/getppid_count.bt,
// which has no BEGIN probe to signal readiness: the test waits until
// gotrace holds a BPF link (the attach is complete then).
func TestGetppidExample(t *testing.T) {
	const n = 500
	s := startNoWait(t, example("getppid_count.bt"), fmt.Sprint(os.Getpid()))
	s.waitLinks(1, 20*time.Second)
	getppidN(n)
	got := s.stop(syscall.SIGINT)
	wantOutput(t, got, fmt.Sprintf("\n\n@: %d\n", n), 0)
}

// TestOpenatShowsFile: str() of a user pointer from tracepoint args.
func TestOpenatShowsFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "gotrace-e2e-known-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := `tracepoint:syscalls:sys_enter_openat /comm == "cat"/ { printf("%s %s\n", comm, str(args.filename)); }`
	s := startNoWait(t, "-e", script)
	s.waitLinks(1, 20*time.Second)
	if out, err := exec.Command("cat", file).CombinedOutput(); err != nil {
		t.Fatalf("cat: %v %s", err, out)
	}
	s.waitLine("cat "+file, 10*time.Second)
	got := s.stop(syscall.SIGINT)
	if got.code != 0 {
		t.Errorf("exit %d, stderr:\n%s", got.code, got.stderr)
	}
}

// TestSyscallLatencyHist runs examples/syscall_latency.bt until SIGINT and
// checks that it prints hist maps keyed by syscall number, the getppid one
// holding at least the calls made.
func TestSyscallLatencyHist(t *testing.T) {
	s := startNoWait(t, example("syscall_latency.bt"))
	s.waitLinks(2, 20*time.Second)
	getppidN(100)
	time.Sleep(100 * time.Millisecond)
	got := s.stop(syscall.SIGINT)
	if got.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", got.code, got.stderr)
	}
	// getppid is syscall 110 on x86-64.
	re := regexp.MustCompile(`(?m)^@us\[110\]:\n(\[[^\n]*\|\n)+`)
	m := re.FindString(got.stdout)
	if m == "" {
		t.Fatalf("no @us[110] histogram in:\n%s", got.stdout)
	}
	total := 0
	for _, line := range strings.Split(strings.TrimSpace(m), "\n")[1:] {
		var label string
		var n int
		if _, err := fmt.Sscanf(strings.Replace(line, ", ", ",", 1), "%s %d", &label, &n); err != nil {
			t.Fatalf("bad hist line %q: %v", line, err)
		}
		total += n
	}
	if total < 100 {
		t.Errorf("@us[110] counts %d calls, want at least 100:\n%s", total, m)
	}
}

// TestAggregations compares examples/aggregations.bt with bpftrace 0.26's
// text format byte for byte (see output/testdata for the reference).
func TestAggregations(t *testing.T) {
	got := run(t, example("aggregations.bt"))
	want, err := os.ReadFile("testdata/aggregations.out")
	if err != nil {
		t.Fatal(err)
	}
	wantOutput(t, got, string(want), 0)
}

// TestAggregationBlockValue: an aggregation as the value of a block
// expression assigned to a map runs the block's statements, then updates
// the map.
func TestAggregationBlockValue(t *testing.T) {
	got := run(t, "-e", `BEGIN { @ = { let $a = 100; avg($a) }; @c[1] = { let $b = 2; sum($b + 3) }; @d = ({ count() }); exit(); }`)
	wantOutput(t, got, "\n\n@: 100\n@c[1]: 5\n@d: 1\n", 0)
}

// TestInterval: exit() from an interval probe runs END and prints the map.
func TestInterval(t *testing.T) {
	got := run(t, example("interval.bt"))
	wantOutput(t, got, "3\n\n\n@n: 3\n", 0)
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, script, want string
	}{
		{"syntax", "BEGIN { @x = ; }", "stdin:1:14-15: ERROR: unexpected token \";\", expected expression\nBEGIN { @x = ; }\n             ~\n"},
		{"kaddr", `begin { print(kaddr("asdfzzzzzzz")) }`, "stdin:1:15-35: ERROR: Failed to resolve kernel symbol: asdfzzzzzzz\nbegin { print(kaddr(\"asdfzzzzzzz\")) }\n              ~~~~~~~~~~~~~~~~~~~~\n"},
		{"config", `config = { bad_config=raw } begin {}`, "stdin:1:12-26: ERROR: bad_config: not a known configuration option\nconfig = { bad_config=raw } begin {}\n           ~~~~~~~~~~~~~~\n"},
		{"lines", "BEGIN {\n\twhile (1) {\n\t}\n}", "stdin:2-3: ERROR: this loop never ends: the verifier rejects loops it cannot bound (use for ($i : 0..N) or break)\n    while (1) {\n    }\n"},
		{"type", "BEGIN { @x = 1; @x = \"a\"; }", "stdin:1:17-25: ERROR: Type mismatch for @x: trying to assign value of type 'string[8]' when map already has a type 'int64'\nBEGIN { @x = 1; @x = \"a\"; }\n                ~~~~~~~~\n"},
		{"vartype", "BEGIN { $x = 1;\n  $x = \"abc\" ; }", "stdin:2:3-13: ERROR: Type mismatch for $x: trying to assign value of type 'string[4]' when variable already has a type 'int64'\n  $x = \"abc\" ; }\n  ~~~~~~~~~~\n"},
		{"macaddr", "BEGIN { print(macaddr( \"abcdef\" )); }", "stdin:1:15-34: ERROR: macaddr() does not support literal string arguments\nBEGIN { print(macaddr( \"abcdef\" )); }\n              ~~~~~~~~~~~~~~~~~~~\n"},
		{"inctype", "BEGIN { @x = \"a\"; @x++; }", "stdin:1:19-23: ERROR: Type mismatch for @x: trying to assign value of type 'int64' when map already has a type 'string[8]'\nBEGIN { @x = \"a\"; @x++; }\n                  ~~~~\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, "-e", tc.script)
			if got.code != 1 || got.stderr != tc.want || got.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1, stderr:\n%s", got.code, got.stdout, got.stderr, tc.want)
			}
		})
	}
}

func TestDryRunAndEmit(t *testing.T) {
	got := run(t, "--dry-run", example("opensnoop.bt"))
	wantOutput(t, got, "", 0)
	got = run(t, "--emit=asm", "-e", `BEGIN { @x = 1; }`)
	if got.code != 0 || !strings.Contains(got.stdout, "; stdin:1:9 @x = 1") {
		t.Errorf("--emit=asm output lacks the source tag:\n%s", got.stdout)
	}
}
