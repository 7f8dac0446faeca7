package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestTestMode: --test runs each test: probe once after BEGIN, as bpftrace
// 0.27.1 does: a passing test's output is dropped, a failing one's (an
// error, a non-zero exit()) is shown before its FAILED line, the summary
// lists the failures, END runs, no maps are printed at exit, and the exit
// code is 1 when a test failed. Times vary: (N unit).
func TestTestMode(t *testing.T) {
	got := run(t, "--test", "-e", `begin { print("begin"); }
test:adds { @x = 1 + 2; if (@x != 3) { exit(1); } print("adds"); }
test:fails { printf("about to fail\n"); exit(2); }
test:asserts { assert(1 == 2, "one is not two"); }
end { printf("end %d\n", @x); }`)
	want := regexp.MustCompile(`^` + regexp.QuoteMeta("\033[32m[==========]\033[0m Running 3 tests.\n"+
		"\033[32m[ RUN      ]\033[0m adds\n"+
		"\033[32m[       OK ]\033[0m adds") + ` \(\d+ (ns|μs|ms|s)\)\n` +
		regexp.QuoteMeta("\033[32m[ RUN      ]\033[0m fails\n"+
			"about to fail\n"+
			"\033[31m[  FAILED  ]\033[0m fails") + ` \(\d+ (ns|μs|ms|s)\)\n` +
		regexp.QuoteMeta("\033[32m[ RUN      ]\033[0m asserts\n") +
		`stdin:4:\d+-\d+: ERROR: assert failed: one is not two\n(.*\n)*` +
		regexp.QuoteMeta("\033[31m[  FAILED  ]\033[0m asserts") + ` \(\d+ (ns|μs|ms|s)\)\n` +
		regexp.QuoteMeta("\033[32m[==========]\033[0m 3 tests ran.\n"+
			"\033[32m[  PASSED  ]\033[0m 1 test.\n"+
			"\033[31m[  FAILED  ]\033[0m 2 tests, listed below:\n"+
			"\033[31m[  FAILED  ]\033[0m fails\n"+
			"\033[31m[  FAILED  ]\033[0m asserts\n"+
			"end 3\n\n\n") + `$`)
	if got.code != 1 || !want.MatchString(got.stdout) {
		t.Errorf("--test: exit %d, want 1; stdout:\n%s\nstderr:\n%s", got.code, got.stdout, got.stderr)
	}
	if strings.Contains(got.stderr, "Attached") {
		t.Errorf("--test printed the Attached line: %q", got.stderr)
	}

	// Passing tests exit 0; JSON gives each test's output, BEGIN's with
	// the first.
	got = run(t, "-f", "json", "--mode", "test", "-e", `begin { printf("b\n"); } test:one { printf("1\n"); } test:two { printf("2\n"); }`)
	want = regexp.MustCompile(`^\{"type": "test_result", "data": \{"one": \{"duration": \d+, "passed": true, "output": "b\\n1\\n"\}\}\}\n` +
		`\{"type": "test_result", "data": \{"two": \{"duration": \d+, "passed": true, "output": "2\\n"\}\}\}\n$`)
	if got.code != 0 || !want.MatchString(got.stdout) {
		t.Errorf("--mode test -f json: exit %d; stdout:\n%s\nstderr:\n%s", got.code, got.stdout, got.stderr)
	}

	// Without --test, test probes do not run.
	got = run(t, "-e", `test:one { printf("1\n"); }`)
	if got.code == 0 || got.stdout != "" || !strings.Contains(got.stderr, "ERROR: No probes attached; use --test to run test probes.") {
		t.Errorf("test probes without --test: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
}

// TestNoFeature: --no-feature takes bpftrace's feature names, comma
// separated; --no-feature uprobe_multi attaches a uprobe on two
// functions with one perf event each, which fire.
func TestNoFeature(t *testing.T) {
	got := run(t, "--no-feature", "kprobe_multi,bogus", "-e", `begin { exit(); }`)
	if got.code != 1 || !strings.Contains(got.stderr, "ERROR: USAGE: --no-feature can only have values 'fsession,kprobe_multi,kprobe_session,uprobe_multi'.") {
		t.Errorf("--no-feature bogus: exit %d, stderr %q", got.code, got.stderr)
	}
	bin := buildShop(t)
	got = run(t, "--no-feature", "uprobe_multi", "--no-feature", "kprobe_session", "-c", bin,
		"-e", `uprobe:`+bin+`:cpp:"shop::price" { @++; } uprobe:`+bin+`:receipt { exit(); }`)
	wantOutput(t, got, "\n\n@: 2\n", 0)
}

// TestDwarfPid: --dwarf-pid takes a pid, as bpftrace's does.
func TestDwarfPid(t *testing.T) {
	got := run(t, "--dwarf-pid", "abc", "-e", `begin { exit(); }`)
	if got.code != 1 || !strings.Contains(got.stderr, "ERROR: Failed to parse pid: invalid integer: abc") {
		t.Errorf("--dwarf-pid abc: exit %d, stderr %q", got.code, got.stderr)
	}
	wantOutput(t, run(t, "--dwarf-pid", "1", "-e", `begin { printf("ok\n"); exit(); }`), "ok\n\n\n", 0)
}

// TestColorEnv: BPFTRACE_COLOR=always colours an error's message line red
// and a warning's yellow, as bpftrace does, even when stderr is no
// terminal; never (and auto, here) leaves them plain.
func TestColorEnv(t *testing.T) {
	t.Setenv("BPFTRACE_COLOR", "always")
	got := run(t, "-e", `begin { @x = nosuch(); }`)
	if want := "\033[31mstdin:1:14-22: ERROR: "; got.code != 1 || !strings.HasPrefix(got.stderr, want) || !strings.Contains(got.stderr, "\033[0m\nbegin { @x = nosuch(); }\n") {
		t.Errorf("always: exit %d, stderr %q", got.code, got.stderr)
	}
	t.Setenv("BPFTRACE_COLOR", "never")
	if got := run(t, "-e", `begin { @x = nosuch(); }`); strings.Contains(got.stderr, "\033[") {
		t.Errorf("never: stderr %q", got.stderr)
	}
}
