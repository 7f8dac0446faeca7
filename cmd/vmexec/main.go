package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gotrace/gotrace/vmtest"
)

func main() {
	os.Exit(run())
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// parseDuration accepts Go durations ("90s", "5m") and plain seconds ("300").
func parseDuration(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second, nil
	}
	return time.ParseDuration(s)
}

// forwardEnv returns the host variables exported into the guest.
func forwardEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GOTRACE_"),
			k == "GOTRACEBACK", k == "GODEBUG", k == "GOMAXPROCS":
			env = append(env, kv)
		}
	}
	return env
}

func run() int {
	fs := flag.NewFlagSet("vmexec", flag.ContinueOnError)
	kernel := fs.String("kernel", envOr("GOTRACE_VM_KERNEL", "6.12"), "kernel name (6.12, 6.1, 7.3) or path to a vmlinuz")
	timeout := fs.String("timeout", envOr("GOTRACE_VM_TIMEOUT", vmtest.DefaultTimeout.String()), "bound on the whole VM run (duration or seconds)")
	mem := fs.Int("mem", 0, "guest memory in MiB (default $GOTRACE_VM_MEM or 1024)")
	smp := fs.Int("smp", 0, "guest CPUs (default $GOTRACE_VM_SMP or 2)")
	accel := fs.String("accel", envOr("GOTRACE_VM_ACCEL", "auto"), "qemu accelerator: auto, tcg or kvm")
	appendArgs := fs.String("append", os.Getenv("GOTRACE_VM_APPEND"), "extra kernel command line")
	verbose := fs.Bool("v", os.Getenv("GOTRACE_VM_VERBOSE") == "1", "copy the guest console to stderr")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: vmexec [flags] PROGRAM [ARGS...]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "vmexec: %v\n", err)
		return 125
	}
	d, err := parseDuration(*timeout)
	if err != nil {
		return fail(fmt.Errorf("bad timeout %q: %w", *timeout, err))
	}
	intEnv := func(flagVal int, key string) (int, error) {
		if flagVal != 0 {
			return flagVal, nil
		}
		v := os.Getenv(key)
		if v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("bad %s %q: %w", key, v, err)
		}
		return n, nil
	}
	memMB, err := intEnv(*mem, "GOTRACE_VM_MEM")
	if err != nil {
		return fail(err)
	}
	cpus, err := intEnv(*smp, "GOTRACE_VM_SMP")
	if err != nil {
		return fail(err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return fail(err)
	}
	kpath, err := vmtest.KernelPath(*kernel, wd)
	if err != nil {
		return fail(err)
	}
	var files []string
	for _, f := range strings.Split(os.Getenv("GOTRACE_VM_FILES"), ":") {
		if f != "" {
			files = append(files, f)
		}
	}
	cfg := vmtest.Config{
		Kernel:     kpath,
		KernelName: *kernel,
		Timeout:    d,
		MemoryMB:   memMB,
		CPUs:       cpus,
		Accel:      *accel,
		Append:     *appendArgs,
		Dir:        wd,
		Files:      files,
		Env:        forwardEnv(),
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
	}
	if *verbose {
		cfg.Console = os.Stderr
	}

	// go test sends SIGQUIT when its own timeout fires; stop the VM and
	// report what the guest was doing instead of dying silently.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT)
	defer stop()
	res, err := vmtest.Run(ctx, cfg, fs.Args())
	if err != nil {
		fmt.Fprintf(os.Stderr, "vmexec: %v\n", err)
		if errors.Is(err, vmtest.ErrTimeout) {
			return 124
		}
		return 125
	}
	if *verbose {
		fmt.Fprintf(os.Stderr, "vmexec: kernel %s (%s): exit status %d after %.1fs\n", *kernel, res.Accel, res.ExitCode, res.Duration.Seconds())
	}
	return res.ExitCode
}
