package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestManyOutputs runs one probe with 6000 printf calls. Each event output
// used to branch on the ring buffer's answer to count a lost event, and
// the verifier keeps one pending state per branch until the path ends: past
// 8192 it refused the program (EFAULT, "The sequence of 8193 jumps is too
// complex"), so about 4100 printfs in one probe could not load. Every line
// must print, in order.
func TestManyOutputs(t *testing.T) {
	const n = 6000
	var b strings.Builder
	b.WriteString("BEGIN {\n")
	for i := range n {
		fmt.Fprintf(&b, "printf(\"%%d\\n\", %d);\n", i)
	}
	b.WriteString("exit(); }\n")
	file := filepath.Join(t.TempDir(), "printfs.bt")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	got := run(t, file)
	if got.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", got.code, got.stderr)
	}
	lines := strings.Split(strings.TrimRight(got.stdout, "\n"), "\n")
	if len(lines) != n {
		t.Fatalf("%d lines, want %d; stderr:\n%s", len(lines), n, got.stderr)
	}
	for i, l := range lines {
		if l != fmt.Sprint(i) {
			t.Fatalf("line %d is %q, want %d", i+1, l, i)
		}
	}
}

// TestVerifierLimits: programs past the verifier's limits on a whole
// program get one plain-language error at the probe's first statement,
// not the kernel's errno or a verifier log line. Kernels differ in how
// they report the same limit (past 8192 pending branches Linux 6.18 says
// E2BIG and "The sequence of 8193 jumps is too complex", others EFAULT
// with no log), so only what gotrace promises whichever they pick is
// asserted: the position, the verifier named, the advice, no kernel text.
func TestVerifierLimits(t *testing.T) {
	for _, tc := range []struct {
		name, stmt string
		n          int
	}{
		// Each if leaves a pending branch.
		{"pending branches", "if (nsecs > 5) { @x = 1; }", 9000},
		// Each if doubles the states the verifier must tell apart: it
		// gives up after exploring a million instructions.
		{"explored instructions", "if (nsecs > 5) { $c = $c + 1; }", 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("BEGIN { $c = 0;\n")
			for range tc.n {
				b.WriteString(tc.stmt + "\n")
			}
			b.WriteString("printf(\"%d\\n\", $c > 0); exit(); }\n")
			file := filepath.Join(t.TempDir(), "big.bt")
			if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			// The verifier explores a million instructions before it
			// gives up: slow on a loaded machine.
			got := runFor(t, 5*time.Minute, file)
			first, _, _ := strings.Cut(got.stderr, "\n")
			plain := strings.Contains(first, "for the kernel's BPF verifier") && strings.HasSuffix(first, "split the probe's work across several probes")
			for _, kernel := range []string{"bad address", "argument list too long", "jumps is too complex", "insn"} {
				plain = plain && !strings.Contains(first, kernel)
			}
			if got.code != 1 || !strings.HasPrefix(first, file+":1:9-10: ERROR: ") || !plain {
				t.Fatalf("exit %d, want 1 and a plain error at the probe; stderr:\n%.2000s", got.code, got.stderr)
			}
		})
	}
}
