package e2e

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildUSDT compiles testdata/usdt/probes.c, a program with USDT probes
// whose notes it writes itself (gtsdt.h), and returns its path.
func buildUSDT(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("gcc")
	if err != nil {
		if cc, err = exec.LookPath("cc"); err != nil {
			t.Skip("no C compiler (gcc or cc) to build the traced program; scripts/test.sh installs gcc")
		}
	}
	bin := filepath.Join(t.TempDir(), "probes")
	if out, err := exec.Command(cc, "-O0", "-o", bin, "testdata/usdt/probes.c").CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cc, err, out)
	}
	return bin
}

// TestUSDT traces the probes of a child: arguments in registers, memory
// and constants of every size and sign, a probe with two locations whose
// arguments differ, and a probe behind a semaphore that the attachment
// activates; a probe counts once however many locations it has.
func TestUSDT(t *testing.T) {
	bin := buildUSDT(t)
	script := `usdt:` + bin + `:gt:args { printf("args %d %lld %d %d %s %d\n", arg0, arg1, arg2, arg3, str(arg4), arg5); }
usdt:` + bin + `:gt:twice { printf("twice %d %s\n", arg0, probe); }
U:` + bin + `:tick { printf("tick %d\n", arg0); }`
	got := run(t, "-e", script, "-c", bin+" 2")
	want := fmt.Sprintf(`args -1 81985529216486895 -1000 201 hello -7
twice 1 usdt:%[1]s:gt:twice
twice -100 usdt:%[1]s:gt:twice
tick 1
args -2 163971058432973790 -2000 202 hello -7
twice 2 usdt:%[1]s:gt:twice
twice -200 usdt:%[1]s:gt:twice
tick 1


`, bin)
	wantOutput(t, got, want, 0)
	if !strings.Contains(got.stderr, "Attached 3 probes") {
		t.Errorf("stderr %q does not say Attached 3 probes", got.stderr)
	}
	// Without a tracer the semaphore is 0: the probe behind it does not fire.
	if out, err := exec.Command(bin, "1").CombinedOutput(); err != nil || len(out) != 0 {
		t.Errorf("untraced run: %v %q", err, out)
	}
}

// TestUSDTList: -l lists a binary's probes (one line per probe, not per
// location, sorted), filtered by namespace and name globs, and with -p the probes
// of a running process, under /proc/PID/root as bpftrace lists them.
func TestUSDTList(t *testing.T) {
	bin := buildUSDT(t)
	for _, tc := range []struct{ pattern, want string }{
		{"usdt:" + bin + ":*", "usdt:%[1]s:gt:args\nusdt:%[1]s:gt:tick\nusdt:%[1]s:gt:twice\n"},
		{"usdt:" + bin + ":gt:t*", "usdt:%[1]s:gt:tick\nusdt:%[1]s:gt:twice\n"},
		{"U:" + bin + ":args", "usdt:%[1]s:gt:args\n"},
		{"usdt:" + bin + ":other:*", "%.0[1]s"},
	} {
		got := run(t, "-l", tc.pattern)
		wantOutput(t, got, fmt.Sprintf(tc.want, bin), 0)
	}

	proc := exec.Command(bin, "0")
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { proc.Process.Kill(); proc.Wait() }()
	time.Sleep(100 * time.Millisecond) // the program has mapped its libraries
	pid := proc.Process.Pid
	got := run(t, "-l", "usdt:*:gt:tick", "-p", fmt.Sprint(pid))
	wantOutput(t, got, fmt.Sprintf("usdt:/proc/%d/root%s:gt:tick\n", pid, bin), 0)
	// Attached to the process by pid, with the binary left out.
	got = run(t, "-e", `usdt::gt:tick { printf("tick %d\n", arg0); exit(); }`, "-p", fmt.Sprint(pid))
	wantOutput(t, got, "tick 1\n\n\n", 0)
}

// TestUSDTErrors: a probe that matches nothing and a missing binary are
// positioned errors.
func TestUSDTErrors(t *testing.T) {
	bin := buildUSDT(t)
	got := run(t, "-e", `usdt:`+bin+`:gt:nosuch { exit(); }`)
	want := fmt.Sprintf("stdin:1:1-%d: ERROR: No matches for usdt %s:gt:nosuch.\n", len("usdt:"+bin+":gt:nosuch")+1, bin)
	if got.code != 1 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("exit %d, stderr %q, want prefix %q", got.code, got.stderr, want)
	}
}
