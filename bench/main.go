package main

import (
	"bufio"
	"flag"
	"fmt"
	"github.com/gotrace/gotrace/bench/internal/ref"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", 20, "runs per measurement")
	gotrace := flag.String("gotrace", "./gotrace", "gotrace binaries, comma-separated (e.g. before,after)")
	bpftrace := flag.String("bpftrace", ref.Bpftrace(), "bpftrace binary (skipped when not found; default bpftrace27 when installed)")
	only := flag.String("only", "", "measurements to run, comma-separated (default all): "+names())
	mode := flag.String("mode", "startup", "startup, or syscalls: the syscall tracepoint wildcard from launch to exit")
	perf := flag.Bool("perf", false, "with -mode syscalls, also time gotrace with one perf event per tracepoint")
	flag.Parse()
	if *mode == "syscalls" {
		first, _, _ := strings.Cut(*gotrace, ",")
		if err := benchSyscalls(*n, first, *bpftrace, *perf); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	var tools []string
	for _, g := range strings.Split(*gotrace, ",") {
		tools = append(tools, g)
	}
	if p, err := exec.LookPath(*bpftrace); err == nil {
		tools = append(tools, p)
	}
	for _, m := range measurements {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), m.name) {
			continue
		}
		fmt.Printf("%s: %s\n", m.name, m.desc)
		stats, err := alternate(*n, tools, m.run)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", m.name, err)
			os.Exit(1)
		}
		for i, tool := range tools {
			fmt.Printf("  %-40s median %10s  peak RSS %6.1f MB\n", tool, stats[i].d.Round(100*time.Microsecond), float64(stats[i].rss)/1024)
		}
	}
}

// measurements are what bench times, each for every tool.
var measurements = []struct {
	name, desc string
	run        func(tool string) (time.Duration, int64, error)
}{
	{"first", "launch to the first event of a tracepoint one-liner", firstEvent},
	{"exit", "launch to exit of BEGIN { printf; exit() }", func(tool string) (time.Duration, int64, error) {
		return toExit(tool, "-e", `BEGIN { printf("hi\n"); exit(); }`)
	}},
	{"tpexit", "launch to exit of a tracepoint one-liner whose BEGIN calls exit()", func(tool string) (time.Duration, int64, error) {
		return toExit(tool, "-e", `tracepoint:syscalls:sys_enter_openat { @ = count(); } BEGIN { exit(); }`)
	}},
	{"btf", "compile a BTF-typed kprobe script (gotrace --emit=asm, bpftrace -d), launch to exit", func(tool string) (time.Duration, int64, error) {
		args := []string{"--emit=asm"}
		if ref.IsBpftrace(tool) {
			args = ref.CompileFlags(tool)
		}
		return toExit(tool, append(args, "-e", btfScript)...)
	}},
}

// btfScript needs struct file and its members from kernel BTF.
const btfScript = `kprobe:vfs_read { @[((struct file *)arg0)->f_path.dentry->d_name.name] = count(); }`

func names() string {
	var l []string
	for _, m := range measurements {
		l = append(l, m.name)
	}
	return strings.Join(l, ",")
}

// alternate runs f n times for each tool, the tools taking turns so that a
// change in the machine's load affects them alike, and returns the medians.
func alternate(n int, tools []string, f func(string) (time.Duration, int64, error)) ([]stat, error) {
	ds := make([][]time.Duration, len(tools))
	out := make([]stat, len(tools))
	for range n {
		for i, tool := range tools {
			d, r, err := f(tool)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", tool, err)
			}
			ds[i] = append(ds[i], d)
			out[i].rss = max(out[i].rss, r)
		}
	}
	for i := range tools {
		slices.Sort(ds[i])
		out[i].d = ds[i][len(ds[i])/2]
	}
	return out, nil
}

type stat struct {
	d   time.Duration
	rss int64 // KiB
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

// toExit times a command from launch to exit.
func toExit(tool string, args ...string) (time.Duration, int64, error) {
	cmd := exec.Command(tool, args...)
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
