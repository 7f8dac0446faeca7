package main

import (
	"bufio"
	"flag"
	"fmt"
	"github.com/gotrace/gotrace/bench/internal/ref"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

func main() {
	gotrace := flag.String("gotrace", "./gotrace", "gotrace binary")
	bpftrace := flag.String("bpftrace", ref.Bpftrace(), "bpftrace binary (skipped when not found; default bpftrace27 when installed)")
	rounds := flag.Int("rounds", 7, "interleaved rounds")
	calls := flag.Int("calls", 1000000, "getppid calls per measurement")
	scrape := flag.Bool("scrape", false, "measure instead what scraping gotrace --metrics adds per event (A/B rounds; -rounds defaults to 61)")
	window := flag.Duration("window", time.Second, "with -scrape: length of a measurement window")
	interval := flag.Duration("interval", time.Second, "with -scrape: scrape interval")
	only := flag.String("only", "", "with -scrape: the scripts to measure, comma-separated (count,hist,keys10k; default all)")
	loopCPU := flag.Int("loop-cpu", -1, "with -scrape: pin the loop thread to this CPU (gotrace and the scraper stay on the process's CPUs: taskset)")
	flag.Parse()
	if _, err := os.Stat(*gotrace); err != nil {
		fmt.Fprintf(os.Stderr, "events: gotrace binary: %v (build it with go build -o %s ./cmd/gotrace)\n", err, *gotrace)
		os.Exit(1)
	}
	var err error
	if *scrape {
		if !flagSet("rounds") {
			*rounds = 61
		}
		var scripts []abScript
		for _, s := range abScripts(os.Getpid()) {
			if *only == "" || slices.Contains(strings.Split(*only, ","), s.name) {
				scripts = append(scripts, s)
			}
		}
		if len(scripts) == 0 {
			fmt.Fprintf(os.Stderr, "events: -only %s: no such script (count, hist, keys10k)\n", *only)
			os.Exit(2)
		}
		err = scrapeAB(*gotrace, scripts, abOptions{rounds: *rounds, window: *window, interval: *interval, loopCPU: *loopCPU})
	} else {
		err = run(*gotrace, *bpftrace, *rounds, *calls)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "events:", err)
		os.Exit(1)
	}
}

// A variant traces the loop; start returns the function that stops it.
type variant struct {
	name  string
	start func(script string) (stop func(), err error)
}

type script struct {
	name string
	src  string
	hand func() (*ebpf.Collection, link.Link, error)
}

// The scripts measured: @ = count() on getppid, and a pid-filtered hist()
// on every system call.
const (
	countSrc = `tracepoint:syscalls:sys_enter_getppid { @ = count(); }`
	histSrc  = `tracepoint:raw_syscalls:sys_enter /pid == %d/ { @ = hist(nsecs & 1023); }`
	// The scripts of -scrape trace getppid alone, so that the BPF
	// programs' run statistics are the loop's events: a count, a
	// pid-filtered hist() (with its sum, under --metrics), and a count
	// into 10,000 keys (a scrape of 10,000 series).
	abHistSrc = `tracepoint:syscalls:sys_enter_getppid /pid == %d/ { @ = hist(nsecs & 1023); }`
	keysSrc   = `tracepoint:syscalls:sys_enter_getppid { @[nsecs % 10000] = count(); }`
)

// abScripts are the scripts of -scrape, for the process pid.
func abScripts(pid int) []abScript {
	return []abScript{
		{"count", countSrc, "gotrace_total "},
		{"hist", fmt.Sprintf(abHistSrc, pid), "gotrace_sum "},
		{"keys10k", keysSrc, `gotrace_total{key="`},
	}
}

// flagSet reports whether the flag was given.
func flagSet(name string) (set bool) {
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func run(gotrace, bpftrace string, rounds, calls int) error {
	pid := os.Getpid()
	scripts := []script{
		{"count", countSrc, handCount},
		{"hist", fmt.Sprintf(histSrc, pid), func() (*ebpf.Collection, link.Link, error) { return handHist(pid) }},
	}
	variants := []variant{
		{"hand", nil},
		{"gotrace", func(src string) (func(), error) { return startTool(gotrace, src) }},
	}
	if p, err := exec.LookPath(bpftrace); err == nil {
		variants = append(variants, variant{"bpftrace", func(src string) (func(), error) { return startTool(p, src) }})
	}

	type key struct{ script, variant string }
	traced := map[key][]float64{}
	added := map[key][]float64{}
	for r := 0; r < rounds; r++ {
		for _, s := range scripts {
			// Rotate the order each round.
			for i := range variants {
				v := variants[(i+r)%len(variants)]
				before := perCall(calls)
				var stop func()
				var err error
				if v.name == "hand" {
					stop, err = startHand(s.hand)
				} else {
					stop, err = v.start(s.src)
				}
				if err != nil {
					return fmt.Errorf("%s %s: %w", s.name, v.name, err)
				}
				on := perCall(calls)
				stop()
				off := (before + perCall(calls)) / 2
				k := key{s.name, v.name}
				traced[k] = append(traced[k], on)
				added[k] = append(added[k], on-off)
				traced[key{s.name, "none"}] = append(traced[key{s.name, "none"}], off)
			}
		}
	}
	fmt.Printf("%d rounds of %d getppid calls, %s\n", rounds, calls, runtime.Version())
	fmt.Printf("%-6s %-14s %12s %12s %10s\n", "script", "variant", "ns/call", "added ns", "vs hand")
	for _, s := range scripts {
		fmt.Printf("%-6s %-14s %12.1f\n", s.name, "none", median(traced[key{s.name, "none"}]))
		hand := median(added[key{s.name, "hand"}])
		for _, v := range variants {
			k := key{s.name, v.name}
			a := median(added[k])
			fmt.Printf("%-6s %-14s %12.1f %12.1f %9.0f%%\n", s.name, v.name, median(traced[k]), a, 100*(a-hand)/hand)
		}
	}
	return nil
}

// perCall times calls getppid calls on one thread; the best of three.
func perCall(calls int) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	best := 0.0
	for j := 0; j < 3; j++ {
		start := time.Now()
		for i := 0; i < calls; i++ {
			syscall.Getppid()
		}
		ns := float64(time.Since(start).Nanoseconds()) / float64(calls)
		if j == 0 || ns < best {
			best = ns
		}
	}
	return best
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// startTool runs a tracer on src and returns once it has attached; args
// come before the program.
func startTool(tool, src string, args ...string) (func(), error) {
	stop, _, err := startToolPid(tool, src, args...)
	return stop, err
}

// startToolPid is startTool, also returning the tracer's pid.
func startToolPid(tool, src string, args ...string) (stop func(), pid int, err error) {
	cmd := exec.Command(tool, append(args, "-e", src)...)
	// bpftrace 0.17 says "Attaching" on stdout, gotrace "Attached" on stderr.
	stderr, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	go func() { _ = cmd.Wait(); w.Close() }()
	ready := make(chan bool, 1)
	exited := make(chan struct{}) // closed when the output ends
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if line := sc.Text(); !sent && (strings.Contains(line, "Attaching") || strings.HasPrefix(line, "Attached")) {
				ready <- true
				sent = true
			}
		}
		if !sent {
			ready <- false
		}
		close(exited)
	}()
	select {
	case ok := <-ready:
		if !ok {
			return nil, 0, fmt.Errorf("%s exited before attaching", tool)
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		return nil, 0, fmt.Errorf("%s did not attach", tool)
	}
	// bpftrace 0.17 prints "Attaching" before the attach completes.
	time.Sleep(time.Second)
	return func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}, cmd.Process.Pid, nil
}

func startHand(load func() (*ebpf.Collection, link.Link, error)) (func(), error) {
	coll, l, err := load()
	if err != nil {
		return nil, err
	}
	return func() { l.Close(); coll.Close() }, nil
}
