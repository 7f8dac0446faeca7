package main

import (
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// abScript is a script of the scrape A/B measurement, and a metric its
// scrape must show (so that a scrape is known to read the map).
type abScript struct {
	name, src, metric string
}

// abOptions configure scrapeAB.
type abOptions struct {
	rounds   int           // rounds of one window per arm
	window   time.Duration // length of a measurement window
	interval time.Duration // scrape interval while the scraper is on
	loopCPU  int           // the CPU of the loop thread, -1 for the process's
}

// window is one measurement window of the loop: getppid calls made, the
// loop thread's CPU time and the wall time they took; the same for the
// getuid calls made between them (the control: a system call as cheap,
// never traced); and the run time and runs of the tracer's BPF programs
// meanwhile (progNs, progRuns).
type window struct {
	calls            int
	cpuNs, wall      float64
	ctlCalls         int
	ctlNs            float64
	progNs, progRuns float64
}

func (w window) cpuPerCall() float64  { return w.cpuNs / float64(w.calls) }
func (w window) wallPerCall() float64 { return w.wall / float64(w.calls) }
func (w window) progPerRun() float64  { return w.progNs / w.progRuns }

// gap is the thread's CPU time per getppid call less that per getuid call
// in the same window: what tracing adds to getppid, plus the small
// difference of the two calls untraced.
func (w window) gap() float64 { return w.cpuPerCall() - w.ctlNs/float64(w.ctlCalls) }

// loopFor calls getppid(2) on one locked thread for d, and returns the
// calls and the thread's CPU time (CLOCK_THREAD_CPUTIME_ID: the system
// call and the BPF program it runs, and not the time other tasks, such as
// gotrace answering a scrape, hold the CPU) and wall time; with a tracer
// pid, also what its BPF programs ran meanwhile (progStats). A cpu other
// than -1 pins the thread to that CPU for the window.
func loopFor(d time.Duration, pid, cpu int) window {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cpu >= 0 {
		var was, only unix.CPUSet
		if err := unix.SchedGetaffinity(0, &was); err == nil {
			only.Set(cpu)
			if err := unix.SchedSetaffinity(0, &only); err == nil {
				defer unix.SchedSetaffinity(0, &was)
			}
		}
	}
	const batch = 10000
	var w window
	threadCPU := func() int64 {
		var ts unix.Timespec
		_ = unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
		return ts.Nano()
	}
	ns0, runs0 := progStats(pid)
	start := time.Now()
	for time.Since(start) < d {
		// Batches of getppid and of the control alternate, so that both
		// see the same state of the machine.
		t0, c0 := time.Now(), threadCPU()
		for range batch {
			unix.Getppid()
		}
		c1, t1 := threadCPU(), time.Now()
		for range batch {
			unix.Getuid()
		}
		c2 := threadCPU()
		w.calls += batch
		w.cpuNs += float64(c1 - c0)
		w.wall += float64(t1.Sub(t0).Nanoseconds())
		w.ctlCalls += batch
		w.ctlNs += float64(c2 - c1)
	}
	ns1, runs1 := progStats(pid)
	w.progNs, w.progRuns = float64(ns1-ns0), float64(runs1-runs0)
	return w
}

// progStats sums the kernel's run statistics (run_time_ns, run_cnt: kept
// while BPF_ENABLE_STATS is on) of the BPF programs process pid holds, from
// /proc/PID/fdinfo; 0 for pid 0.
func progStats(pid int) (ns, runs uint64) {
	if pid == 0 {
		return 0, 0
	}
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	fds, _ := os.ReadDir(dir)
	for _, fd := range fds {
		if l, _ := os.Readlink(filepath.Join(dir, fd.Name())); l != "anon_inode:bpf-prog" {
			continue
		}
		info, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, fd.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(info), "\n") {
			k, v, _ := strings.Cut(line, ":")
			n, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			switch k {
			case "run_time_ns":
				ns += n
			case "run_cnt":
				runs += n
			}
		}
	}
	return ns, runs
}

// scraper fetches url every interval while on, as a Prometheus server
// scraping gotrace would.
type scraper struct {
	url     string
	on      atomic.Bool
	n       atomic.Int64 // scrapes done
	totalNs atomic.Int64 // their wall time
	err     atomic.Pointer[error]
	done    chan struct{}
	stopped chan struct{}
}

func startScraper(url string, interval time.Duration) *scraper {
	s := &scraper{url: url, done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(s.stopped)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-tick.C:
				if !s.on.Load() {
					continue
				}
				start := time.Now()
				if _, err := scrapeOnce(s.url); err != nil {
					s.err.Store(&err)
					continue
				}
				s.n.Add(1)
				s.totalNs.Add(time.Since(start).Nanoseconds())
			}
		}
	}()
	return s
}

func (s *scraper) stop() {
	close(s.done)
	<-s.stopped
}

// scrapeAB measures what scraping gotrace's /metrics every interval adds
// to the cost of each traced event. Per script, one gotrace runs the
// script with --metrics for the whole measurement; the scraper is turned
// on and off between windows of the getppid loop, in ABBA order round
// after round (off-on, on-off, ...), so that drifts of the machine fall on
// both arms alike. Three costs are compared, each per round as the
// relative difference of the two arms of the round:
//
//   - the run time per event of gotrace's BPF programs, as the kernel
//     measures it (BPF_ENABLE_STATS, on for the measurement): the cost
//     tracing adds to each event, interrupted by nothing else;
//   - the loop thread's CPU time per getppid call less that per getuid
//     call, batches of the two alternating within each window (getuid is
//     never traced), less the same difference untraced (windows before
//     gotrace starts and after it stops): the cost tracing adds, as the
//     traced thread pays it (entering the program included), with what
//     the scrapes do to any system call (the caches they displace on a
//     shared CPU) taken out;
//   - the loop thread's CPU time per getppid call less the untraced
//     call's: the same cost with that left in.
//
// Each is reported as the median over the rounds with a distribution-free
// 95% confidence interval, the quartiles and the extremes; the wall time
// per call, which includes whatever the scrapes take from the traced
// thread's CPU, as the arms' medians.
func scrapeAB(gotrace string, scripts []abScript, o abOptions) error {
	stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		return fmt.Errorf("enable BPF run time statistics: %w", err)
	}
	defer stats.Close()
	loop := "the loop on the same CPUs"
	if o.loopCPU >= 0 {
		loop = fmt.Sprintf("the loop on CPU %d", o.loopCPU)
	}
	fmt.Printf("scrape A/B: %d rounds x 2 windows of %v (ABBA), scraper every %v; gotrace and the scraper on %s, %s; %s\n",
		o.rounds, o.window, o.interval, affinity(), loop, runtime.Version())
	for _, s := range scripts {
		if err := scrapeABScript(gotrace, s, o); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

func scrapeABScript(gotrace string, s abScript, o abOptions) error {
	var base []window
	untraced := func() {
		for range 3 {
			base = append(base, loopFor(o.window, 0, o.loopCPU))
		}
	}
	untraced()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := l.Addr().String()
	l.Close()
	stopTool, pid, err := startToolPid(gotrace, s.src, "--metrics", addr)
	if err != nil {
		return err
	}
	url := "http://" + addr + "/metrics"
	loopFor(o.window, pid, o.loopCPU) // warm up: the map's keys exist
	if body, err := scrapeOnce(url); err != nil || !strings.Contains(body, s.metric) {
		stopTool()
		return fmt.Errorf("scrape of %s lacks %s (%v):\n%s", url, s.metric, err, body)
	}
	sc := startScraper(url, o.interval)
	var arms [2][]window // [0] without scraper, [1] with
	for r := range o.rounds {
		for i := range 2 {
			arm := i
			if r%2 == 1 {
				arm = 1 - i
			}
			sc.on.Store(arm == 1)
			arms[arm] = append(arms[arm], loopFor(o.window, pid, o.loopCPU))
		}
		sc.on.Store(false)
	}
	sc.stop()
	stopTool()
	untraced()
	if p := sc.err.Load(); p != nil {
		return fmt.Errorf("scrape: %w", *p)
	}
	off, on := arms[0], arms[1]
	med := func(ws []window, f func(window) float64) float64 {
		xs := make([]float64, len(ws))
		for i, w := range ws {
			xs[i] = f(w)
		}
		return median(xs)
	}
	// effect is the per-round relative difference of on over off, the
	// cost being f less sub.
	effect := func(f func(window) float64, sub float64) []float64 {
		out := make([]float64, len(off))
		for r := range off {
			out[r] = 100 * (f(on[r]) - f(off[r])) / (f(off[r]) - sub)
		}
		return out
	}
	n := sc.n.Load()
	fmt.Printf("\n%s: %s\n  %d scrapes, %.2f ms each; %.0f program runs per window\n", s.name, s.src,
		n, float64(sc.totalNs.Load())/float64(max(n, 1))/1e6, med(off, func(w window) float64 { return w.progRuns }))
	fmt.Printf("  %-34s %10s %10s %10s  %s\n", "", "untraced", "no scrape", "scrape", "scrape's effect on the cost: median [95% CI] (quartiles) {min, max}")
	prog := window.progPerRun
	fmt.Printf("  %-34s %10s %10.1f %10.1f  %s\n", "BPF program, ns per run", "",
		med(off, prog), med(on, prog), summary(effect(prog, 0)))
	g := med(base, window.gap)
	fmt.Printf("  %-34s %10.1f %10.1f %10.1f  %s\n", "thread CPU, getppid - getuid, ns", g,
		med(off, window.gap), med(on, window.gap), summary(effect(window.gap, g)))
	b := med(base, window.cpuPerCall)
	fmt.Printf("  %-34s %10.1f %10.1f %10.1f  %s\n", "thread CPU, ns per getppid call", b,
		med(off, window.cpuPerCall), med(on, window.cpuPerCall), summary(effect(window.cpuPerCall, b)))
	fmt.Printf("  %-34s %10.1f %10.1f %10.1f  (with the time other tasks held the loop's CPU)\n", "wall, ns per getppid call",
		med(base, window.wallPerCall), med(off, window.wallPerCall), med(on, window.wallPerCall))
	return nil
}

// summary describes the per-round effects xs (in %).
func summary(xs []float64) string {
	lo, hi := medianCI95(xs)
	return fmt.Sprintf("%+.2f%% [%+.2f%%, %+.2f%%] (%+.2f%%, %+.2f%%) {%+.2f%%, %+.2f%%}",
		median(xs), lo, hi, quantile(xs, 0.25), quantile(xs, 0.75), slices.Min(xs), slices.Max(xs))
}

// quantile returns the q-quantile of xs (nearest rank).
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// medianCI95 returns a distribution-free 95% confidence interval of the
// median of xs: the order statistics x(k) and x(n+1-k) with k the largest
// rank for which P(Binomial(n, 1/2) < k) <= 2.5%.
func medianCI95(xs []float64) (lo, hi float64) {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	k, cum := 0, 0.0
	for j := 0; j < n; j++ {
		cum += binomHalf(n, j)
		if cum > 0.025 {
			break
		}
		k = j + 1
	}
	if k == 0 {
		return s[0], s[n-1] // too few rounds for a 95% interval
	}
	return s[k-1], s[n-k]
}

// binomHalf is P(Binomial(n, 1/2) = j).
func binomHalf(n, j int) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	return math.Exp(lg(n) - lg(j) - lg(n-j) - float64(n)*math.Ln2)
}

// affinity describes the CPUs this process may run on (taskset).
func affinity() string {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return "CPUs: unknown"
	}
	var cpus []string
	for i := range 1024 {
		if set.IsSet(i) {
			cpus = append(cpus, fmt.Sprint(i))
		}
	}
	return "CPUs " + strings.Join(cpus, ",")
}

// scrapeOnce GETs url and returns the body.
func scrapeOnce(url string) (string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return string(b), err
}
