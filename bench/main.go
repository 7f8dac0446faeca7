package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 20, "runs per measurement")
	gotrace := flag.String("gotrace", "./gotrace", "gotrace binary")
	bpftrace := flag.String("bpftrace", "bpftrace", "bpftrace binary (skipped when not found)")
	mode := flag.String("mode", "startup", "startup, or syscalls: the syscall tracepoint wildcard from launch to exit")
	perf := flag.Bool("perf", false, "with -mode syscalls, also time gotrace with one perf event per tracepoint")
	flag.Parse()
	if *mode == "syscalls" {
		if err := benchSyscalls(*n, *gotrace, *bpftrace, *perf); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	tools := []string{*gotrace}
	if p, err := exec.LookPath(*bpftrace); err == nil {
		tools = append(tools, p)
	}
	fmt.Printf("%-28s %14s %14s %12s\n", "tool", "first event", "exit", "peak RSS")
	for _, tool := range tools {
		first, err := measure(*n, func() (time.Duration, int64, error) { return firstEvent(tool) })
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", tool, err)
			os.Exit(1)
		}
		exit, err := measure(*n, func() (time.Duration, int64, error) { return toExit(tool) })
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", tool, err)
			os.Exit(1)
		}
		fmt.Printf("%-28s %14s %14s %9.1f MB\n", tool, first.d.Round(100*time.Microsecond), exit.d.Round(100*time.Microsecond), float64(max(first.rss, exit.rss))/1024)
	}
}

type stat struct {
	d   time.Duration
	rss int64 // KiB
}

func measure(n int, f func() (time.Duration, int64, error)) (stat, error) {
	var ds []time.Duration
	var rss int64
	for i := 0; i < n; i++ {
		d, r, err := f()
		if err != nil {
			return stat{}, err
		}
		ds = append(ds, d)
		rss = max(rss, r)
	}
	slices.Sort(ds)
	return stat{ds[len(ds)/2], rss}, nil
}

// firstEvent starts a tracepoint one-liner and calls getppid until the
// first printed line arrives.
func firstEvent(tool string) (time.Duration, int64, error) {
	cmd := exec.Command(tool, "-e", fmt.Sprintf(`tracepoint:syscalls:sys_enter_getppid /pid == %d/ { printf("event\n"); exit(); }`, os.Getpid()))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	got := make(chan time.Duration, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "event" {
				got <- time.Since(start)
				for sc.Scan() {
				}
				return
			}
		}
		close(got)
	}()
	runtime.LockOSThread()
	var d time.Duration
	timeout := time.After(10 * time.Second)
loop:
	for {
		select {
		case v, ok := <-got:
			if !ok {
				break loop
			}
			d = v
			break loop
		case <-timeout:
			_ = cmd.Process.Kill()
			break loop
		default:
			syscall.Getppid()
		}
	}
	runtime.UnlockOSThread()
	err = cmd.Wait()
	if d == 0 {
		return 0, 0, fmt.Errorf("no event (wait: %v)", err)
	}
	return d, rssOf(cmd), nil
}

// toExit times a BEGIN one-liner from launch to exit.
func toExit(tool string) (time.Duration, int64, error) {
	cmd := exec.Command(tool, "-e", `BEGIN { printf("hi\n"); exit(); }`)
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("%v: %s", err, out)
	}
	return time.Since(start), rssOf(cmd), nil
}

func rssOf(cmd *exec.Cmd) int64 {
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
