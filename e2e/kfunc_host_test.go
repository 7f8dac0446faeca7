package e2e

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/rlimit"
	"golang.org/x/sys/unix"
)

// hostHasKprobes reports whether this kernel has kprobes (the test of the
// missing-feature message only applies where it has none).
func hostHasKprobes() bool {
	if _, err := os.Stat("/sys/bus/event_source/devices/kprobe/type"); err == nil {
		return true
	}
	for _, dir := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		if _, err := os.Stat(dir + "/kprobe_events"); err == nil {
			return true
		}
	}
	return false
}

// hostRefusesTrampolines loads a trivial fentry program on vfs_read and
// reports whether the kernel refuses it with EPERM or ENOTSUPP.
func hostRefusesTrampolines(t *testing.T) bool {
	t.Helper()
	_ = rlimit.RemoveMemlock()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{
		Type: ebpf.Tracing, AttachType: ebpf.AttachTraceFEntry, AttachTo: "vfs_read", License: "GPL",
		Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()},
	})
	if err == nil {
		prog.Close()
		return false
	}
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.Errno(524)) || errors.Is(err, ebpf.ErrNotSupported)
}

// TestNoKprobesMessage: on a kernel without CONFIG_KPROBES (this project's
// host), a kprobe script fails with one line naming the missing feature.
func TestNoKprobesMessage(t *testing.T) {
	gotrace(t)
	// gotrace mounts tracefs itself; mount it here too so that the check
	// below sees kprobe_events where it exists.
	_ = unix.Mount("nodev", "/sys/kernel/tracing", "tracefs", 0, "")
	if hostHasKprobes() {
		t.Skip("this kernel has kprobes; the kprobe tests run in e2e/vm")
	}
	for _, tc := range []struct{ script, probe string }{
		{`kprobe:vfs_read { @ = count(); }`, "kprobe:vfs_read"},
		{`kretprobe:vfs_read { @ = hist(retval); }`, "kretprobe:vfs_read"},
		{`kprobe:do_sys_openat2+4 { @ = count(); }`, "kprobe:do_sys_openat2+4"},
		{`kprobe:vfs_* { @[func] = count(); }`, "kprobe:vfs_*"},
	} {
		got := run(t, "-e", tc.script)
		if got.code != 1 || got.stdout != "" {
			t.Errorf("%s: exit %d, stdout %q; want exit 1 and no output", tc.script, got.code, got.stdout)
		}
		const want = ": this kernel has no kprobes (CONFIG_KPROBES is not set: /sys/kernel/tracing/kprobe_events is missing)\n"
		if !strings.HasPrefix(got.stderr, "ERROR: Unable to attach probe: "+strings.TrimSuffix(tc.probe, "*")) || !strings.HasSuffix(got.stderr, want) || strings.Count(got.stderr, "\n") != 1 {
			t.Errorf("%s: stderr = %q, want one line \"ERROR: Unable to attach probe: %s%s\"", tc.script, got.stderr, tc.probe, want)
		}
	}
	// a kprobe by address, in bpftrace's words for a probe it cannot attach
	got := run(t, "--unsafe", "-e", `kprobe:0x12345678 { }`)
	if want := "ERROR: Unable to attach probe: kprobe:305419896: this kernel has no kprobes (CONFIG_KPROBES is not set: /sys/kernel/tracing/kprobe_events is missing)\n"; got.code != 1 || got.stderr != want {
		t.Errorf("kprobe:0x12345678: exit %d, stderr %q; want exit 1, %q", got.code, got.stderr, want)
	}
	// --dry-run loads the kprobe program, which this kernel can do, and
	// succeeds: the script is valid. It says, on one line, that this
	// kernel cannot attach it.
	got = run(t, "--dry-run", "-e", `kprobe:vfs_read { @ = count(); }`)
	if want := "dry run: the script is valid, but this kernel cannot attach it: kprobe:vfs_read: this kernel has no kprobes (CONFIG_KPROBES is not set: /sys/kernel/tracing/kprobe_events is missing)\n"; got.code != 0 || got.stderr != want {
		t.Errorf("--dry-run: exit %d, stderr %q; want exit 0, %q", got.code, got.stderr, want)
	}
	// A script with errors still fails the dry run.
	got = run(t, "--dry-run", "-e", `kprobe:vfs_read { @[kstack(1000000)] = count(); }`)
	if got.code == 0 {
		t.Errorf("--dry-run of a bad program: exit 0, stderr %q", got.stderr)
	}
}

// TestNoTrampolineMessage: on a kernel that refuses to load fentry/fexit
// programs (this project's host returns EPERM), the script fails with one
// line saying so, for single functions and wildcards alike.
func TestNoTrampolineMessage(t *testing.T) {
	gotrace(t)
	if !hostRefusesTrampolines(t) {
		t.Skip("this kernel loads fentry programs; the fentry tests run in e2e/vm")
	}
	for _, tc := range []struct{ script, want string }{
		{`fentry:vfs_read { @ = count(); }`, "ERROR: fentry:vfs_read: the kernel refused to load a BPF trampoline (fentry): operation not permitted\n"},
		{`fexit:vfs_read { @ = hist(retval); }`, "ERROR: fexit:vfs_read: the kernel refused to load a BPF trampoline (fexit): operation not permitted\n"},
		{`fentry:vfs_rea* { @[func] = count(); }`, "ERROR: fentry:vfs_read: the kernel refused to load a BPF trampoline (fentry): operation not permitted\n"},
	} {
		got := run(t, "-e", tc.script)
		if got.code != 1 || got.stdout != "" || got.stderr != tc.want {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, stderr %q", tc.script, got.code, got.stdout, got.stderr, tc.want)
		}
	}
}
