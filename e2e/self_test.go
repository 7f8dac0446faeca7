package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSelfSignal: self:signal:SIGUSR1 probes run, in script order, each
// time gotrace receives SIGUSR1.
func TestSelfSignal(t *testing.T) {
	s := startNoWait(t, "-e", `self:signal:SIGUSR1 { printf("first"); } self:signal:SIGUSR1 { printf(" second\n"); exit(); }`)
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(s.errText(), "Attached 2 probes") {
		if time.Now().After(deadline) {
			t.Fatalf("gotrace did not attach; stderr:\n%s", s.errText())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	wantOutput(t, s.wait(), "first second\n\n\n", 0)
	got := run(t, "-l", "self:*")
	wantOutput(t, got, "self:signal:SIGUSR1\n", 0)
}
