package e2e

import (
	"regexp"
	"testing"
)

// TestBenchMode: --mode bench runs BEGIN, times each bench: probe in
// script order (bpftrace's table, or one JSON object per bench), then END.
func TestBenchMode(t *testing.T) {
	got := run(t, "--mode", "bench", "-e", `begin { print("begin"); } bench:a { @ = count(); } bench:bb { @b++; } end { printf("end\n"); clear(@); clear(@b); }`)
	want := regexp.MustCompile(`^begin\n` +
		`Benchmark                                Time\(ns\)       Iterations\n` +
		`-{66}\n` +
		`a                                        \d+ +\d+\n` +
		`bb                                       \d+ +\d+\n` +
		`end\n\n\n$`)
	if got.code != 0 || !want.MatchString(got.stdout) {
		t.Errorf("--mode bench: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
	got = run(t, "-q", "-f", "json", "--mode", "bench", "-e", `bench:a { @ = count(); }`)
	want = regexp.MustCompile(`^\{"type": "benchmark_result", "data": \{"a": \{"average": \d+, "iters": \d+\}\}\}\n\{"type": "map", "data": \{"@": \d+\}\}\n$`)
	if got.code != 0 || !want.MatchString(got.stdout) {
		t.Errorf("--mode bench -f json: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
}
