package e2e

import "testing"

// TestBeginExitOneLiner runs a tracepoint one-liner whose BEGIN calls
// exit(): it stops at once with END's output and the Attached line
// bpftrace prints; the tracepoint is not attached (see the Go API test
// TestBeginExitAttachesNothing), so the count map stays empty.
func TestBeginExitOneLiner(t *testing.T) {
	r := run(t, "-e", `tracepoint:syscalls:sys_enter_openat { @ = count(); } BEGIN { printf("begin\n"); exit(); } END { printf("end\n"); }`)
	if r.code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", r.code, r.stderr)
	}
	if want := "begin\nend\n\n\n"; r.stdout != want {
		t.Errorf("stdout %q, want %q", r.stdout, want)
	}
	if want := "Attached 3 probes\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}
