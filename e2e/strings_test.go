package e2e

import "testing"

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
