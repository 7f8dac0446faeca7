package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTimerNanoseconds: interval:N counts N in nanoseconds, as bpftrace
// 0.26 does: interval:500000000 fires twice a second, and profile:N
// attaches with a period of N ns.
func TestTimerNanoseconds(t *testing.T) {
	got := run(t, "-e", `interval:250000000 { @n = count(); if (@n == 4) { exit(); } } profile:10000000 { @p = count(); }`)
	if got.code != 0 || !regexp.MustCompile(`(?m)^@n: 4\n@p: [1-9]\d*\n$`).MatchString(got.stdout) {
		t.Errorf("exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
	got = run(t, "-e", `interval:999 { exit(); }`)
	if got.code != 1 || !strings.Contains(got.stderr, "minimum is 1000 or 1us, found 999 nanoseconds") {
		t.Errorf("interval:999: exit %d stderr %q", got.code, got.stderr)
	}
}

// TestSoftwareDefaultCount: software:EVENT: and software:EVENT take the
// event's default count; counts may be written 1e5.
func TestSoftwareDefaultCount(t *testing.T) {
	got := run(t, "-e", `software:cpu-clock: { @a = count(); } software:cpu { @b = count(); } software:cpu:1e5 { @c = count(); } interval:ms:300 { exit(); }`)
	if got.code != 0 || !regexp.MustCompile(`(?m)^@a: [1-9]\d*\n@b: [1-9]\d*\n@c: [1-9]\d*\n$`).MatchString(got.stdout) {
		t.Errorf("exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
}

// TestPidPerfEvents: with -p, profile and software probes sample only
// that process (their perf events are opened for it, as bpftrace does).
func TestPidPerfEvents(t *testing.T) {
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Process.Kill(); _ = busy.Wait() }()
	pid := busy.Process.Pid
	got := run(t, "-p", fmt.Sprint(pid), "-e",
		`profile:hz:499 { @p[pid] = count(); } software:cpu-clock:1000000 { @s[pid] = count(); } interval:ms:600 { exit(); }`)
	if got.code != 0 {
		t.Fatalf("exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
	lines := regexp.MustCompile(`(?m)^@(\w)\[(\d+)\]: \d+$`).FindAllStringSubmatch(got.stdout, -1)
	seen := map[string]bool{}
	for _, l := range lines {
		if l[2] != fmt.Sprint(pid) {
			t.Errorf("@%s counted pid %s, want only %d:\n%s", l[1], l[2], pid, got.stdout)
		}
		seen[l[1]] = true
	}
	if !seen["p"] || !seen["s"] {
		t.Errorf("the busy process was not sampled by both probes:\n%s", got.stdout)
	}
}

// TestChildPerfEvents: with -c, profile and software probes sample only
// the child, as bpftrace 0.27.1 does (they sampled every process, here a
// busy bystander too).
func TestChildPerfEvents(t *testing.T) {
	busy := exec.Command("sh", "-c", "while :; do :; done")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Process.Kill(); _ = busy.Wait() }()
	got := run(t, "-c", "/bin/dd if=/dev/zero of=/dev/null bs=1 count=300000", "-e",
		`profile:hz:499 { @p[pid == cpid ? "child" : "other"] = count(); } software:cpu-clock:1000000 { @s[pid == cpid ? "child" : "other"] = count(); }`)
	if got.code != 0 {
		t.Fatalf("exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
	keys := regexp.MustCompile(`(?m)^@\w\[\w+\]`).FindAllString(got.stdout, -1)
	if want := []string{"@p[child]", "@s[child]"}; !slices.Equal(keys, want) {
		t.Errorf("sampled %v, want %v:\n%s", keys, want, got.stdout)
	}
}

// TestListProviders: -l lists software, hardware, interval and profile
// probes, and the functions of a binary for uprobe, as bpftrace does.
func TestListProviders(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		want    string // a line of the output
	}{
		{"software:*", "software:cpu-clock:"},
		{"s:faults", "software:faults:"},
		{"hardware:*", "hardware:cache-misses:"},
		{"interval:*", "interval:ms:"},
		{"profile:*", "profile:hz:"},
		{"uprobe:libc:malloc*", ".so.6:malloc\n"},
	} {
		got := run(t, "-l", tc.pattern)
		if got.code != 0 || !strings.Contains(got.stdout, tc.want) {
			t.Errorf("-l %s: exit %d, stdout %.300q, stderr %q; want a line %q", tc.pattern, got.code, got.stdout, got.stderr, tc.want)
		}
	}
}

// TestMaxProbes: a script attaching more probes than max_probes (config
// or BPFTRACE_MAX_PROBES; 1024 by default) is refused with bpftrace's
// error before anything is attached.
func TestMaxProbes(t *testing.T) {
	// The message is bpftrace's; the prefix is how the CLI reports run
	// errors.
	const want = "Can't attach to 3 probes because it exceeds the current limit of 2 probes.\n" +
		"You can increase the limit through the BPFTRACE_MAX_PROBES environment variable, " +
		"but BE CAREFUL since a high number of probes attached can cause your system to crash.\n"
	got := run(t, "-e", `config = { max_probes = 2 } BEGIN { printf("begin\n"); } tracepoint:syscalls:sys_enter_getppid, tracepoint:syscalls:sys_enter_getpid { exit(); }`)
	if got.code != 1 || got.stdout != "" || !strings.HasSuffix(got.stderr, ": "+want) {
		t.Errorf("max_probes = 2: exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
	got = runEnv(t, []string{"BPFTRACE_MAX_PROBES=2"}, "-e", `BEGIN { printf("begin\n"); } tracepoint:syscalls:sys_enter_getppid, tracepoint:syscalls:sys_enter_getpid { exit(); }`)
	if got.code != 1 || got.stdout != "" || !strings.HasSuffix(got.stderr, ": "+want) {
		t.Errorf("BPFTRACE_MAX_PROBES=2: exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
	// The default limit is 1024: every tracepoint of this kernel is more.
	if n := strings.Count(run(t, "-l", "tracepoint:*:*").stdout, "\n"); n <= 1024 {
		t.Skipf("only %d tracepoints, not more than the default limit", n)
	}
	// A wildcard tracepoint is one program per match, as in bpftrace 0.27:
	// its max_bpf_progs (1024) refuses it first, at the attach point.
	got = run(t, "-e", `tracepoint:*:* { exit(); }`)
	if got.code != 1 || !strings.HasPrefix(got.stderr, "stdin:1:1-15: ERROR: Your program is trying to generate more than ") ||
		!strings.Contains(got.stderr, "BPF programs, which exceeds the current limit of 1024\n") {
		t.Errorf("tracepoint:*:*: exit %d stderr %.300q", got.code, got.stderr)
	}
	// With room for the programs, max_probes refuses the attach.
	got = runEnv(t, []string{"BPFTRACE_MAX_BPF_PROGS=100000"}, "-e", `tracepoint:*:* { exit(); }`)
	if got.code != 1 || !strings.Contains(got.stderr, "exceeds the current limit of 1024 probes") {
		t.Errorf("tracepoint:*:* with BPFTRACE_MAX_BPF_PROGS=100000: exit %d stderr %.300q", got.code, got.stderr)
	}
}

// runEnv is run with extra environment variables.
func runEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, gotrace(t), args...)
	cmd.Env = append(os.Environ(), env...)
	return runCmd(t, cmd)
}

// TestChildUprobes: with -c, uprobes (one or a uprobe_multi wildcard) fire
// only in the child, as bpftrace attaches every probe to the child's pid;
// another process calling the same libc function is not counted.
func TestChildUprobes(t *testing.T) {
	busy := exec.Command("/bin/dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=1000000000")
	if err := busy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = busy.Process.Kill(); _ = busy.Wait() }()
	got := run(t, "-c", "/bin/dd if=/dev/zero of=/dev/null bs=1 count=3000", "-e",
		`uprobe:libc:read { @one[pid == cpid ? "child" : "other"] = count(); } uprobe:libc:rea? { @multi[pid == cpid ? "child" : "other"] = count(); }`)
	if got.code != 0 {
		t.Fatalf("exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
	}
	keys := regexp.MustCompile(`(?m)^@\w+\[\w+\]`).FindAllString(got.stdout, -1)
	if want := []string{"@multi[child]", "@one[child]"}; !slices.Equal(keys, want) {
		t.Errorf("counted %v, want %v:\n%s", keys, want, got.stdout)
	}
}
