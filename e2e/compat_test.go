package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/internal/difftest"
)

// normalize0_17 removes the differences between bpftrace 0.17's output
// and the current format that gotrace follows: 0.17 prints "Attaching N
// probes..." on stdout, a space after "@hist:", and blank lines after every
// map; the current format is checked byte for byte by the output package.
func normalize0_17(s string) string {
	var out []string
	attaching := regexp.MustCompile(`^(Attaching \d+ probes?\.\.\.|Attached \d+ probes?)$`)
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " ")
		if l == "" || attaching.MatchString(l) {
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// TestCompatBpftrace017 runs every testdata/compat script through gotrace
// and through bpftrace 0.17 (installed by scripts/test.sh) and compares
// their output.
func TestCompatBpftrace017(t *testing.T) {
	bt, err := exec.LookPath("bpftrace")
	if err != nil {
		t.Skip("bpftrace is not installed (scripts/test.sh installs it)")
	}
	files, _ := filepath.Glob("testdata/compat/*.bt")
	if len(files) == 0 {
		t.Fatal("no compat scripts")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			got := run(t, f, "42", "hello")
			cmd := exec.Command(bt, f, "42", "hello")
			cmd.Env = append(os.Environ(), "BPFTRACE_NO_USER_SYMBOLS=1")
			want, err := cmd.Output()
			if err != nil {
				t.Fatalf("bpftrace %s: %v", f, err)
			}
			if g, w := normalize0_17(got.stdout), normalize0_17(string(want)); g != w {
				t.Errorf("gotrace and bpftrace 0.17 differ (- bpftrace, + gotrace):\n%s\nstderr:\n%s", difftest.Diff(w, g), got.stderr)
			}
		})
	}
}

// TestLanguage runs testdata/lang/*.bt with params 42 hello and compares
// stdout and the exit status with the .out file next to it (the first line
// of a .out file may be "exit N").
func TestLanguage(t *testing.T) {
	files, _ := filepath.Glob("testdata/lang/*.bt")
	if len(files) == 0 {
		t.Fatal("no testdata/lang scripts")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(f, ".bt") + ".out")
			if err != nil {
				t.Fatal(err)
			}
			code, text, err := expectedExit(string(want))
			if err != nil {
				t.Fatal(err)
			}
			wantOutput(t, run(t, f, "42", "hello"), text, code)
		})
	}
}

// expectedExit splits the optional first line "exit N" off a .out file:
// it returns N (0 without the line) and the expected stdout.
func expectedExit(out string) (code int, stdout string, err error) {
	m := regexp.MustCompile(`^exit (\d+)\n`).FindStringSubmatch(out)
	if m == nil {
		return 0, out, nil
	}
	code, err = strconv.Atoi(m[1])
	if err != nil || code > 255 {
		return 0, "", fmt.Errorf("bad exit status line %q", strings.TrimSpace(m[0]))
	}
	return code, out[len(m[0]):], nil
}

func TestExpectedExit(t *testing.T) {
	for _, tc := range []struct {
		out, stdout string
		code        int
	}{
		{"hello\n", "hello\n", 0},
		{"exit 3\nhello\n", "hello\n", 3},
		{"exit 42\n", "", 42},
		{"exit 255\nx", "x", 255},
	} {
		code, stdout, err := expectedExit(tc.out)
		if err != nil || code != tc.code || stdout != tc.stdout {
			t.Errorf("expectedExit(%q) = %d, %q, %v; want %d, %q", tc.out, code, stdout, err, tc.code, tc.stdout)
		}
	}
	if _, _, err := expectedExit("exit 1000\n"); err == nil {
		t.Error("expectedExit accepts exit 1000")
	}
}
