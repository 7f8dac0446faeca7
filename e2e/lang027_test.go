package e2e

import (
	"regexp"
	"testing"
)

// TestMapAddr: &@m is the map's kernel address (bpftrace 0.27), the same
// on every use, a map key, and printed in hex as every pointer is.
func TestMapAddr(t *testing.T) {
	got := run(t, "-e", `begin { @m[1] = 2; $p = &@m; @n[&@m] = 1; print($p == &@m); print($p != 0); print((int8 *)1234); print($p); exit(); }`)
	want := regexp.MustCompile(`^true\ntrue\n0x4d2\n0xffff[0-9a-f]{12}\n\n\n@m\[1\]: 2\n@n\[0xffff[0-9a-f]{12}\]: 1\n$`)
	if got.code != 0 || !want.MatchString(got.stdout) {
		t.Errorf("exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
}

// TestNamedAttachPoint: name=provider:... names an attach point (bpftrace
// 0.27); the probe is the attach point without the name.
func TestNamedAttachPoint(t *testing.T) {
	wantOutput(t, run(t, "-e", `tick=interval:ms:10 { print(probe); exit(); } first=begin, last=end { print(probe); }`),
		"begin\ninterval:ms:10\nend\n\n\n", 0)
}

// TestStrlenPointer: strlen() and strcap() of an int8 pointer read the
// string it points to, up to max_strlen bytes (bpftrace's strnlen).
func TestStrlenPointer(t *testing.T) {
	wantOutput(t, run(t, "-e", `begin { $s = "hello"; $p = (int8 *)&$s; $e = ""; print(strlen($p)); print(strcap($p)); print(strlen((int8 *)&$e)); exit(); }`),
		"5\n5\n0\n\n\n", 0)
	wantOutput(t, run(t, "-e", `config = { max_strlen = 3 } begin { $s = "hello"; print(strlen((int8 *)&$s)); exit(); }`),
		"3\n\n\n", 0)
}
