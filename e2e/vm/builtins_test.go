package vm

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPercpuKaddr: percpu_kaddr() reads per-CPU kernel variables, on this
// CPU and on a given one (a run queue knows its CPU), on kernels whose kallsyms lists variables
// (Debian's have CONFIG_KALLSYMS_ALL; the host's e2e test sees the error
// of a kernel without it).
func TestPercpuKaddr(t *testing.T) {
	bin := gotraceBin(t)
	for _, tc := range []struct{ script, want string }{
		{`begin { $rq = (struct rq *)percpu_kaddr("runqueues", 0); if (*percpu_kaddr("process_counts") == *percpu_kaddr("process_counts", cpu) && $rq != 0 && $rq.nr_running >= 0) { printf("ok %d %d\n", $rq.cpu, ((struct rq *)percpu_kaddr("runqueues")).cpu == cpu) } exit() }`, "ok 0 1\n\n\n"},
		// bpf_per_cpu_ptr may return null: a test against 0 lets the
		// verifier accept the member read.
		{`begin { $rq = (struct rq *)percpu_kaddr("runqueues", 0); if ($rq != 0) { printf("cpu %d\n", $rq.cpu) } exit() }`, "cpu 0\n\n\n"},
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

// TestSkboutputFentry: skboutput() in an fentry probe on __dev_queue_xmit
// writes the packets of known loopback sends to a pcap file, without their
// Ethernet header (offset 14): raw IPv4 packets that end with the data
// sent.
func TestSkboutputFentry(t *testing.T) {
	gotraceBin(t)
	c, _ := tcpPair(t)
	tid := lockThread(t)
	file := filepath.Join(t.TempDir(), "skb.pcap")
	payload := strings.Repeat("gotrace-skb-", 10)
	tr := startTrace(t, linksReady(1), "-e", `fentry:__dev_queue_xmit /tid == $1/ { @r[skboutput("`+file+`", args.skb, args.skb->len, 14)] = count(); }`, strconv.Itoa(tid))
	for range 3 {
		if _, err := c.Write([]byte(payload)); err != nil {
			t.Fatal(err)
		}
	}
	out, errs := tr.stop()
	if !strings.HasPrefix(out, "\n\n@r[0]: ") {
		t.Fatalf("stdout:\n%s\nstderr:\n%s", out, errs)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	if len(data) < 24 || le.Uint32(data) != 0xa1b2c3d4 || le.Uint32(data[20:]) != 101 {
		t.Fatalf("pcap header % x", data[:min(len(data), 24)])
	}
	found := 0
	for rest := data[24:]; len(rest) >= 16; {
		n := int(le.Uint32(rest[8:]))
		if len(rest) < 16+n {
			t.Fatalf("truncated packet of %d bytes", n)
		}
		pkt := rest[16 : 16+n]
		if len(pkt) == 0 || pkt[0]>>4 != 4 {
			t.Errorf("not an IPv4 packet: % x", pkt[:min(len(pkt), 20)])
		}
		if bytes.HasSuffix(pkt, []byte(payload)) {
			found++
		}
		rest = rest[16+n:]
	}
	if found != 3 {
		t.Errorf("%d packets end with the data sent, want 3", found)
	}
}
