package e2e

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBufRuntimeLength: buf() of a length known only at run time (the
// count of this process's write(2) calls to /dev/null) carries its length:
// printf's %r, %rx and %rh, print(), map keys and values, and JSON show
// exactly that many bytes; a length past max_strlen-4 (12 here) or a
// negative one reads 12; buffers of different lengths are different keys,
// and compare equal only to a buffer of the same length and bytes (one of
// a constant length too). The syscall dispatchers
// (GOTRACE_SYSCALL_TRACEPOINTS=raw) read the same.
func TestBufRuntimeLength(t *testing.T) {
	devnull, err := os.OpenFile("/dev/null", os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	fd := int(devnull.Fd())
	script := `config = { max_strlen = 16 }
tracepoint:syscalls:sys_enter_write /pid == $1 && args.fd == $2/ {
	$b = buf(args.buf, args.count);
	printf("same=%d hi=%d\n", $b == @last, $b == buf("hi\x00", 3));
	printf("%d [%r] [%rx] [%rh]\n", args.count, $b, $b, $b);
	@k[$b] = count();
	@last = $b;
	if (args.count == 3) { print(buf(args.buf, args.count - 4)); print(sizeof($b)); }
}`
	data := []byte("hi\x00\x01\xffthere\nABCDEFGHI")
	trace := func(args ...string) result {
		s := startNoWait(t, append(args, "-e", script, strconv.Itoa(os.Getpid()), strconv.Itoa(fd))...)
		s.waitLinks(1, 20*time.Second)
		for _, n := range []int{0, 11, 11, 3, 20} {
			if _, err := syscall.Write(fd, data[:n]); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(200 * time.Millisecond)
		return s.stop(syscall.SIGINT)
	}
	wantText := `same=1 hi=0
0 [] [] []
same=0 hi=0
11 [hi\x00\x01\xffthere\x0a] [\x68\x69\x00\x01\xff\x74\x68\x65\x72\x65\x0a] [68 69 00 01 ff 74 68 65 72 65 0a]
same=1 hi=0
11 [hi\x00\x01\xffthere\x0a] [\x68\x69\x00\x01\xff\x74\x68\x65\x72\x65\x0a] [68 69 00 01 ff 74 68 65 72 65 0a]
same=0 hi=1
3 [hi\x00] [\x68\x69\x00] [68 69 00]
hi\x00\x01\xffthere\x0aA
16
same=0 hi=0
20 [hi\x00\x01\xffthere\x0aA] [\x68\x69\x00\x01\xff\x74\x68\x65\x72\x65\x0a\x41] [68 69 00 01 ff 74 68 65 72 65 0a 41]


@k[]: 1
@k[hi\x00]: 1
@k[hi\x00\x01\xffthere\x0aA]: 1
@k[hi\x00\x01\xffthere\x0a]: 2
@last: hi\x00\x01\xffthere\x0aA
`
	wantOutput(t, trace(), wantText, 0)
	wantJSON := `{"type": "attached_probes", "count": 1, "data": {"probes": 1}}
{"type": "printf", "data": "same=1 hi=0\n"}
{"type": "printf", "data": "0 [] [] []\n"}
{"type": "printf", "data": "same=0 hi=0\n"}
{"type": "printf", "data": "11 [hi\\x00\\x01\\xffthere\\x0a] [\\x68\\x69\\x00\\x01\\xff\\x74\\x68\\x65\\x72\\x65\\x0a] [68 69 00 01 ff 74 68 65 72 65 0a]\n"}
{"type": "printf", "data": "same=1 hi=0\n"}
{"type": "printf", "data": "11 [hi\\x00\\x01\\xffthere\\x0a] [\\x68\\x69\\x00\\x01\\xff\\x74\\x68\\x65\\x72\\x65\\x0a] [68 69 00 01 ff 74 68 65 72 65 0a]\n"}
{"type": "printf", "data": "same=0 hi=1\n"}
{"type": "printf", "data": "3 [hi\\x00] [\\x68\\x69\\x00] [68 69 00]\n"}
{"type": "value", "data": [104,105,0,1,-1,116,104,101,114,101,10,65]}
{"type": "value", "data": 16}
{"type": "printf", "data": "same=0 hi=0\n"}
{"type": "printf", "data": "20 [hi\\x00\\x01\\xffthere\\x0aA] [\\x68\\x69\\x00\\x01\\xff\\x74\\x68\\x65\\x72\\x65\\x0a\\x41] [68 69 00 01 ff 74 68 65 72 65 0a 41]\n"}
{"type": "map", "data": {"@k": {"": 1, "hi\\x00": 1, "hi\\x00\\x01\\xffthere\\x0aA": 1, "hi\\x00\\x01\\xffthere\\x0a": 2}}}
{"type": "map", "data": {"@last": [104,105,0,1,-1,116,104,101,114,101,10,65]}}
`
	wantOutput(t, trace("-f", "json"), wantJSON, 0)
	t.Setenv("GOTRACE_SYSCALL_TRACEPOINTS", "raw")
	wantOutput(t, trace(), wantText, 0)
}

// TestBufRuntimeLengthKprobe: the verifier accepts buf() of an sk_buff's
// run-time length read through a pointer kept in a map, as bpftrace's
// tools/undump.bt does (--dry-run loads the kprobe programs even on a
// kernel that cannot attach them).
func TestBufRuntimeLengthKprobe(t *testing.T) {
	got := run(t, "--dry-run", "-e", `kprobe:skb_copy_datagram_iter { @skbs[tid] = (struct sk_buff *)arg0; }
kretprobe:skb_copy_datagram_iter /has_key(@skbs, tid)/ {
	if (retval == 0) { $skb = @skbs[tid]; printf("%-8d %r\n", $skb.len, buf($skb.data, $skb.len)); }
	delete(@skbs, tid);
}`)
	// stderr may warn (delete's value is discarded, as bpftrace 0.27 says)
	if got.code != 0 || got.stdout != "" || strings.Contains(got.stderr, "ERROR") ||
		got.stderr != "" && !strings.Contains(got.stderr, "dry run: the script is valid") && !strings.Contains(got.stderr, "WARNING: Return value discarded.") {
		t.Errorf("--dry-run: exit %d, stdout %q, stderr %q; want exit 0", got.code, got.stdout, got.stderr)
	}
}
