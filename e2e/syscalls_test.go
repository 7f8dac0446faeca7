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
// output, which is also checked against what the helper did. (Events
// still queued when the traced command exits are dropped, so the helper
// waits before exiting and its exit is counted in a map.)
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
	// The default path is the dispatchers': their programs are in the dump.
	asmCmd := exec.Command(bin, "--emit=asm", "-e", systrigger.Script)
	asmCmd.Env = append(os.Environ(), "GOTRACE_SYSCALL_TRACEPOINTS=")
	dump, err := asmCmd.CombinedOutput()
	if err != nil {
		t.Fatalf("--emit=asm: %v\n%s", err, dump)
	}
	for _, want := range []string{"program dispatch_sys_enter, RawTracepoint", "program dispatch_sys_exit, RawTracepoint"} {
		if !strings.Contains(string(dump), want) {
			t.Errorf("--emit=asm lacks %q", want)
		}
	}
	rawOut, rawErr := runWith("")
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
