package e2e

import (
	"os/exec"
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
}

// TestStrBig: with a max_strlen far past the 512-byte BPF stack (the
// probe's values then live in a scratch map value), a 5,556-character
// execve filename is read whole into map keys and values, tuples, printf
// and print arguments and the for-map variable, and printed byte for
// byte, as text and as JSON; a smaller max_strlen of 1024 or more keeps max_strlen-1
// characters without the truncation trailer, as bpftrace 0.26 does.
func TestStrBig(t *testing.T) {
	name := "/" + strings.Repeat("X", 5555)
	trigger := func(s *session) {
		s.waitLinks(1, 20*time.Second)
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
	trigger(s)
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
	trigger(s)
	wantOutput(t, s.wait(), `{"type": "attached_probes", "count": 1, "data": {"probes": 1}}`+"\n"+
		`{"type": "value", "data": [1,"`+name+`"]}`+"\n"+
		`{"type": "map", "data": {"@": {"`+name+`": 1}}}`+"\n", 0)

	s = startNoWait(t, "-e", `config = { max_strlen = 3000 }
tracepoint:syscalls:sys_enter_execve /strncmp(str(args.filename), "/XXXX", 5) == 0/ {
	printf("%s|%s\n", str(args.filename), str(args.filename, 8));
	exit();
}`)
	trigger(s)
	wantOutput(t, s.wait(), name[:2999]+"|/XXXXXX\n\n\n", 0)
}

// TestStringsInLoops: a bounded loop (for over a range, while) around
// str() loads at the default max_strlen. With the 0.26 default of 1024
// the probe's frame moved to a scratch map value, where the verifier does
// not track the loop counter, and it refused the loop as infinite
// (bpftrace's tools/opensnoop.bt).
func TestStringsInLoops(t *testing.T) {
	got := run(t, "-c", "/bin/true", "-e", `tracepoint:syscalls:sys_enter_execve /pid == cpid/ {
		for ($i : 0..2) { printf("%d %s\n", $i, str(args.filename)); }
		$j = 0;
		while ($j < 2) { printf("w%d %s\n", $j, str(args.filename)); $j++; }
	}`)
	wantOutput(t, got, "0 /bin/true\n1 /bin/true\nw0 /bin/true\nw1 /bin/true\n\n\n", 0)
}
