package vm

import (
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestBufSkbData traces reads from a unix stream socket as bpftrace's
// tools/undump.bt does: the sk_buff that unix_stream_recvmsg copies out is
// kept in a map at skb_copy_datagram_iter's entry and printed at its
// return with buf() of its run-time length, at most max_strlen-4 (1020
// at the default max_strlen) bytes.
func TestBufSkbData(t *testing.T) {
	gotraceBin(t)
	tid := lockThread(t)
	// Two links where each kprobe/kretprobe pair is a kprobe session, four
	// where not.
	tr := startTrace(t, linksReady(2), "-e", `kprobe:unix_stream_recvmsg /tid == $1/ { @recv[tid] = 1; }
kretprobe:unix_stream_recvmsg /tid == $1/ { delete(@recv, tid); }
kprobe:skb_copy_datagram_iter /has_key(@recv, tid)/ { @skbs[tid] = (struct sk_buff *)arg0; }
kretprobe:skb_copy_datagram_iter /has_key(@skbs, tid)/ {
	if (retval == 0) { $skb = @skbs[tid]; printf("%d %r\n", $skb.len, buf($skb.data, $skb.len)); }
	delete(@skbs, tid);
}
END { clear(@recv); clear(@skbs); }`, strconv.Itoa(tid))
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	long, longer := strings.Repeat("0123456789", 10), strings.Repeat("0123456789", 110)
	for _, msg := range []string{"Hello, world\n", "123abc\x01\n", long, longer} {
		if _, err := unix.Write(fds[0], []byte(msg)); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 2000)
		if n, err := unix.Read(fds[1], b); err != nil || n != len(msg) {
			t.Fatalf("read %d bytes (%v), want %d", n, err, len(msg))
		}
	}
	want := "13 Hello, world\\x0a\n8 123abc\\x01\\x0a\n100 " + long + "\n1100 " + longer[:1020] + "\n"
	tr.waitStdout(want)
	out, errs := tr.stop()
	wantStdout(t, out, want+"\n\n", errs)
}
