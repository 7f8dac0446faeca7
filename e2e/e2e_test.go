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
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binary builds cmd/gotrace once per test run.
var binary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "gotrace-e2e")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "gotrace")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/gotrace")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// gotrace returns the path of the built binary; it skips the test when not
// running as root, since loading BPF needs CAP_BPF and CAP_PERFMON.
func gotrace(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("kernel e2e tests need root (CAP_BPF, CAP_PERFMON)")
	}
	bin, err := binary()
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gotrace(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("gotrace %q: %v", args, err)
	}
	if ctx.Err() != nil {
		t.Fatalf("gotrace %q timed out; stderr:\n%s", args, stderr.String())
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

// start runs gotrace in the background and waits until it printed the line
// ready on stdout (scripts print it from BEGIN, which runs after every
// probe is attached).
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
	s.waitLine(ready, 20*time.Second)
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
		t.Errorf("exit %d, stdout:\n%s\nwant exit %d, stdout:\n%s\nstderr:\n%s", got.code, got.stdout, wantCode, wantStdout, got.stderr)
	}
}

func example(name string) string { return filepath.Join("..", "examples", name) }

func TestHello(t *testing.T) {
	got := run(t, "-e", `BEGIN { printf("hello %s %d\n", "world", 6 * 7); exit(); }`)
	wantOutput(t, got, "hello world 42\n\n\n", 0)
	if !strings.Contains(got.stderr, "Attaching 1 probe...") {
		t.Errorf("stderr %q lacks the Attaching line", got.stderr)
	}
	wantOutput(t, run(t, example("hello.bt")), "hello world 42\n\n\n", 0)
}
