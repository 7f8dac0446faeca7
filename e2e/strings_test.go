package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStrTruncation: str(p, n) keeps n-1 characters and the terminator,
// whether n is a constant or computed, and a string that fills max_strlen
// prints with the str_trunc_trailer, whatever max_strlen is.
func TestStrTruncation(t *testing.T) {
	got := run(t, "-c", "/bin/true zztest", "-e", `tracepoint:syscalls:sys_enter_execve /pid == cpid/ {
		$n = (uint16)5;
		printf("%s|%s|%s|%s\n", str(args.filename), str(args.filename, 5), str(args.filename, $n), str(args.filename, 100));
	}`)
	wantOutput(t, got, "/bin/true|/bin|/bin|/bin/true\n\n\n", 0)

	got = run(t, "-c", "/bin/true zztest", "-e", `config = { max_strlen = 5 } tracepoint:syscalls:sys_enter_execve /pid == cpid/ {
		printf("%s|%s\n", str(args.filename), str(args.filename, 5));
		print(str(args.filename));
	}`)
	wantOutput(t, got, "/bin/..|/bin\n/bin/..\n\n\n", 0)

	got = run(t, "-e", `config = { str_trunc_trailer = "_x" } BEGIN {
		$p = "hello world";
		printf("%s|%s|%s|%s\n", str($p, 5), str($p, 1), str("hi", 5), str($p, 11));
		exit();
	}`)
	wantOutput(t, got, "hell||hi|hello worl\n\n\n", 0)

	got = run(t, "-e", `config = { max_strlen = 5; str_trunc_trailer = "_x" } BEGIN {
		$p = "hello world";
		printf("%s|%s\n", str($p), str($p, 3));
		exit();
	}`)
	wantOutput(t, got, "hello_x|he\n\n\n", 0)

	// of a string: a length of 0 empties it, and a run-time length
	// cuts it as a constant one does (bpftrace 0.27)
	got = run(t, "-e", `BEGIN {
		$p = "hello world"; $z = 0; $o = 1; $t = 3; $big = 100;
		printf("%s|%s|%s|%s|%s|%s\n", str($p, 0), str("abc", 0), str($p, $z), str($p, $o), str($p, $t), str($p, $big));
		exit();
	}`)
	wantOutput(t, got, "||||he|hello world\n\n\n", 0)
}

// TestStrBig: with a max_strlen far past the 512-byte BPF stack (the
// probe's values then live in a scratch map value), a 5,556-character
// execve filename is read whole into map keys and values, tuples, printf
// and print arguments and the for-map variable, and printed byte for
// byte, as text and as JSON; a smaller max_strlen of 1024 or more keeps max_strlen-1
// characters without the truncation trailer, as bpftrace 0.26 does.
func TestStrBig(t *testing.T) {
	name := "/" + strings.Repeat("X", 5555)
	// trigger waits for every probe's link: an exec before the second
	// probe of the first script is attached would leave it running.
	trigger := func(s *session, links int) {
		s.waitLinks(links, 20*time.Second)
		_ = exec.Command(name).Run() // fails (ENAMETOOLONG) after the tracepoint
	}
	s := startNoWait(t, "-e", `config = { max_strlen = 9999 }
tracepoint:syscalls:sys_enter_execve /strncmp(str(args.filename), "/XXXX", 5) == 0/ {
	@[str(args.filename)] = count();
	@s[str(args.filename)] = str(args.filename);
	printf("%s\n", str(args.filename));
	print((1, (2, str(args.filename))));
}
tracepoint:syscalls:sys_enter_execve /strncmp(str(args.filename), "/XXXX", 5) == 0/ {
	for ($kv : @s) { print($kv); }
	exit();
}`)
	trigger(s, 2)
	got := s.wait()
	want := name + "\n(1, (2, " + name + "))\n(" + name + ", " + name + ")\n\n\n" +
		"@[" + name + "]: 1\n" +
		"@s[" + name + "]: " + name + "\n"
	wantOutput(t, got, want, 0)

	s = startNoWait(t, "-f", "json", "-e", `config = { max_strlen = 9999 }
tracepoint:syscalls:sys_enter_execve /strncmp(str(args.filename), "/XXXX", 5) == 0/ {
	@[str(args.filename)] = count();
	print((1, str(args.filename)));
	exit();
}`)
	trigger(s, 1)
	wantOutput(t, s.wait(), `{"type": "attached_probes", "count": 1, "data": {"probes": 1}}`+"\n"+
		`{"type": "value", "data": [1,"`+name+`"]}`+"\n"+
		`{"type": "map", "data": {"@": {"`+name+`": 1}}}`+"\n", 0)

	s = startNoWait(t, "-e", `config = { max_strlen = 3000 }
tracepoint:syscalls:sys_enter_execve /strncmp(str(args.filename), "/XXXX", 5) == 0/ {
	printf("%s|%s\n", str(args.filename), str(args.filename, 8));
	exit();
}`)
	trigger(s, 1)
	wantOutput(t, s.wait(), name[:2999]+"|/XXXXXX\n\n\n", 0)
}

// TestStringsInLoops: a bounded loop (for over a range, while) around
// str() loads at the default max_strlen of 1024, which puts the probe's
// strings in a scratch map value: its loop counters stay on the stack,
// where the verifier bounds the loops (kept in the map value, they were
// refused as infinite loops, as in bpftrace's tools/opensnoop.bt).
func TestStringsInLoops(t *testing.T) {
	got := run(t, "-c", "/bin/true", "-e", `tracepoint:syscalls:sys_enter_execve /pid == cpid/ {
		for ($i : 0..2) { printf("%d %s\n", $i, str(args.filename)); }
		$j = 0;
		while ($j < 2) { printf("w%d %s\n", $j, str(args.filename)); $j++; }
	}`)
	wantOutput(t, got, "0 /bin/true\n1 /bin/true\nw0 /bin/true\nw1 /bin/true\n\n\n", 0)
}

// TestStrDefault: the default max_strlen is bpftrace 0.26's 1024: a
// 1000-character string is read and printed whole, a longer one keeps
// 1023 characters, and str() of a pointer is 1024 bytes.
func TestStrDefault(t *testing.T) {
	prefix := uniquePath("strdefault")
	name := prefix + strings.Repeat("X", 1000-len(prefix))
	s := startNoWait(t, "-e", `tracepoint:syscalls:sys_enter_execve /strncmp(str(args.filename), "`+prefix+`", `+strconv.Itoa(len(prefix))+`) == 0/ {
	printf("%d %d %s\n", sizeof(str(args.filename)), strlen(str(args.filename)), str(args.filename));
	if (strlen(str(args.filename)) > 1000) { exit(); }
}`)
	s.waitLinks(1, 20*time.Second)
	_ = exec.Command(name).Run() // fails (ENAMETOOLONG) after the tracepoint
	_ = exec.Command(name + strings.Repeat("Y", 100)).Run()
	want := "1024 1000 " + name + "\n1024 1023 " + (name + strings.Repeat("Y", 100))[:1023] + "\n\n\n"
	wantOutput(t, s.wait(), want, 0)
}

// TestScratchLoops: bounded loops in a probe whose strings are in its
// scratch map value (str() at the default max_strlen): for over constant
// ranges, nested, with break and continue; while with both; a for-map
// body with loops of its own on the callback's stack, reading a variable
// of the probe, and bpf_loop (for over a range known at run time) inside
// it, whose bound comes from the callback; the probe's variable comes back
// from the callbacks changed.
func TestScratchLoops(t *testing.T) {
	prefix := uniquePath("scratchloops")
	name := prefix + strings.Repeat("X", 300-len(prefix))
	s := startNoWait(t, "-e", `tracepoint:syscalls:sys_enter_execve /strncmp(str(args.filename), "`+prefix+`", `+strconv.Itoa(len(prefix))+`) == 0/ {
	$s = str(args.filename);
	$n = 0;
	for ($i : 0..4) {
		for ($j : 0..3) {
			if ($j == 1) { continue; }
			$n += $i * 10 + $j;
		}
		if ($i == 2) { break; }
	}
	$k = 0;
	while ($k < 10) {
		$k++;
		if ($k % 2 == 0) { continue; }
		if ($k > 7) { break; }
		$n += $k;
	}
	@m[$s] = $n;
	$lim = 3;
	for ($kv : @m) {
		$c = 0;
		while ($c < $lim) { $c++; }
		for ($x : 0..$c) { $w = 0; while ($w < $lim) { $w++; } $n += $x + $w; }
		printf("%d %d %d %d\n", strlen($kv.0), $kv.1, $c, $n);
	}
	printf("%d %d %s\n", $n, strlen($s), $s);
	exit();
}`)
	s.waitLinks(1, 20*time.Second)
	_ = exec.Command(name).Run() // fails (ENOENT) after the tracepoint
	// $n: 66 from the for loops, 82 after the while; the callback adds
	// 0+3, 1+3, 2+3.
	want := "300 82 3 94\n94 300 " + name + "\n\n\n@m[" + name + "]: 82\n"
	wantOutput(t, s.wait(), want, 0)
}

// uniquePath is a path prefix no other process executes: the tracepoints
// see every exec on the machine, other test runs' too.
func uniquePath(name string) string {
	return fmt.Sprintf("/gotrace-%s-%d-", name, os.Getpid())
}
