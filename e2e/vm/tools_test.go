package vm

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTools runs every .bt script of the directory $GOTRACE_VM_TOOLS (for
// example bpftrace's tools/, passed with GOTRACE_VM_FILES) as a user would:
// start it, wait until it says its probes are attached, send SIGINT, and
// expect exit status 0 with the maps printed. It skips when the variable is
// unset: the scripts are not part of the repository.
func TestTools(t *testing.T) {
	dir := os.Getenv("GOTRACE_VM_TOOLS")
	if dir == "" {
		t.Skip("GOTRACE_VM_TOOLS is not set (a directory of .bt scripts inside the guest)")
	}
	scripts, err := filepath.Glob(filepath.Join(dir, "*.bt"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no .bt scripts in %s (%v)", dir, err)
	}
	for _, s := range scripts {
		t.Run(strings.TrimSuffix(filepath.Base(s), ".bt"), func(t *testing.T) {
			tr := startTrace(t, stderrReady(`Attached \d+ probes?`), s)
			time.Sleep(500 * time.Millisecond)
			// A script that ended by itself meanwhile is judged by its
			// exit status all the same.
			_ = tr.cmd.Process.Signal(syscall.SIGINT)
			select {
			case err := <-tr.done:
				if err != nil {
					t.Errorf("exit: %v; stderr:\n%s", err, tr.stderr())
				}
				if testing.Verbose() {
					t.Logf("stderr:\n%s", tr.stderr())
				}
			case <-time.After(180 * time.Second):
				t.Fatalf("no exit after SIGINT; stderr:\n%s", tr.stderr())
			}
		})
	}
}
