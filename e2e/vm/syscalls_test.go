package vm

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gotrace/gotrace/internal/systrigger"
)

// TestMain makes the test binary double as the syscall trigger: copied to
// a file named systrigger and run with GOTRACE_SYSTRIGGER=1, it makes
// systrigger's syscalls instead of running tests (the guest has no Go
// toolchain to build the helper the host test uses). With GOTRACE_POKE
// set it is the watchpoint tests' traced program instead.
func TestMain(m *testing.M) {
	if os.Getenv("GOTRACE_SYSTRIGGER") == "1" {
		systrigger.Run()
	}
	if mode := os.Getenv("GOTRACE_POKE"); mode != "" {
		poke(mode) // watchpoint_test.go
	}
	os.Exit(m.Run())
}

// TestSyscallTracepointsEquivalent runs systrigger's script with syscall
// tracepoints served by the raw tracepoint dispatchers and by one perf
// event each (GOTRACE_SYSCALL_TRACEPOINTS=perf) on the guest's kernel: the
// outputs must be the same and hold what the trigger did.
func TestSyscallTracepointsEquivalent(t *testing.T) {
	bin := gotraceBin(t)
	helper := triggerBinary(t)
	run := func(mode string) (string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bin, "-c", helper, "-e", systrigger.Script)
		cmd.Env = append(os.Environ(), "GOTRACE_SYSTRIGGER=1", "GOTRACE_SYSCALL_TRACEPOINTS="+mode)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("gotrace (GOTRACE_SYSCALL_TRACEPOINTS=%s): %v\nstderr:\n%s", mode, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	rawOut, rawErr := run("raw")
	perfOut, perfErr := run("perf")
	for _, p := range systrigger.Problems(rawOut, rawErr, perfOut, perfErr) {
		t.Error(p)
	}
}

// TestCommKey: comm as a map key is one key per name. Linux 6.1's
// bpf_get_current_comm leaves the bytes after the name's NUL as they were,
// and an uncleared buffer made one name several keys (and comm == "x"
// false at random).
func TestCommKey(t *testing.T) {
	bin := gotraceBin(t)
	helper := triggerBinary(t)
	for _, mode := range []string{"raw", "perf"} {
		cmd := exec.Command(bin, "-c", helper, "-e", `tracepoint:syscalls:sys_enter_getppid /comm == "systrigger"/ { @[comm] = count(); }`)
		cmd.Env = append(os.Environ(), "GOTRACE_SYSTRIGGER=1", "GOTRACE_SYSCALL_TRACEPOINTS="+mode)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("mode %q: %v", mode, err)
		}
		if got := strings.TrimSpace(string(out)); got != "@[systrigger]: 7" {
			t.Errorf("mode %q: got\n%s\nwant @[systrigger]: 7", mode, got)
		}
	}
}

// triggerBinary copies the test binary to a file named systrigger (the
// name the scripts filter on), which runs systrigger.Run when started with
// GOTRACE_SYSTRIGGER=1.
func triggerBinary(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	helper := filepath.Join(t.TempDir(), "systrigger")
	if err := copyFile(self, helper); err != nil {
		t.Fatal(err)
	}
	return helper
}

// copyFile copies an executable.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
