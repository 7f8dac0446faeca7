package vmtest

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func needBusybox(t *testing.T) string {
	t.Helper()
	bb, err := findBusybox("")
	if err != nil {
		t.Skipf("needs a static busybox (vmtest/setup.sh): %v", err)
	}
	return bb
}

func TestCPIOExtractsWithBusybox(t *testing.T) {
	bb := needBusybox(t)
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "d", "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	payload := []byte("x\x00y\r\nodd-length")
	if err := os.WriteFile(filepath.Join(src, "d", "e", "f.bin"), payload, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("e/f.bin", filepath.Join(src, "d", "link")); err != nil {
		t.Fatal(err)
	}

	var buf bytes.Buffer
	c := newCPIOWriter(&buf)
	steps := []error{
		c.Bytes("/a/b/c.txt", 0o755, []byte("abc")),
		c.Bytes("a/b/c.txt", 0o644, []byte("ignored duplicate")),
		c.Symlink("bin/sh", "busybox"),
		c.HostFile("/tree", src),
		c.Close(),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	if buf.Len()%4 != 0 {
		t.Errorf("archive length %d not 4-byte aligned", buf.Len())
	}

	out := t.TempDir()
	cmd := exec.Command(bb, "cpio", "-i", "-d")
	cmd.Dir = out
	cmd.Stdin = &buf
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("busybox cpio -i: %v\n%s", err, b)
	}
	check := func(rel string, want []byte, perm os.FileMode) {
		t.Helper()
		p := filepath.Join(out, rel)
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s = %q, want %q", rel, got, want)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != perm {
			t.Errorf("%s mode %v, want %v", rel, fi.Mode().Perm(), perm)
		}
	}
	check("a/b/c.txt", []byte("abc"), 0o755)
	check("tree/d/e/f.bin", payload, 0o640)
	if target, err := os.Readlink(filepath.Join(out, "tree/d/link")); err != nil || target != "e/f.bin" {
		t.Errorf("tree/d/link -> %q, %v; want e/f.bin", target, err)
	}
	if target, err := os.Readlink(filepath.Join(out, "bin/sh")); err != nil || target != "busybox" {
		t.Errorf("bin/sh -> %q, %v; want busybox", target, err)
	}
}

func TestShellQuote(t *testing.T) {
	bb := needBusybox(t)
	args := []string{"plain", "a b", "it's", `"$HOME"`, "`x`", "new\nline", "", "\\"}
	var script strings.Builder
	script.WriteString("printf '[%s]' ")
	for _, a := range args {
		script.WriteString(shellQuote(a) + " ")
	}
	got, err := exec.Command(bb, "sh", "-c", script.String()).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, a := range args {
		want.WriteString("[" + a + "]")
	}
	if string(got) != want.String() {
		t.Errorf("got %q, want %q", got, want.String())
	}
}

func TestParseStatus(t *testing.T) {
	if code, ok := parseStatus("noise\r\nVMTEST-EXIT-abc:17\r\n", "abc"); !ok || code != 17 {
		t.Errorf("parseStatus = %d, %v; want 17, true", code, ok)
	}
	if _, ok := parseStatus("VMTEST-EXIT-other:0\n", "abc"); ok {
		t.Error("parseStatus accepted another run's nonce")
	}
}

// vmConfig returns a Config for the cached 6.12 kernel, or skips.
func vmConfig(t *testing.T) Config {
	t.Helper()
	if testing.Short() {
		t.Skip("boots a VM; skipped with -short")
	}
	if os.Getenv("GOTRACE_IN_VM") == "1" {
		t.Skip("already inside the VM")
	}
	if _, err := exec.LookPath("qemu-system-x86_64"); err != nil {
		t.Skip("needs qemu-system-x86_64 (vmtest/setup.sh)")
	}
	needBusybox(t)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	k, err := KernelPath("6.12", wd)
	if err != nil {
		t.Skipf("needs the cached 6.12 kernel: %v", err)
	}
	return Config{Kernel: k, KernelName: "6.12", Dir: wd, Timeout: 120 * time.Second}
}

func TestRunStreamsOutputAndExitCode(t *testing.T) {
	cfg := vmConfig(t)
	extra := filepath.Join(t.TempDir(), "extra.txt")
	if err := os.WriteFile(extra, []byte("extra file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Files = []string{extra}
	cfg.Env = []string{"GOTRACE_X=it's $x"}
	var stdout, stderr bytes.Buffer
	cfg.Stdout, cfg.Stderr = &stdout, &stderr
	script := `printf 'raw\r\n\001\377|'; pwd; cat testdata/hello.txt "$1"; echo "$GOTRACE_X|$GOTRACE_IN_VM|$GOTRACE_VM_KERNEL"; ` +
		`mount | grep -c -e ' /sys/kernel/tracing ' -e ' /sys/fs/bpf ' -e ' /sys/kernel/debug '; ulimit -l; stat -c %a /tmp; echo oops >&2; exit 42`
	res, err := Run(context.Background(), cfg, []string{"/bin/busybox", "sh", "-c", script, "sh", extra})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 42 {
		t.Errorf("exit code %d, want 42", res.ExitCode)
	}
	want := "raw\r\n\001\377|" + cfg.Dir + "\nhello from testdata\nextra file\nit's $x|1|6.12\n3\nunlimited\n1777\n"
	if stdout.String() != want {
		t.Errorf("stdout = %q\nwant %q", stdout.String(), want)
	}
	if stderr.String() != "oops\n" {
		t.Errorf("stderr = %q, want %q", stderr.String(), "oops\n")
	}
	t.Logf("boot to exit: %v (%s)", res.Duration, res.Accel)
}

func TestRunTimeout(t *testing.T) {
	cfg := vmConfig(t)
	cfg.Timeout = 4 * time.Second
	start := time.Now()
	_, err := Run(context.Background(), cfg, []string{"/bin/busybox", "sleep", "1000"})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("timed-out run took %v", d)
	}
}

func TestRunRejectsDynamicBinary(t *testing.T) {
	cfg := vmConfig(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	sh, _ = filepath.EvalSymlinks(sh)
	if checkStatic(sh) == nil {
		t.Skipf("%s is static", sh)
	}
	if _, err := Run(context.Background(), cfg, []string{sh, "-c", "true"}); err == nil || !strings.Contains(err.Error(), "CGO_ENABLED=0") {
		t.Fatalf("err = %v, want a dynamically-linked error mentioning CGO_ENABLED=0", err)
	}
}
