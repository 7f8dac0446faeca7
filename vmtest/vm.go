package vmtest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults used when the corresponding Config field is zero.
const (
	DefaultTimeout  = 300 * time.Second
	DefaultMemoryMB = 1024
	DefaultCPUs     = 2
)

// Errors returned by Run, wrapped with details and the console tail.
var (
	// ErrTimeout means the VM did not power off within Config.Timeout.
	ErrTimeout = errors.New("vmtest: VM timed out")
	// ErrNoExitStatus means the VM stopped without reporting the guest
	// command's exit status: the kernel failed to boot or panicked, or
	// /init failed.
	ErrNoExitStatus = errors.New("vmtest: VM stopped without reporting an exit status (boot failure, kernel panic or init failure)")
)

// Config describes one VM run. Only Kernel is required.
type Config struct {
	// Kernel is the path of a bzImage (vmlinuz), e.g. from KernelPath.
	Kernel string
	// KernelName is exported to the guest as GOTRACE_VM_KERNEL (e.g. "6.12").
	KernelName string
	// Busybox is the path of a statically linked busybox; default
	// /bin/busybox, then busybox from PATH.
	Busybox string
	// Timeout bounds the whole VM run; default DefaultTimeout.
	Timeout time.Duration
	// MemoryMB is the guest RAM; default DefaultMemoryMB.
	MemoryMB int
	// CPUs is the number of guest CPUs; default DefaultCPUs.
	CPUs int
	// Accel is "tcg", "kvm" or "auto"/"" (KVM only when /dev/kvm is
	// usable and the host CPU shows vmx or svm; otherwise single-threaded
	// TCG, the only mode that is reliable under nested PVM hosts).
	Accel string
	// Append is added to the kernel command line.
	Append string
	// Dir is the guest working directory. If Dir/testdata exists on the
	// host it is copied to the same path in the guest.
	Dir string
	// Files are host files or directories (recursively) copied into the
	// guest at the same absolute paths.
	Files []string
	// Env holds KEY=VALUE pairs exported in the guest before the command
	// runs. GOTRACE_IN_VM=1 and GOTRACE_VM_KERNEL are always set.
	Env []string
	// Stdout and Stderr receive the guest command's output byte for byte
	// as it is produced (guest /dev/ttyS1 and /dev/ttyS2). Nil discards.
	Stdout, Stderr io.Writer
	// Console, if non-nil, receives the guest console (kernel log and
	// /init messages) as it is produced.
	Console io.Writer
}

// Result describes a finished VM run.
type Result struct {
	// ExitCode is the guest command's exit status (128+n if killed by
	// signal n), valid when Run returns a nil error.
	ExitCode int
	// Duration is the wall time from starting qemu to its exit.
	Duration time.Duration
	// Accel is the qemu accelerator used.
	Accel string
	// ConsoleTail holds the last part of the guest console output.
	ConsoleTail string
}

// consoleTailBytes bounds the console output kept for error messages.
const consoleTailBytes = 8 << 10

// Run boots cfg.Kernel under qemu with an initramfs holding busybox, the
// command argv[0] (copied to its host path), Dir/testdata and cfg.Files,
// runs argv in cfg.Dir with stdin /dev/null, and returns its exit status.
// argv[0] must be a statically linked executable. The run is bounded by
// cfg.Timeout and by ctx; qemu is killed when either expires.
//
// Requires qemu-system-x86_64 on PATH (see vmtest/setup.sh).
func Run(ctx context.Context, cfg Config, argv []string) (*Result, error) {
	if len(argv) == 0 {
		return nil, errors.New("vmtest: no command to run")
	}
	if cfg.Kernel == "" {
		return nil, errors.New("vmtest: no kernel given")
	}
	if _, err := os.Stat(cfg.Kernel); err != nil {
		return nil, fmt.Errorf("vmtest: kernel: %w (run vmtest/setup.sh)", err)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MemoryMB <= 0 {
		cfg.MemoryMB = DefaultMemoryMB
	}
	if cfg.CPUs <= 0 {
		cfg.CPUs = DefaultCPUs
	}
	if cfg.Dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("vmtest: %w", err)
		}
		cfg.Dir = wd
	}
	if !filepath.IsAbs(cfg.Dir) {
		return nil, fmt.Errorf("vmtest: Dir %q is not absolute", cfg.Dir)
	}
	bin, err := filepath.Abs(argv[0])
	if err != nil {
		return nil, fmt.Errorf("vmtest: %w", err)
	}
	argv = append([]string{bin}, argv[1:]...)
	if err := checkStatic(bin); err != nil {
		return nil, fmt.Errorf("vmtest: %w (build test binaries with CGO_ENABLED=0)", err)
	}
	bb, err := findBusybox(cfg.Busybox)
	if err != nil {
		return nil, err
	}
	qemu, err := exec.LookPath("qemu-system-x86_64")
	if err != nil {
		return nil, fmt.Errorf("vmtest: %w (run vmtest/setup.sh)", err)
	}
	accel, cpu := pickAccel(cfg.Accel)

	tmp, err := os.MkdirTemp("", "vmtest-")
	if err != nil {
		return nil, fmt.Errorf("vmtest: %w", err)
	}
	defer os.RemoveAll(tmp)

	var nonceBytes [8]byte
	if _, err := rand.Read(nonceBytes[:]); err != nil {
		return nil, fmt.Errorf("vmtest: %w", err)
	}
	nonce := hex.EncodeToString(nonceBytes[:])

	initrd := filepath.Join(tmp, "initramfs.cpio")
	if err := buildInitramfs(initrd, bb, cfg, argv, nonce); err != nil {
		return nil, err
	}

	// Four serial ports: console, command stdout, command stderr, status.
	// Each is a pipe qemu opens as /dev/fd/N, so output streams with no
	// polling and no temporary files.
	type port struct {
		r, w *os.File
		dst  io.Writer
	}
	status := &bytes.Buffer{}
	console := &tailBuffer{max: consoleTailBytes}
	consoleDst := io.Writer(console)
	if cfg.Console != nil {
		consoleDst = io.MultiWriter(console, cfg.Console)
	}
	ports := []*port{{dst: consoleDst}, {dst: cfg.Stdout}, {dst: cfg.Stderr}, {dst: status}}
	for _, p := range ports {
		if p.dst == nil {
			p.dst = io.Discard
		}
		p.r, p.w, err = os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("vmtest: %w", err)
		}
		defer p.r.Close()
		defer p.w.Close()
	}

	cmdline := "console=ttyS0 panic=-1 oops=panic mitigations=off rdinit=/init quiet loglevel=3"
	if cfg.Append != "" {
		cmdline += " " + cfg.Append
	}
	args := []string{
		"-accel", accel, "-cpu", cpu,
		"-m", strconv.Itoa(cfg.MemoryMB), "-smp", strconv.Itoa(cfg.CPUs),
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
	}
	for i := range ports {
		args = append(args, "-serial", fmt.Sprintf("file:/dev/fd/%d", 3+i))
	}
	args = append(args, "-kernel", cfg.Kernel, "-initrd", initrd, "-append", cmdline)

	runCtx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, qemu, args...)
	cmd.Stdin = nil // /dev/null
	qemuOut := &tailBuffer{max: 4 << 10}
	cmd.Stdout = qemuOut
	cmd.Stderr = qemuOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	for _, p := range ports {
		cmd.ExtraFiles = append(cmd.ExtraFiles, p.w)
	}

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("vmtest: start qemu: %w", err)
	}
	var wg sync.WaitGroup
	for _, p := range ports {
		p.w.Close() // qemu holds the only write ends now
		wg.Add(1)
		go func(p *port) {
			defer wg.Done()
			copyAll(p.dst, p.r)
		}(p)
	}
	waitErr := cmd.Wait()
	// Readers see EOF once qemu (and any child holding the pipes) is gone.
	copied := make(chan struct{})
	go func() { wg.Wait(); close(copied) }()
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
		for _, p := range ports {
			p.r.Close()
		}
		<-copied
	}

	res := &Result{Duration: time.Since(start), Accel: accel, ConsoleTail: console.String()}
	tail := func() string {
		c := res.ConsoleTail
		if strings.TrimSpace(c) == "" {
			c = "(empty: the kernel logs quietly; rerun with GOTRACE_VM_VERBOSE=1 and GOTRACE_VM_APPEND=loglevel=7)"
		}
		s := "\n--- guest console (tail) ---\n" + c
		if q := strings.TrimSpace(qemuOut.String()); q != "" {
			s += "\n--- qemu output ---\n" + q
		}
		return s
	}
	if code, ok := parseStatus(status.String(), nonce); ok {
		res.ExitCode = code
		return res, nil
	}
	switch {
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return res, fmt.Errorf("%w after %v (kernel %s, accel %s)%s", ErrTimeout, cfg.Timeout, cfg.Kernel, accel, tail())
	case ctx.Err() != nil:
		return res, fmt.Errorf("vmtest: VM run canceled: %w%s", ctx.Err(), tail())
	case waitErr != nil:
		return res, fmt.Errorf("%w: qemu: %w (kernel %s)%s", ErrNoExitStatus, waitErr, cfg.Kernel, tail())
	default:
		return res, fmt.Errorf("%w (kernel %s)%s", ErrNoExitStatus, cfg.Kernel, tail())
	}
}

func copyAll(dst io.Writer, src io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			// Keep draining even if dst fails, so qemu never blocks.
			_, _ = dst.Write(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// parseStatus finds the exit status line /init writes to the status port.
func parseStatus(s, nonce string) (int, bool) {
	re := regexp.MustCompile(`VMTEST-EXIT-` + nonce + `:(\d+)`)
	m := re.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	code, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, false
	}
	return code, true
}

// pickAccel returns qemu's -accel and -cpu values.
func pickAccel(want string) (accel, cpu string) {
	tcg := func() (string, string) { return "tcg,thread=single", "max,la57=off" }
	switch want {
	case "tcg":
		return tcg()
	case "kvm":
		return "kvm", "host"
	}
	if kvmUsable() {
		return "kvm", "host"
	}
	return tcg()
}

// kvmUsable reports whether /dev/kvm can be opened and the CPU advertises
// hardware virtualisation. A /dev/kvm without vmx/svm (e.g. a PVM nested
// hypervisor) cannot run stock kernels.
func kvmUsable() bool {
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	ci, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return false
	}
	defer ci.Close()
	sc := bufio.NewScanner(ci)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "flags") {
			continue
		}
		for _, f := range strings.Fields(line) {
			if f == "vmx" || f == "svm" {
				return true
			}
		}
		return false
	}
	return false
}

// checkStatic returns an error if path is a dynamically linked ELF file.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked", path)
		}
	}
	return nil
}

func findBusybox(p string) (string, error) {
	if p == "" {
		p = "/bin/busybox"
		if _, err := os.Stat(p); err != nil {
			lp, lerr := exec.LookPath("busybox")
			if lerr != nil {
				return "", fmt.Errorf("vmtest: busybox not found (install busybox-static: run vmtest/setup.sh): %w", lerr)
			}
			p = lp
		}
	}
	if err := checkStatic(p); err != nil {
		return "", fmt.Errorf("vmtest: busybox: %w (install busybox-static)", err)
	}
	return p, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > t.max {
		b = b[len(b)-t.max:]
	}
	return string(b)
}
