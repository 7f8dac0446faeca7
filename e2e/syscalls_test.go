package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotrace/gotrace/internal/systrigger"
)

// TestSyscallTracepointsEquivalent runs the same script on syscall
// tracepoints served by the raw tracepoint dispatchers and by one perf
// event each (GOTRACE_SYSCALL_TRACEPOINTS=perf), and expects the same
// output, which is also checked against what the helper did (its exit is
// counted in a map).
func TestSyscallTracepointsEquivalent(t *testing.T) {
	bin := gotrace(t)
	helper := filepath.Join(t.TempDir(), "systrigger")
	if out, err := exec.Command("go", "build", "-o", helper, "./testdata/systrigger").CombinedOutput(); err != nil {
		t.Fatalf("build helper: %v\n%s", err, out)
	}
	runWith := func(env string) (string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-c", helper, "-e", systrigger.Script)
		cmd.Env = append(os.Environ(), "GOTRACE_SYSCALL_TRACEPOINTS="+env)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("gotrace (GOTRACE_SYSCALL_TRACEPOINTS=%s): %v\nstderr:\n%s", env, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	// With "raw" the dispatchers serve the script: their programs are in the dump.
	asmCmd := exec.Command(bin, "--emit=asm", "-e", systrigger.Script)
	asmCmd.Env = append(os.Environ(), "GOTRACE_SYSCALL_TRACEPOINTS=raw")
	dump, err := asmCmd.CombinedOutput()
	if err != nil {
		t.Fatalf("--emit=asm: %v\n%s", err, dump)
	}
	for _, want := range []string{"program dispatch_sys_enter, RawTracepoint", "program dispatch_sys_exit, RawTracepoint"} {
		if !strings.Contains(string(dump), want) {
			t.Errorf("--emit=asm lacks %q", want)
		}
	}
	rawOut, rawErr := runWith("raw")
	perfOut, perfErr := runWith("perf")
	for _, p := range systrigger.Problems(rawOut, rawErr, perfOut, perfErr) {
		t.Error(p)
	}
}

// waitAttached waits until gotrace says on stderr that every probe is
// attached ("Attached N probes"): the number of BPF links is no measure
// where syscall tracepoints share the dispatchers' links.
func (s *session) waitAttached(timeout time.Duration) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if strings.Contains(s.errText(), "Attached ") {
			return
		}
		select {
		case <-s.done:
			s.t.Fatalf("gotrace exited before attaching; stderr:\n%s", s.errText())
		case <-time.After(time.Millisecond):
		}
	}
	s.t.Fatalf("gotrace did not attach in %v; stderr:\n%s", timeout, s.errText())
}

// TestSyscallDispatchChoice: a few syscall tracepoints keep their perf
// events (the dispatchers would run on every syscall of the machine), a
// wildcard goes through the dispatchers, and GOTRACE_SYSCALL_TRACEPOINTS
// forces either way.
func TestSyscallDispatchChoice(t *testing.T) {
	bin := gotrace(t)
	few := `tracepoint:syscalls:sys_enter_getppid, tracepoint:syscalls:sys_enter_getpid { @ = count(); }`
	many := `tracepoint:syscalls:sys_enter_* { @[probe] = count(); }`
	for _, tc := range []struct {
		name, mode, script string
		dispatch           bool
	}{
		{"few", "", few, false},
		{"few raw", "raw", few, true},
		{"many", "", many, true},
		{"many perf", "perf", many, false},
	} {
		cmd := exec.Command(bin, "--emit=asm", "-e", tc.script)
		cmd.Env = append(os.Environ(), "GOTRACE_SYSCALL_TRACEPOINTS="+tc.mode)
		dump, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: --emit=asm: %v\n%s", tc.name, err, dump)
		}
		got := strings.Contains(string(dump), "program dispatch_sys_enter, RawTracepoint")
		if got != tc.dispatch {
			t.Errorf("%s: dispatcher in the dump = %v, want %v", tc.name, got, tc.dispatch)
		}
		if !tc.dispatch && !strings.Contains(string(dump), "TracePoint)") {
			t.Errorf("%s: no perf-event tracepoint program in the dump:\n%.400s", tc.name, dump)
		}
	}
}
