package vm

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/features"
	"golang.org/x/sys/unix"

	gtruntime "github.com/gotrace/gotrace/runtime"
)

// gotraceBin returns $GOTRACE_BIN; it skips the test outside the VM.
func gotraceBin(t *testing.T) string {
	t.Helper()
	if os.Getenv("GOTRACE_IN_VM") != "1" {
		t.Skip("not inside the vmtest VM (GOTRACE_IN_VM != 1): the host kernel lacks kprobes/fentry; " +
			"run scripts/test.sh, or: CGO_ENABLED=0 go build -o .cache/vm/gotrace ./cmd/gotrace && " +
			"GOTRACE_BIN=$PWD/.cache/vm/gotrace GOTRACE_VM_FILES=$PWD/.cache/vm/gotrace vmtest/run.sh ./e2e/vm/")
	}
	bin := os.Getenv("GOTRACE_BIN")
	if bin == "" {
		t.Fatal("GOTRACE_BIN is not set: build gotrace with CGO_ENABLED=0 and pass it with GOTRACE_VM_FILES")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("GOTRACE_BIN: %v (is it listed in GOTRACE_VM_FILES?)", err)
	}
	return bin
}

// haveKprobeMulti is the expected wildcard path: feature-probed, and
// cross-checked with what is known of Debian's kernels.
func haveKprobeMulti(t *testing.T) bool {
	t.Helper()
	err := features.HaveBPFLinkKprobeMulti()
	if err != nil && !errors.Is(err, ebpf.ErrNotSupported) {
		t.Fatalf("kprobe_multi feature probe: %v", err)
	}
	have := err == nil
	switch k := os.Getenv("GOTRACE_VM_KERNEL"); k {
	case "6.12", "7.3":
		if !have {
			t.Fatalf("kernel %s: kprobe_multi should be available: %v", k, err)
		}
	case "6.1":
		if have {
			t.Fatalf("kernel %s: kprobe_multi should be missing (no CONFIG_FPROBE)", k)
		}
	}
	return have
}

// haveTracingMulti reports whether the kernel has tracing_multi links,
// feature-probed as the runtime does, and cross-checked with what is known
// of Debian's kernels (7.3 has them, 6.12 and 6.1 do not).
func haveTracingMulti(t *testing.T) bool {
	t.Helper()
	have := gtruntime.HaveTracingMulti()
	switch k := os.Getenv("GOTRACE_VM_KERNEL"); k {
	case "7.3":
		if !have {
			t.Fatalf("kernel %s: tracing_multi should be available", k)
		}
	case "6.12", "6.1":
		if have {
			t.Fatalf("kernel %s: tracing_multi should be missing", k)
		}
	}
	return have
}

// trace is a gotrace process whose output goes to files, so that the test
// process does no reads of its own while tracing.
type trace struct {
	t              *testing.T
	cmd            *exec.Cmd
	outPath, errPf string
	done           chan error
}

// startTrace runs gotrace with args and waits until ready reports true
// (polled from another goroutine than the caller's, so a test that locked
// its OS thread and filters on its tid sees none of the polling).
func startTrace(t *testing.T, ready func(tr *trace) bool, args ...string) *trace {
	t.Helper()
	dir := t.TempDir()
	tr := &trace{t: t, outPath: filepath.Join(dir, "stdout"), errPf: filepath.Join(dir, "stderr"), done: make(chan error, 1)}
	out, err := os.Create(tr.outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	errf, err := os.Create(tr.errPf)
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	tr.cmd = exec.Command(gotraceBin(t), args...)
	tr.cmd.Stdout, tr.cmd.Stderr = out, errf
	if err := tr.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { tr.done <- tr.cmd.Wait() }()
	t.Cleanup(func() {
		if tr.cmd.ProcessState == nil {
			_ = tr.cmd.Process.Kill()
			<-tr.done
		}
	})
	result := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(120 * time.Second)
		for time.Now().Before(deadline) {
			if ready(tr) {
				result <- nil
				return
			}
			select {
			case err := <-tr.done:
				tr.done <- err
				if ready(tr) {
					// It became ready and ended between the two looks
					// (a script that ends by itself).
					result <- nil
					return
				}
				result <- fmt.Errorf("gotrace exited before attaching (%v); stderr:\n%s", err, tr.stderr())
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		result <- fmt.Errorf("gotrace did not attach in time; stderr:\n%s", tr.stderr())
	}()
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	return tr
}

func (tr *trace) stderr() string {
	b, _ := os.ReadFile(tr.errPf)
	return string(b)
}

// links counts the BPF links the gotrace process holds.
func (tr *trace) links() int { return tr.fds("anon_inode:bpf_link") }

// perfEvents counts the perf events the gotrace process holds.
func (tr *trace) perfEvents() int { return tr.fds("anon_inode:[perf_event]") }

// fds counts the file descriptors of the gotrace process that link to
// target.
func (tr *trace) fds(target string) int {
	pid := tr.cmd.Process.Pid
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && l == target {
			n++
		}
	}
	return n
}

// linksReady waits for n BPF links (and the Attached line, so that the
// process is known to be gotrace and not the forked test still).
func linksReady(n int) func(*trace) bool {
	return func(tr *trace) bool { return strings.Contains(tr.stderr(), "Attached") && tr.links() >= n }
}

// waitStdout waits until stdout contains want: events still queued when
// gotrace is stopped are dropped, as with bpftrace.
func (tr *trace) waitStdout(want string) {
	tr.t.Helper()
	// Poll from another goroutine (another thread than a locked test's).
	found := make(chan []byte)
	go func() {
		deadline := time.Now().Add(30 * time.Second)
		var b []byte
		for time.Now().Before(deadline) {
			if b, _ = os.ReadFile(tr.outPath); strings.Contains(string(b), want) {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		found <- b
	}()
	if b := <-found; !strings.Contains(string(b), want) {
		tr.t.Fatalf("stdout lacks %q after 30s:\n%s\nstderr:\n%s", want, b, tr.stderr())
	}
}

// stderrReady waits for a stderr line matching re.
func stderrReady(re string) func(*trace) bool {
	rx := regexp.MustCompile(re)
	return func(tr *trace) bool { return rx.MatchString(tr.stderr()) }
}

// stop sends SIGINT and returns stdout and stderr once gotrace exits.
func (tr *trace) stop() (stdout, stderr string) {
	tr.t.Helper()
	if err := tr.cmd.Process.Signal(syscall.SIGINT); err != nil {
		tr.t.Fatal(err)
	}
	return tr.wait(" after SIGINT")
}

// wait returns stdout and stderr once gotrace exits; after says after
// what, for the error when it does not.
func (tr *trace) wait(after string) (stdout, stderr string) {
	tr.t.Helper()
	select {
	case err := <-tr.done:
		if err != nil {
			tr.t.Errorf("gotrace: %v; stderr:\n%s", err, tr.stderr())
		}
	case <-time.After(180 * time.Second):
		tr.t.Fatalf("gotrace did not exit%s; stderr:\n%s", after, tr.stderr())
	}
	b, _ := os.ReadFile(tr.outPath)
	return string(b), tr.stderr()
}

// lockThread pins the calling goroutine to its OS thread for the test and
// returns the thread id, for scripts filtering on tid.
func lockThread(t *testing.T) int {
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	return unix.Gettid()
}

// knownFile writes size bytes to a new file and returns its path.
func knownFile(t *testing.T, name string, size int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), size), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// preadN makes n pread(2) calls of size bytes at offset 0 on path (each a
// vfs_read returning min(size, file size)).
func preadN(t *testing.T, path string, n, size int) {
	t.Helper()
	fd, err := unix.Open(path, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	buf := make([]byte, size)
	for range n {
		if _, err := unix.Pread(fd, buf, 0); err != nil {
			t.Fatal(err)
		}
	}
}

func comm(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/comm")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func wantStdout(t *testing.T, got, want, stderr string) {
	t.Helper()
	if got != want {
		t.Errorf("stdout:\n%s\nwant:\n%s\nstderr:\n%s", got, want, stderr)
	}
}

// TestFentryArgs: fentry with a typed argument, summed per comm.
func TestFentryArgs(t *testing.T) {
	gotraceBin(t)
	tid := lockThread(t)
	file := knownFile(t, "fentry-args", 100)
	tr := startTrace(t, linksReady(1), "-e", `fentry:vfs_read /tid == $1/ { @[comm] = sum(args.count); }`, strconv.Itoa(tid))
	preadN(t, file, 10, 4096)
	out, errs := tr.stop()
	wantStdout(t, out, fmt.Sprintf("\n\n@[%s]: %d\n", comm(t), 10*4096), errs)
}

// TestFentryPath: path() of a struct path by value (args.file.f_path)
// takes its address, as bpftrace does, and bpf_d_path prints the file's
// path.
func TestFentryPath(t *testing.T) {
	gotraceBin(t)
	tid := lockThread(t)
	file := knownFile(t, "fentry-path", 1)
	tr := startTrace(t, linksReady(1), "-e", `fentry:security_file_open /tid == $1/ { printf("%s %d\n", path(args.file.f_path), sizeof(path(args.file.f_path, 16))); }`, strconv.Itoa(tid))
	for range 2 {
		fd, err := unix.Open(file, unix.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		unix.Close(fd)
	}
	want := strings.Repeat(file+" 16\n", 2)
	tr.waitStdout(want)
	out, errs := tr.stop()
	wantStdout(t, out, want+"\n\n", errs)
}

// TestKprobeNamedArg: a kprobe argument by its BTF name, read as a user
// string.
func TestKprobeNamedArg(t *testing.T) {
	gotraceBin(t)
	tid := lockThread(t)
	file := knownFile(t, "kprobe-named-arg", 1)
	tr := startTrace(t, linksReady(1), "-e", `kprobe:do_sys_openat2 /tid == $1/ { printf("%s\n", str(args.filename)); }`, strconv.Itoa(tid))
	for range 3 {
		fd, err := unix.Open(file, unix.O_RDONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		unix.Close(fd)
	}
	tr.waitStdout(strings.Repeat(file+"\n", 3))
	out, errs := tr.stop()
	wantStdout(t, out, strings.Repeat(file+"\n", 3)+"\n\n", errs)
}

// TestKretprobeHist: kretprobe retval in a histogram.
func TestKretprobeHist(t *testing.T) {
	gotraceBin(t)
	tid := lockThread(t)
	file := knownFile(t, "kretprobe-hist", 100)
	tr := startTrace(t, linksReady(1), "-e", `kretprobe:vfs_read /tid == $1/ { @ = hist(retval); }`, strconv.Itoa(tid))
	preadN(t, file, 5, 4096) // 5 reads returning 100
	out, errs := tr.stop()
	want := "\n\n@:\n[64, 128)              5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n\n"
	wantStdout(t, out, want, errs)
}

// TestKprobeWildcard: kprobe:vfs_* through kprobe_multi where the kernel
// has it (6.12), else through one kprobe per function (6.1); func prints
// the function names.
func TestKprobeWildcard(t *testing.T) {
	gotraceBin(t)
	multi := haveKprobeMulti(t)
	tid := lockThread(t)
	file := knownFile(t, "kprobe-wildcard", 100)
	tr := startTrace(t, stderrReady(`kprobe: attached \d+ functions through`), "-e", `kprobe:vfs_* /tid == $1/ { @[func] = count(); }`, strconv.Itoa(tid))
	preadN(t, file, 7, 4096)
	out, errs := tr.stop()
	checkWildcard(t, out, errs, map[bool]string{true: "kprobe_multi"}[multi], "kprobe", "@[vfs_read]: 7\n")
}

// checkWildcard checks the output of a @[func] = count() wildcard script
// and the path it took (stderr says).
func checkWildcard(t *testing.T, out, errs, link, kind, wantLine string) {
	t.Helper()
	checkWildcardOf(t, out, errs, link, kind, wantLine, `vfs_\w+`, 20)
}

// checkWildcardOf is checkWildcard for functions matching funcRe, at least
// min of them; link is the multi link expected ("kprobe_multi",
// "tracing_multi"), or "" for separate probes.
func checkWildcardOf(t *testing.T, out, errs, link, kind, wantLine, funcRe string, min int) {
	t.Helper()
	path := regexp.MustCompile(kind + `: attached (\d+) functions through (one \w+_multi link|\d+ separate \w+s|\d+ trampolines)`).FindStringSubmatch(errs)
	if path == nil {
		t.Fatalf("stderr does not say how the wildcard was attached:\n%s", errs)
	}
	t.Logf("%s", path[0])
	if n, _ := strconv.Atoi(path[1]); n < min {
		t.Errorf("only %s functions attached", path[1])
	}
	if got := strings.TrimSuffix(strings.TrimPrefix(path[2], "one "), " link"); got != link && !(link == "" && got == path[2]) {
		t.Errorf("attached through %q, want %q", path[2], cmp.Or(link, "separate probes"))
	}
	if !strings.Contains(out, wantLine) {
		t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", wantLine, out, errs)
	}
	body := strings.TrimPrefix(out, "\n\n")
	for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
		if !regexp.MustCompile(`^@\[` + funcRe + `\]: \d+$`).MatchString(l) {
			t.Errorf("unexpected output line %q (func must print names matching %s)", l, funcRe)
		}
	}
}

// loopbackUp brings lo up (the guest boots with it down).
func loopbackUp(t *testing.T) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		t.Fatal(err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		t.Fatalf("bring lo up: %v", err)
	}
}

// tcpPair returns a connected loopback TCP connection (client side) and
// the server's port; the server discards what it reads.
func tcpPair(t *testing.T) (net.Conn, int) {
	t.Helper()
	loopbackUp(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 1<<16)
		for {
			if _, err := c.Read(buf); err != nil {
				c.Close()
				return
			}
		}
	}()
	c, err := net.Dial("tcp4", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, ln.Addr().(*net.TCPAddr).Port
}

func sendN(t *testing.T, c net.Conn, n, size int) {
	t.Helper()
	buf := bytes.Repeat([]byte("y"), size)
	for range n {
		if _, err := c.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFexitTCPSendmsg: fexit retval summed over known loopback sends.
func TestFexitTCPSendmsg(t *testing.T) {
	gotraceBin(t)
	c, _ := tcpPair(t)
	tid := lockThread(t)
	tr := startTrace(t, linksReady(1), "-e", `fexit:tcp_sendmsg /tid == $1/ { @bytes = sum(retval); }`, strconv.Itoa(tid))
	sendN(t, c, 3, 1000)
	out, errs := tr.stop()
	wantStdout(t, out, "\n\n@bytes: 3000\n", errs)
}

// TestStructChains: members through anonymous unions and pointer chains.
func TestStructChains(t *testing.T) {
	gotraceBin(t)
	c, port := tcpPair(t)
	// Subtests run on goroutines of their own: each locks its thread.
	t.Run("sock", func(t *testing.T) {
		tid := lockThread(t)
		tr := startTrace(t, linksReady(1), "-e", `kprobe:tcp_sendmsg /tid == $1/ { @[((struct sock *)arg0)->__sk_common.skc_dport] = count(); }`, strconv.Itoa(tid))
		sendN(t, c, 4, 10)
		out, errs := tr.stop()
		// skc_dport is in network byte order.
		dport := port>>8 | (port&0xff)<<8
		wantStdout(t, out, fmt.Sprintf("\n\n@[%d]: 4\n", dport), errs)
	})
	t.Run("file", func(t *testing.T) {
		tid := lockThread(t)
		file := knownFile(t, "struct-chain-file", 10)
		tr := startTrace(t, linksReady(1), "-e", `fentry:vfs_read /tid == $1/ { @[str(args.file->f_path.dentry->d_name.name), args.file->f_inode->i_size] = count(); }`, strconv.Itoa(tid))
		preadN(t, file, 2, 100)
		out, errs := tr.stop()
		wantStdout(t, out, "\n\n@[struct-chain-file, 10]: 2\n", errs)
	})
}

// TestRawTracepoint: rawtracepoint with typed (BTF) arguments.
func TestRawTracepoint(t *testing.T) {
	gotraceBin(t)
	tid := lockThread(t)
	tr := startTrace(t, linksReady(1), "-e", `rawtracepoint:sys_enter /tid == $1 && args.id == 110/ { @[args.id, args.regs->di] = count(); }`, strconv.Itoa(tid))
	for range 6 {
		syscall.Getppid()
	}
	out, errs := tr.stop()
	wantStdout(t, out, "\n\n@[110, 0]: 6\n", errs)
}

// TestFentryWildcard: a small fentry wildcard gets one trampoline per
// function; vfs_* is large enough to go through kprobe_multi where the
// kernel has it.
func TestFentryWildcard(t *testing.T) {
	gotraceBin(t)
	multi := haveKprobeMulti(t)
	tmulti := haveTracingMulti(t)
	file := knownFile(t, "fentry-wildcard", 100)
	t.Run("vfs_read*", func(t *testing.T) {
		tid := lockThread(t)
		tr := startTrace(t, stderrReady(`fentry: attached \d+ functions through`), "-e", `fentry:vfs_read* /tid == $1/ { @[func] = count(); }`, strconv.Itoa(tid))
		preadN(t, file, 3, 4096)
		out, errs := tr.stop()
		wantStdout(t, out, "\n\n@[vfs_read]: 3\n", errs)
		if via := regexp.MustCompile(`fentry: attached \d+ functions through one tracing_multi link`); tmulti != via.MatchString(errs) {
			t.Errorf("tracing_multi available = %v, stderr:\n%s", tmulti, errs)
		}
	})
	t.Run("vfs_*", func(t *testing.T) {
		tid := lockThread(t)
		tr := startTrace(t, stderrReady(`(fentry|kprobe): attached \d+ functions through`), "-e", `fentry:vfs_* /tid == $1/ { @[func] = count(); }`, strconv.Itoa(tid))
		preadN(t, file, 5, 4096)
		out, errs := tr.stop()
		kind, link := "fentry", ""
		switch {
		case tmulti:
			link = "tracing_multi"
		case multi:
			kind, link = "kprobe", "kprobe_multi"
			if !strings.Contains(errs, "served by one kprobe_multi link") {
				t.Errorf("stderr lacks the Via line:\n%s", errs)
			}
		}
		checkWildcard(t, out, errs, link, kind, "@[vfs_read]: 5\n")
	})
	t.Run("fexit", func(t *testing.T) {
		// One program over both functions: func from the function's
		// address, and the other function counted apart.
		tid := lockThread(t)
		tr := startTrace(t, stderrReady(`fexit: attached \d+ functions through`), "-e", `fexit:vfs_read,fexit:vfs_readv /tid == $1/ { @[func] = count(); }`, strconv.Itoa(tid))
		preadN(t, file, 2, 4096)
		out, errs := tr.stop()
		wantStdout(t, out, "\n\n@[vfs_read]: 2\n", errs)
		link := "2 trampolines"
		if tmulti {
			link = "one tracing_multi link"
		}
		if !strings.Contains(errs, "fexit: attached 2 functions through "+link) {
			t.Errorf("stderr does not say %q:\n%s", link, errs)
		}
	})
}

// TestList: -l and -lv on kernel functions.
func TestList(t *testing.T) {
	bin := gotraceBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	run := func(args ...string) string {
		out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("gotrace %q: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("-l", "kprobe:vfs_read*"); !strings.Contains(out, "kprobe:vfs_read\n") {
		t.Errorf("-l kprobe:vfs_read*:\n%s", out)
	}
	want := "fexit:vmlinux:vfs_read\n    struct file * file\n    char * buf\n    size_t count\n    loff_t * pos\n    ssize_t retval\n"
	if out := run("-lv", "fexit:vfs_read"); out != want {
		t.Errorf("-lv fexit:vfs_read:\n%s\nwant:\n%s", out, want)
	}
}

// badBPF calls bpf(2) with an unknown command cmd and size zero bytes
// of attributes (the kernel's tail check passes) and returns the error
// as a negative number.
func badBPF(cmd, size int) int64 {
	attr := make([]byte, size)
	_, _, errno := unix.Syscall(unix.SYS_BPF, uintptr(cmd), uintptr(unsafe.Pointer(&attr[0])), uintptr(size))
	runtime.KeepAlive(attr)
	return -int64(errno)
}

// TestStructArgSlots: __sys_bpf's bpfptr_t, a 16-byte struct passed by
// value, takes two argument slots (fentry/fexit) or two registers
// (kprobe): size is read after it, and fexit's retval after size.
func TestStructArgSlots(t *testing.T) {
	gotraceBin(t)
	const cmd, size = 1111, 2222
	call := func() int64 { return badBPF(cmd, size) }
	for _, c := range []struct {
		script string
		retval bool
	}{
		{`fexit:__sys_bpf /tid == $1/ { @[args.cmd, args.size, (int64)retval] = count(); }`, true},
		{`fentry:__sys_bpf /tid == $1/ { @[args.cmd, args.size] = count(); }`, false},
		{`kprobe:__sys_bpf /tid == $1/ { @[args.cmd, args.size] = count(); }`, false},
	} {
		t.Run(strings.Fields(c.script)[0], func(t *testing.T) {
			tid := lockThread(t)
			tr := startTrace(t, linksReady(1), "-e", c.script, strconv.Itoa(tid))
			ret := call()
			if call() != ret || ret >= 0 {
				t.Fatalf("bpf(%d, attr, %d) returned %d, then something else: want the same error twice", cmd, size, ret)
			}
			out, errs := tr.stop()
			key := fmt.Sprintf("%d, %d", cmd, size)
			if c.retval {
				key += fmt.Sprintf(", %d", ret)
			}
			wantStdout(t, out, fmt.Sprintf("\n\n@[%s]: 2\n", key), errs)
		})
	}
}
