package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const script = `tracepoint:syscalls:sys_enter_getppid /pid == $1/ { printf("%llu\n", nsecs); }`

func main() {
	gotrace := flag.String("gotrace", "./gotrace", "gotrace binary")
	bpftrace := flag.String("bpftrace", "bpftrace", "bpftrace binary (skipped when not found)")
	rate := flag.Int("rate", 3000, "events a second")
	seconds := flag.Float64("seconds", 5, "how long to measure line latency")
	flag.Parse()
	tools := []string{*gotrace}
	if p, err := exec.LookPath(*bpftrace); err == nil {
		tools = append(tools, p)
	}
	for _, tool := range tools {
		lat, err := lineLatency(tool, *rate, time.Duration(*seconds*float64(time.Second)))
		if err != nil {
			fmt.Fprintf(os.Stderr, "latency: %s: %v\n", tool, err)
			os.Exit(1)
		}
		slices.Sort(lat)
		fmt.Printf("%s -B line at %d events/s: %d lines, p50 %v, p99 %v, max %v\n", tool, *rate, len(lat),
			pct(lat, 50), pct(lat, 99), lat[len(lat)-1])
		d, err := headExit(tool, *rate)
		if err != nil {
			fmt.Fprintf(os.Stderr, "latency: %s: head -1: %v\n", tool, err)
			os.Exit(1)
		}
		fmt.Printf("%s | head -1: exits %v after the pipe closes\n", tool, d)
	}
}

// pct is the p-th percentile of sorted durations.
func pct(d []time.Duration, p int) time.Duration {
	return d[min(len(d)-1, len(d)*p/100)]
}

// monotonic is CLOCK_MONOTONIC, the clock of nsecs (bpf_ktime_get_ns).
func monotonic() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// tracer is a running tracer whose standard output is a pipe.
type tracer struct {
	cmd  *exec.Cmd
	out  io.ReadCloser
	done chan error
}

// start runs tool on the script for this process and waits until it has
// attached (its "Attached" line on stderr).
func start(tool string) (*tracer, error) {
	cmd := exec.Command(tool, "-B", "line", "-e", script, strconv.Itoa(os.Getpid()))
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errp, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	attached := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(errp)
		ok := false
		for sc.Scan() {
			if !ok && strings.HasPrefix(sc.Text(), "Attached") {
				ok = true
				attached <- true
			}
		}
		if !ok {
			attached <- false
		}
	}()
	t := &tracer{cmd: cmd, out: out, done: make(chan error, 1)}
	if !<-attached {
		_ = cmd.Process.Kill()
		return nil, errors.New("did not attach")
	}
	go func() { t.done <- cmd.Wait() }()
	return t, nil
}

// fire calls getppid at rate calls a second from one locked thread until
// stop is closed.
func fire(rate int, stop <-chan struct{}) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	gap := time.Second / time.Duration(rate)
	next := time.Now()
	for {
		select {
		case <-stop:
			return
		default:
		}
		syscall.Getppid()
		next = next.Add(gap)
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		}
	}
}

// lineLatency measures each line's latency for d.
func lineLatency(tool string, rate int, d time.Duration) ([]time.Duration, error) {
	t, err := start(tool)
	if err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	go fire(rate, stop)
	var lat []time.Duration
	sc := bufio.NewScanner(t.out)
	end := time.Now().Add(d)
	for time.Now().Before(end) && sc.Scan() {
		ns, err := strconv.ParseInt(strings.TrimSpace(sc.Text()), 10, 64)
		if err != nil {
			continue
		}
		lat = append(lat, time.Duration(monotonic()-ns))
	}
	close(stop)
	_ = t.cmd.Process.Signal(syscall.SIGINT)
	go func() { _, _ = io.Copy(io.Discard, t.out) }()
	<-t.done
	if len(lat) == 0 {
		return nil, errors.New("no lines")
	}
	return lat, nil
}

// headExit reads one line, closes the pipe as head -1 does, and measures
// how long the tracer takes to exit while events keep coming.
func headExit(tool string, rate int) (time.Duration, error) {
	t, err := start(tool)
	if err != nil {
		return 0, err
	}
	stop := make(chan struct{})
	defer close(stop)
	go fire(rate, stop)
	if _, err := bufio.NewReader(t.out).ReadString('\n'); err != nil {
		return 0, err
	}
	closed := time.Now()
	t.out.Close()
	select {
	case <-t.done:
		return time.Since(closed), nil
	case <-time.After(10 * time.Second):
		_ = t.cmd.Process.Kill()
		<-t.done
		return 0, errors.New("did not exit within 10 s")
	}
}
