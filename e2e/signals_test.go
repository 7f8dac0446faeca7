package e2e

import (
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// countByTid is a script whose maps are printed at exit.
const countByTid = `tracepoint:raw_syscalls:sys_enter { @[tid] = count(); }`

// mapPrinted matches the printout of countByTid's map.
var mapPrinted = regexp.MustCompile(`(?m)^@\[\d+\]: \d+$`)

// TestRepeatedSIGINT: a second SIGINT right after the first (an impatient
// Ctrl-C, or timeout(1) signalling the process and its group) does not
// kill gotrace while it runs END and prints the maps.
func TestRepeatedSIGINT(t *testing.T) {
	for i := 0; i < 5; i++ {
		s := startNoWait(t, "-e", countByTid+` END { printf("end\n"); }`)
		s.waitLinks(1, 20*time.Second)
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		got := s.stop(syscall.SIGINT)
		if got.code != 0 || !strings.HasPrefix(got.stdout, "end\n") || !mapPrinted.MatchString(got.stdout) {
			t.Fatalf("run %d: exit %d, stdout:\n%s\nstderr:\n%s", i, got.code, got.stdout, got.stderr)
		}
	}
}

// TestTimeoutSIGINT runs gotrace under `timeout --preserve-status -s INT`,
// which sends SIGINT to gotrace and then to its whole process group: every
// run exits 0 with its map printed, whatever gotrace was doing (compiling,
// attaching, tearing down) when the signals arrived.
func TestTimeoutSIGINT(t *testing.T) {
	bin := gotrace(t)
	to, err := exec.LookPath("timeout")
	if err != nil {
		t.Skip("timeout(1) is not installed")
	}
	for i := 0; i < 20; i++ {
		// Vary the moment of the signal, from before the probes are
		// attached to well after.
		d := []string{"0.5", "0.7", "1", "1.5"}[i%4]
		got := runCmd(t, exec.Command(to, "--preserve-status", "-s", "INT", d, bin, "-e", countByTid))
		if got.code != 0 || !strings.HasPrefix(got.stdout, "\n\n") {
			t.Fatalf("run %d (timeout %s): exit %d, stdout:\n%s\nstderr:\n%s", i, d, got.code, got.stdout, got.stderr)
		}
		if d != "0.5" && !mapPrinted.MatchString(got.stdout) {
			t.Errorf("run %d (timeout %s): no map printed:\n%s", i, d, got.stdout)
		}
	}
}

// TestForcedQuit: a third signal during a slow teardown quits at once, and
// says so.
func TestForcedQuit(t *testing.T) {
	s := startNoWait(t, "--unsafe", "-e", `interval:s:100 { exit(); } END { system("sleep 10"); printf("end\n"); }`)
	s.waitLinks(1, 20*time.Second)
	start := time.Now()
	for i := 0; i < 2; i++ {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		time.Sleep(300 * time.Millisecond)
	}
	got := s.stop(syscall.SIGINT)
	if got.code != 128+int(syscall.SIGINT) || strings.Contains(got.stdout, "end") || !strings.Contains(got.stderr, "quitting at once") {
		t.Errorf("exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the forced quit took %v", took)
	}
}
