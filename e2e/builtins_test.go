package e2e

import (
	byteorder "encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/builtin"
)

// TestBuiltinExamples runs the example of every builtin whose probe exists
// on this host: BEGIN examples to their end, getppid tracepoint examples
// through three calls. Each must load, run and exit cleanly; the other
// examples (kprobes, fentry, uprobes) are compile-only (builtin's table
// test).
func TestBuiltinExamples(t *testing.T) {
	type entry struct{ name, example string }
	var all []entry
	for _, f := range builtin.Funcs() {
		all = append(all, entry{f.Name + "()", f.Example})
	}
	for _, v := range builtin.Vars() {
		all = append(all, entry{v.Name, v.Example})
	}
	for _, e := range all {
		t.Run(e.name, func(t *testing.T) {
			args := []string{"--unsafe"}
			if strings.Contains(e.example, "cpid") {
				args = append(args, "-c", "/bin/true")
			}
			var got result
			_, refused := exampleErrors[e.name]
			switch {
			case refused:
				got = run(t, append(args, "-e", e.example)...)
			case strings.HasPrefix(e.example, "BEGIN"):
				got = run(t, append(args, "-e", e.example+" BEGIN { exit() }")...)
			case strings.HasPrefix(e.example, "profile:"), strings.HasPrefix(e.example, "interval:"):
				got = run(t, append(args, "-e", e.example)...) // the example exits
			case strings.HasPrefix(e.example, "tracepoint:syscalls:sys_enter_getppid "):
				s := startNoWait(t, append(args, "-e", e.example)...)
				s.waitLinks(1, 20*time.Second)
				getppidN(3)
				got = s.stop(syscall.SIGINT)
			default:
				t.Skipf("%s probes are compile-only here", strings.SplitN(e.example, ":", 2)[0])
			}
			// these examples are the compile-time error they make
			if want, ok := exampleErrors[e.name]; ok {
				if got.code != 1 || !strings.Contains(got.stderr, want) {
					t.Errorf("%s: exit %d\nstderr:\n%s", e.example, got.code, got.stderr)
				}
				return
			}
			if got.code != 0 || strings.Contains(strings.ToLower(got.stderr), "error") && !strings.Contains(e.example, "errorf") {
				t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", e.example, got.code, got.stdout, got.stderr)
			}
		})
	}
}

// exampleErrors are the builtins whose example is a compile-time error,
// and a piece of it.
var exampleErrors = map[string]string{
	"fail()":      "ERROR: no argument: 0 given, 1 needed",
	"dw_ustack()": "ERROR: dw_ustack requires a target process",
	"dw_ustack":   "ERROR: dw_ustack requires a target process",
}

// TestBuiltinValues: builtins whose value is known here print it.
func TestBuiltinValues(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		// BEGIN interrupts no code: usermode is 1 there, as in bpftrace.
		{`BEGIN { printf("%d %d\n", usermode, usermode()) }`, "1 1\n"},
		// bpftrace's stdlib spells builtins __builtin_NAME.
		{`BEGIN { if (__builtin_comm == comm() && __builtin_comm == comm && __builtin_pid == pid() && __builtin_ncpus == ncpus) { printf("same\n") } }`, "same\n"},
		{`BEGIN { if (__builtin_usermode == usermode) { printf("same\n") } }`, "same\n"},
		{`BEGIN { if (__builtin_probetype == probetype() && __builtin_probetype == probetype) { printf("%s %s\n", probetype(), probe()) } }`, "special begin\n"},
		// The group leader of BEGIN's thread is gotrace itself.
		{`BEGIN { printf("%d %s\n", leader_tid == pid, leader_comm) }`, "1 gotrace\n"},
		{`BEGIN { printf("%d %d %d\n", pid(init) == pid, tid(init) == tid(), nsecs(tai) / 1000000000 > 1700000000) }`, "1 1 1\n"},
		{`BEGIN { printf("%d%d %d%d %d%d %d%d %d%d %d%d\n", is_str(comm), is_str(1), is_ptr(curtask), is_ptr(1), is_array(pton("127.0.0.1")), is_array(1), is_integer(pid), is_integer(comm), is_unsigned_integer(pid), is_unsigned_integer(-1), is_literal("a"), is_literal(pid)) }`, "10 10 10 10 10 10\n"},
		{`BEGIN { printf("%d %d %d %d\n", is_err((int64)-1), is_err((int64)-4095), is_err((int64)-4096), is_err(curtask)) }`, "1 1 0 0\n"},
		{`BEGIN { printf("%d %d\n", strcap(comm), strcap("abc")) }`, "16 4\n"},
		// A kfunc, and a traceable function that is not one (kernels with
		// bpf_kfunc decl tags, Linux 6.8 with pahole 1.26).
		{`BEGIN { printf("%d %d\n", kfunc_exist("bpf_task_acquire"), kfunc_exist("vfs_read")) }`, "1 0\n"},
		{`BEGIN { printf("%d %d\n", has_cpid, has_cpid()) }`, "0 0\n"},
		{`BEGIN { printf("%d %d\n", ppid(curtask) == ppid, ppid() == ppid) }`, "1 1\n"},
		// nsecs(sw_tai) is the boot clock plus the TAI offset read at
		// compile time: within a millisecond of the TAI clock.
		{`BEGIN { $d = (int64)(nsecs(sw_tai) - nsecs(tai)); printf("%d\n", $d > -1000000 && $d < 1000000) }`, "1\n"},
		// %gr prints GFP flags by name.
		{`BEGIN { printf("%gr %gr %gr\n", 0x1, (uint32)0xcc0, 0) }`, "GFP_DMA GFP_KERNEL 0\n"},
		{`BEGIN { printf("%s|%s|%s\n", signal_name(2), signal_name(0), signal_name(1024)) }`, "Interrupt|Unknown signal 0|N/A\n"},
		// bpftrace 0.26's C interop test function, after importing its package.
		{`import "stdlib/test"; BEGIN { print(__always_true()); printf("%d\n", __always_true() + 1) }`, "1\n2\n"},
		{`BEGIN { static_assert(1, "never"); assert(pid > 0, "pid is positive"); printf("ok\n") }`, "ok\n"},
		{`BEGIN { assert_str(comm); assert_str("x"); printf("ok\n") }`, "ok\n"},
		// default_str_length() is max_strlen, as bpftrace 0.26's stdlib says.
		{`BEGIN { printf("%d\n", default_str_length()) }`, "1024\n"},
		{`config = { max_strlen = 200 } BEGIN { printf("%d %d\n", default_str_length(), sizeof(str((int8 *)0))) }`, "200 200\n"},
	} {
		got := run(t, "-e", tc.script+" BEGIN { exit() }")
		wantOutput(t, got, tc.want+"\n\n", 0)
	}
}

// TestAssertFails: assert() of a false condition reports the message and
// exits with 1, as bpftrace's stdlib assert.
func TestAssertFails(t *testing.T) {
	got := run(t, "-e", `BEGIN { assert(pid == 0, "pid is zero"); printf("not reached\n") }`)
	if got.code != 1 || strings.Contains(got.stdout, "not reached") || !strings.Contains(got.stderr, "assert failed: pid is zero") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", got.code, got.stdout, got.stderr)
	}
}

// TestDebugf: debugf() writes to the kernel's trace buffer.
func TestDebugf(t *testing.T) {
	marker := fmt.Sprintf("gotrace-debugf-%d", os.Getpid())
	script := `BEGIN { debugf("` + marker + ` %d %s %x", 7, "str", 255); exit() }`
	got := run(t, "-e", script)
	wantOutput(t, got, "\n\n", 0)
	// bpftrace 0.26 warns at every debugf call.
	call := script[strings.Index(script, "debugf"):strings.Index(script, ";")]
	warning := fmt.Sprintf("stdin:1:9-%d: WARNING: The debugf() builtin is not recommended for production use. For more information see bpf_trace_printk in bpf-helpers(7).\n%s\n        %s\n",
		9+len(call), script, strings.Repeat("~", len(call)))
	if !strings.HasPrefix(got.stderr, warning) {
		t.Errorf("stderr:\n%s\nwant it to start with:\n%s", got.stderr, warning)
	}
	data, err := os.ReadFile("/sys/kernel/tracing/trace")
	if err != nil {
		t.Skipf("no trace buffer: %v", err)
	}
	if want := marker + " 7 str ff"; !strings.Contains(string(data), want) {
		t.Errorf("the trace buffer lacks %q", want)
	}
}

// TestHasCpid: has_cpid is true with a child command (-c).
func TestHasCpid(t *testing.T) {
	got := run(t, "-c", "/bin/true", "-e", `BEGIN { printf("%d %d\n", has_cpid, has_cpid()); exit() }`)
	if got.code != 0 || !strings.HasPrefix(got.stdout, "1 1\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", got.code, got.stdout, got.stderr)
	}
}

// TestPidNamespace: in a PID namespace of its own, gotrace reads pid and tid
// (and pid(curr_ns), tid(curr_ns)) in it, pid(init) and tid(init) in the
// initial one; begin runs on the main thread, so tid is pid there.
func TestPidNamespace(t *testing.T) {
	bin := gotrace(t)
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1)")
	}
	script := `begin { printf("%d %d %d %d %d %d\n", pid, pid(curr_ns), tid, tid(curr_ns), pid(init) > 1, tid(init) == pid(init)); exit() }`
	got := runCmd(t, exec.Command(unshare, "--fork", "--pid", "--mount-proc", bin, "-e", script))
	wantOutput(t, got, "1 1 1 1 1 1\n\n\n", 0)
	// Outside a namespace of its own, both modes are the initial one's.
	wantOutput(t, run(t, "-e", `begin { printf("%d %d\n", pid(curr_ns) == pid(init), tid == pid); exit() }`), "1 1\n\n\n", 0)
}

// TestPercpuKaddr: percpu_kaddr() reads per-CPU kernel variables. The
// kernel resolves them through kallsyms, which lists variables only with
// CONFIG_KALLSYMS_ALL: without it the load fails, at the call, saying so
// (e2e/vm runs the scripts on kernels that have it).
func TestPercpuKaddr(t *testing.T) {
	bin := gotrace(t)
	syms, err := os.ReadFile("/proc/kallsyms")
	if err != nil {
		t.Skip(err)
	}
	script := `begin { $rq = (struct rq *)percpu_kaddr("runqueues", 0); if (*percpu_kaddr("process_counts") == *percpu_kaddr("process_counts", cpu) && $rq != 0 && $rq.nr_running >= 0) { printf("ok\n") } exit() }`
	got := runCmd(t, exec.Command(bin, "-e", script))
	if regexp.MustCompile(`(?m) process_counts$`).Match(syms) {
		wantOutput(t, got, "ok\n\n\n", 0)
		return
	}
	want := "stdin:1:28-56: ERROR: the kernel has no address for the variable runqueues: its kallsyms lists variables only with CONFIG_KALLSYMS_ALL\n" +
		script + "\n" + strings.Repeat(" ", 27) + strings.Repeat("~", 28) + "\n"
	if got.code != 1 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant it to start with:\n%s", got.code, got.stderr, want)
	}
}

// TestSkboutput: skboutput() on a BTF raw tracepoint writes sk_buff data to
// a pcap file (raw IP link type, microsecond timestamps), as bpftrace does:
// datagrams sent over a unix socket pair show up with their bytes from the
// offset on, and each call returns 0.
func TestSkboutput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "out.pcap")
	payload := fmt.Sprintf("gotrace-skboutput-%09d", os.Getpid())
	script := fmt.Sprintf(`rawtracepoint:consume_skb /pid == $1/ { $s = (struct sk_buff *)arg0; if ($s->len == %d) { @r[skboutput("%s", $s, $s->len, 4)] = count(); } }`, len(payload), file)
	s := startNoWait(t, "-e", script, fmt.Sprint(os.Getpid()))
	s.waitLinks(1, 20*time.Second)
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	start := time.Now()
	buf := make([]byte, 256)
	for i := 0; i < 3; i++ {
		if err := unix.Send(fds[0], []byte(payload), 0); err != nil {
			t.Fatal(err)
		}
		if n, err := unix.Read(fds[1], buf); err != nil || n != len(payload) {
			t.Fatalf("read %d bytes: %v", n, err)
		}
	}
	got := s.stop(syscall.SIGINT)
	wantOutput(t, got, "\n\n@r[0]: 3\n", 0)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	le := byteorder.LittleEndian
	if len(data) < 24 || le.Uint32(data) != 0xa1b2c3d4 || le.Uint16(data[4:]) != 2 || le.Uint16(data[6:]) != 4 ||
		le.Uint32(data[16:]) != 65535 || le.Uint32(data[20:]) != 101 {
		t.Fatalf("pcap header % x", data[:min(len(data), 24)])
	}
	want := payload[4:]
	packets := 0
	for rest := data[24:]; len(rest) > 0; packets++ {
		if len(rest) < 16 {
			t.Fatalf("truncated record header % x", rest)
		}
		ts := time.Unix(int64(le.Uint32(rest)), int64(le.Uint32(rest[4:]))*1000)
		incl, orig := le.Uint32(rest[8:]), le.Uint32(rest[12:])
		if incl != uint32(len(want)) || orig != incl || len(rest) < 16+int(incl) {
			t.Fatalf("packet %d: lengths %d, %d; want %d", packets, incl, orig, len(want))
		}
		if pkt := string(rest[16 : 16+incl]); pkt != want {
			t.Errorf("packet %d: %q, want %q", packets, pkt, want)
		}
		if d := ts.Sub(start); d < -time.Second || d > time.Minute {
			t.Errorf("packet %d: time %v, %v after the first send", packets, ts, d)
		}
		rest = rest[16+incl:]
	}
	if packets != 3 {
		t.Errorf("%d packets in the file, want 3", packets)
	}
}
