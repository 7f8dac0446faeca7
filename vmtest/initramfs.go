package vmtest

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// buildInitramfs writes the guest's initramfs to dst.
func buildInitramfs(dst, busybox string, cfg Config, argv []string, nonce string) (err error) {
	f, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("vmtest: initramfs: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("vmtest: initramfs: %w", cerr)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	c := newCPIOWriter(bw)

	if err := c.mkdirAll("tmp", 0o1777); err != nil {
		return err
	}
	for _, d := range []string{"bin", "sbin", "usr/bin", "usr/sbin", "proc", "sys", "dev", "run", "root", "etc"} {
		if err := c.mkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// The kernel opens /dev/console for init's stdio before devtmpfs is mounted.
	if err := c.CharDev("dev/console", 0o600, 5, 1); err != nil {
		return err
	}
	if err := c.HostFile("bin/busybox", busybox); err != nil {
		return err
	}
	if err := c.Symlink("bin/sh", "busybox"); err != nil {
		return err
	}
	if err := c.Bytes("init", 0o755, []byte(initScript(cfg, argv, nonce))); err != nil {
		return err
	}
	if err := c.Bytes("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/bin/sh\n")); err != nil {
		return err
	}
	if err := c.Bytes("etc/group", 0o644, []byte("root:x:0:\n")); err != nil {
		return err
	}
	if err := c.HostFile(argv[0], argv[0]); err != nil {
		return err
	}
	if err := c.mkdirAll(cfg.Dir, 0o755); err != nil {
		return err
	}
	td := filepath.Join(cfg.Dir, "testdata")
	if fi, err := os.Stat(td); err == nil && fi.IsDir() {
		if err := c.HostFile(td, td); err != nil {
			return err
		}
	}
	for _, p := range cfg.Files {
		abs, err := filepath.Abs(p)
		if err != nil {
			return fmt.Errorf("vmtest: %w", err)
		}
		if err := c.HostFile(abs, abs); err != nil {
			return err
		}
	}
	if err := c.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("vmtest: initramfs: %w", err)
	}
	return nil
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// validEnvName reports whether name can be exported by a POSIX shell.
func validEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i, r := range name {
		switch {
		case r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// initScript returns the guest's /init. It mounts the pseudo file systems
// BPF tools need, runs argv in cfg.Dir with stdout on /dev/ttyS1 and
// stderr on /dev/ttyS2 (both raw, so bytes pass unchanged), writes the
// exit status to /dev/ttyS3 and powers off.
func initScript(cfg Config, argv []string, nonce string) string {
	var b strings.Builder
	b.WriteString(`#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin HOME=/root TMPDIR=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup
ip link set lo up 2>/dev/null
ulimit -l unlimited
ulimit -n 1048576 2>/dev/null || ulimit -n 65536
exec 5>/dev/ttyS3
stty -F /dev/ttyS1 raw -echo
stty -F /dev/ttyS2 raw -echo
`)
	for _, kv := range cfg.Env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !validEnvName(k) {
			continue
		}
		fmt.Fprintf(&b, "export %s=%s\n", k, shellQuote(v))
	}
	fmt.Fprintf(&b, "export GOTRACE_IN_VM=1 GOTRACE_VM_KERNEL=%s\n", shellQuote(cfg.KernelName))
	fmt.Fprintf(&b, "if cd %s; then\n\t", shellQuote(cfg.Dir))
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(shellQuote(a))
	}
	b.WriteString(` </dev/null >/dev/ttyS1 2>/dev/ttyS2 5>&-
	rc=$?
else
	rc=125
fi
# Wait until the output ports have drained (stty sets attributes with
# TCSADRAIN) before reporting the status.
stty -F /dev/ttyS1 raw
stty -F /dev/ttyS2 raw
`)
	fmt.Fprintf(&b, "echo \"VMTEST-EXIT-%s:$rc\" >&5\n", nonce)
	b.WriteString(`stty -F /dev/ttyS3 raw 2>/dev/null
exec 5>&-
poweroff -f
`)
	return b.String()
}
