package e2e

import (
	"strings"
	"testing"
)

// TestDivideByZero: / and % by a run-time zero yield 1 and report
// bpftrace's warning, on stderr as text and on stdout as a JSON
// runtime_error; a literal zero divisor is a compile-time error.
func TestDivideByZero(t *testing.T) {
	needRoot(t)
	const msg = "Divide or modulo by 0 detected. This can lead to unexpected results. 1 is being used as the result."
	script := `BEGIN { @z = 0; print((uint64)10 % (uint64)@z); print((uint64)10 / (uint64)@z); delete(@z); exit(); }`
	got := run(t, "-e", script)
	wantOutput(t, got, "1\n1\n\n\n", 0)
	for _, col := range []string{"23", "55"} {
		if want := "stdin:1:" + col + ": WARNING: " + msg + "\n"; !strings.Contains(got.stderr, want) {
			t.Errorf("stderr %q lacks %q", got.stderr, want)
		}
	}
	got = run(t, "-f", "json", "-e", script)
	want := `{"type": "runtime_error", "msg": "` + msg + `", "filename": "stdin", "line": 1, "col": 23}` + "\n"
	if !strings.Contains(got.stdout, want) {
		t.Errorf("stdout %q lacks %q", got.stdout, want)
	}
	got = run(t, "-e", `BEGIN { print(5 / 0); }`)
	if want := "stdin:1:15-20: ERROR: unable to fold literals due to overflow or underflow\n"; got.code != 1 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("exit %d, stderr %q, want exit 1 and %q", got.code, got.stderr, want)
	}
}

// TestSignedDivisionWarning: bpftrace's warning for / on operands of
// different types, one of them signed, printed before the probes attach.
func TestSignedDivisionWarning(t *testing.T) {
	needRoot(t)
	got := run(t, "-e", `BEGIN { $m = -7; print($m / (uint64)2); exit(); }`)
	wantOutput(t, got, "9223372036854775804\n\n\n", 0)
	if want := "stdin:1:24-38: WARNING: signed operands for '/' can lead to undefined behavior (cast to unsigned to silence warning)\n"; !strings.Contains(got.stderr, want) {
		t.Errorf("stderr %q lacks %q", got.stderr, want)
	}
}
