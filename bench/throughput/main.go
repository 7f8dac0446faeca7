package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"github.com/gotrace/gotrace/bench/internal/ref"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const script = `tracepoint:syscalls:sys_enter_getppid /pid == $1/ { printf("%d %s\n", nsecs, comm); }`

func main() {
	gotrace := flag.String("gotrace", "./gotrace", "gotrace binary")
	bpftrace := flag.String("bpftrace", ref.Bpftrace(), "bpftrace binary (skipped when not found; default bpftrace27 when installed)")
	rounds := flag.Int("rounds", 5, "interleaved rounds")
	n := flag.Int("n", 2000000, "events (getppid calls) per run")
	pages := flag.Int("perf-rb-pages", 0, "BPFTRACE_PERF_RB_PAGES for both tracers; 0 leaves their default")
	child := flag.Int("child", 0, "internal: run as the helper making this many getppid calls")
	flag.Parse()
	if *child > 0 {
		runChild(*child)
		return
	}
	if err := run(*gotrace, *bpftrace, *rounds, *n, *pages); err != nil {
		fmt.Fprintln(os.Stderr, "throughput:", err)
		os.Exit(1)
	}
}

// runChild waits for a byte on stdin, calls getppid n times on one thread
// and prints how long the loop took in nanoseconds.
func runChild(n int) {
	runtime.LockOSThread()
	var b [1]byte
	if _, err := os.Stdin.Read(b[:]); err != nil {
		os.Exit(1)
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		syscall.Getppid()
	}
	fmt.Println(time.Since(start).Nanoseconds())
}

// result is one run of one tracer.
type result struct {
	rate      float64 // events generated per second
	delivered int
	lost      int // as the tracer reports it
	cpu       time.Duration
}

func run(gotrace, bpftrace string, rounds, n, pages int) error {
	if _, err := os.Stat(gotrace); err != nil {
		return fmt.Errorf("gotrace binary: %w (build it with go build -o %s ./cmd/gotrace)", err, gotrace)
	}
	tools := []string{gotrace}
	if p, err := exec.LookPath(bpftrace); err == nil {
		tools = append(tools, p)
	}
	dir, err := os.MkdirTemp("", "throughput")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	results := map[string][]result{}
	for r := 0; r < rounds; r++ {
		for i := range tools {
			tool := tools[(i+r)%len(tools)]
			res, err := once(tool, filepath.Join(dir, "out"), n, pages)
			if err != nil {
				return fmt.Errorf("%s: %w", tool, err)
			}
			results[tool] = append(results[tool], res)
		}
	}
	fmt.Printf("%d rounds of %d printf events to a file, perf_rb_pages %d, %d CPUs, %s\n", rounds, n, pages, runtime.NumCPU(), runtime.Version())
	fmt.Printf("%-24s %12s %10s %10s %8s %12s %14s\n", "tool", "generated/s", "delivered", "lost", "CPU s", "CPU ns/event", "capacity ev/s")
	for _, tool := range tools {
		rs := results[tool]
		med := func(f func(result) float64) float64 {
			xs := make([]float64, len(rs))
			for i, r := range rs {
				xs[i] = f(r)
			}
			slices.Sort(xs)
			return xs[len(xs)/2]
		}
		perEvent := med(func(r result) float64 { return float64(r.cpu.Nanoseconds()) / float64(max(r.delivered, 1)) })
		fmt.Printf("%-24s %12.0f %10.0f %10.0f %8.2f %12.0f %14.0f\n", filepath.Base(tool),
			med(func(r result) float64 { return r.rate }),
			med(func(r result) float64 { return float64(r.delivered) }),
			med(func(r result) float64 { return float64(r.lost) }),
			med(func(r result) float64 { return r.cpu.Seconds() }),
			perEvent, 1e9/perEvent)
	}
	return nil
}

var (
	lostLine  = regexp.MustCompile(`(?m)^Lost (\d+) events`)
	totalLine = regexp.MustCompile(`(?m)Total lost event count: (\d+)`)
	eventLine = regexp.MustCompile(`(?m)^-?\d+ \S+$`)
)

// once runs tool on the script with the output to out while the helper
// makes n calls.
func once(tool, out string, n, pages int) (result, error) {
	self, err := os.Executable()
	if err != nil {
		return result{}, err
	}
	child := exec.Command(self, "-child", strconv.Itoa(n))
	go1, err := child.StdinPipe()
	if err != nil {
		return result{}, err
	}
	var childOut bytes.Buffer
	child.Stdout = &childOut
	if err := child.Start(); err != nil {
		return result{}, err
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()

	_ = os.Remove(out)
	cmd := exec.Command(tool, "-o", out, "-e", script, strconv.Itoa(child.Process.Pid))
	cmd.Env = os.Environ()
	if pages > 0 {
		cmd.Env = append(cmd.Env, "BPFTRACE_PERF_RB_PAGES="+strconv.Itoa(pages))
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	if err := waitAttached(cmd.Process.Pid, 30*time.Second); err != nil {
		return result{}, fmt.Errorf("%w; stderr:\n%s", err, stderr.String())
	}
	time.Sleep(500 * time.Millisecond)

	cpu0, err := cpuTime(cmd.Process.Pid)
	if err != nil {
		return result{}, err
	}
	if _, err := go1.Write([]byte{1}); err != nil {
		return result{}, err
	}
	if err := child.Wait(); err != nil {
		return result{}, fmt.Errorf("helper: %w", err)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(childOut.String()), 10, 64)
	if err != nil {
		return result{}, fmt.Errorf("helper output %q: %w", childOut.String(), err)
	}
	waitStable(out)
	cpu1, err := cpuTime(cmd.Process.Pid)
	if err != nil {
		return result{}, err
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		return result{}, err
	}
	if err := cmd.Wait(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return result{}, err
		}
	}
	res := result{rate: float64(n) / (float64(ns) / 1e9), cpu: cpu1 - cpu0}
	text, err := os.ReadFile(out)
	if err != nil {
		return result{}, err
	}
	res.delivered = len(eventLine.FindAll(text, -1))
	all := string(text) + stderr.String()
	if m := totalLine.FindStringSubmatch(all); m != nil {
		res.lost, _ = strconv.Atoi(m[1])
	} else {
		for _, m := range lostLine.FindAllStringSubmatch(all, -1) {
			k, _ := strconv.Atoi(m[1])
			res.lost += k
		}
	}
	return res, nil
}

// cpuTime returns the user+system time process pid has used so far
// (utime and stime of /proc/PID/stat, as its rusage counts them).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The fields after the command name, which ends with the last ')'.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("parse /proc/%d/stat: %w", pid, err)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat times (100 on Linux).
const clockTicks = 100

// waitAttached waits until process pid holds a BPF link or a perf event
// (bpftrace 0.17 attaches tracepoints with PERF_EVENT_IOC_SET_BPF).
func waitAttached(pid int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if l == "anon_inode:bpf_link" || l == "anon_inode:[perf_event]" {
				return nil
			}
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return errors.New("exited before attaching")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.New("did not attach")
}

// waitStable waits until file has stopped growing for 300ms: the tracer
// has written every event it got.
func waitStable(file string) {
	var last int64 = -1
	stable := time.Now()
	for time.Since(stable) < 300*time.Millisecond {
		time.Sleep(20 * time.Millisecond)
		fi, err := os.Stat(file)
		if err != nil {
			continue
		}
		if fi.Size() != last {
			last = fi.Size()
			stable = time.Now()
		}
	}
}
