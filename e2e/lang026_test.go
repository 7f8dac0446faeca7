package e2e

import "testing"

// TestTypeof: typeof(x) as a type in casts, let and sizeof, with the types
// bpftrace 0.26 gives (a variable's own type, a keyed map's key type).
func TestTypeof(t *testing.T) {
	script := `BEGIN { $x = (uint16)1; $y = (typeof($x))70000; @m[(int8)1, "a"] = 1; let $k: typeof(@m) = (3, "b"); ` +
		`printf("%d %d %d %d\n", $y, sizeof(typeof($x)), $k.0, sizeof($k)); @m[$k] = 2; exit(); }`
	wantOutput(t, run(t, "-e", script), "4464 2 3 3\n\n\n@m[1, a]: 1\n@m[3, b]: 2\n", 0)
}

// TestIntSuffixes: C integer suffixes on literals and in #define values.
func TestIntSuffixes(t *testing.T) {
	script := "#define X 0x10UL\nBEGIN { print(123UL + X); print(1u); print(10LL * 1_000ull); exit(); }"
	wantOutput(t, run(t, "-e", script), "139\n1\n10000\n\n\n", 0)
}
