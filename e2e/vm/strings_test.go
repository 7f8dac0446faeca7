package vm

import (
	"bytes"
	"os/exec"
	"testing"
)

// TestStringLoops: bounded loops in probes whose strings are in their
// scratch map value, on each guest kernel's verifier: at the default
// max_strlen (a per-CPU value) nested for loops with break and continue,
// while, and loops in a for-map callback and in a bpf_loop callback inside
// it, bounded by and updating a variable of the probe; and with strings
// past 32 KiB in all (an array value per CPU, the real stack's window in
// its middle).
func TestStringLoops(t *testing.T) {
	bin := gotraceBin(t)
	for _, tc := range []struct{ script, want string }{
		{`begin {
	$s = str(0);
	$n = 0;
	for ($i : 0..4) {
		for ($j : 0..3) { if ($j == 1) { continue; } $n += $i * 10 + $j; }
		if ($i == 2) { break; }
	}
	$k = 0;
	while ($k < 10) { $k++; if ($k % 2 == 0) { continue; } if ($k > 7) { break; } $n += $k; }
	@m[$s] = $n;
	$lim = 3;
	for ($kv : @m) {
		$c = 0;
		while ($c < $lim) { $c++; }
		for ($x : 0..$c) { $w = 0; while ($w < $lim) { $w++; } $n += $x + $w; }
		printf("%d %d %d [%s]\n", $kv.1, $c, $n, $kv.0);
	}
	printf("%d %d [%s]\n", $n, sizeof($s), $s);
	clear(@m);
	exit();
}`, "82 3 94 []\n94 1024 []\n\n\n"},
		{`config = { max_strlen = 6000 } begin {
	$a = str(0); $b = str(0); $c = str(0); $d = str(0);
	$i = 0; $n = 0;
	while ($i < 5) { $i++; if ($i == 2) { continue; } $n += $i; }
	printf("%d %d [%s%s%s%s]\n", $n, sizeof($a) * 4, $a, $b, $c, $d);
	exit();
}`, "13 24000 []\n\n\n"},
	} {
		cmd := exec.Command(bin, "-e", tc.script)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: %v; stderr:\n%s", tc.script, err, stderr.String())
			continue
		}
		wantStdout(t, string(out), tc.want, stderr.String())
	}
}
