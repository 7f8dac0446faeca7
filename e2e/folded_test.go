package e2e

import (
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// TestFoldedStacks: -f folded prints a stack map as folded stacks, one
// "frame;frame;... count" line per stack, which flame graph tools read.
func TestFoldedStacks(t *testing.T) {
	// A CPU busy in system calls makes samples with kernel frames.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				syscall.Getppid()
				_ = make([]byte, 1<<16)
			}
		}
	}()
	r := run(t, "-q", "-f", "folded", "-e", `profile:hz:997 { @[comm, kstack] = count(); } interval:ms:1500 { exit(); }`)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	line := regexp.MustCompile(`^[^;\n]+(;[^;\n]+)* [0-9]+$`)
	stacks := 0
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if l == "" {
			continue
		}
		if !line.MatchString(l) {
			t.Errorf("not a folded stack: %q", l)
		}
		if strings.Contains(l, ";") {
			stacks++
		}
	}
	if stacks == 0 {
		t.Errorf("no stack with kernel frames:\n%s", r.stdout)
	}
}
