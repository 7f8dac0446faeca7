package e2e

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestLostEventsWhileRunning floods a tiny ring buffer (perf_rb_pages=1
// through BPFTRACE_PERF_RB_PAGES: one page per CPU, the minimum) with
// printf events: "Lost N events" must appear on stderr while gotrace
// runs, not only at exit, and every event is accounted for: the lines
// printed plus the events reported lost are the events generated, and the
// final total is the sum of the reports.
func TestLostEventsWhileRunning(t *testing.T) {
	t.Setenv("BPFTRACE_PERF_RB_PAGES", "1")
	script := `tracepoint:syscalls:sys_enter_getppid /pid == $1/ { printf("%d\n", nsecs); }
tracepoint:syscalls:sys_enter_getpgid /pid == $1/ { exit(); }`
	s := startNoWait(t, "-e", script, fmt.Sprint(os.Getpid()))
	// Both syscall probes may share one dispatcher link: wait for the
	// Attached line rather than for a number of links.
	s.waitAttached(20 * time.Second)

	// Generate events without pause until a loss is reported: the ring
	// never stays idle meanwhile, so the report cannot wait for the storm
	// to end. Losses are reported at most once a second, the first one at
	// once.
	var generated atomic.Int64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			getppidN(1000)
			generated.Add(1000)
		}
	}()
	start := time.Now()
	for !strings.Contains(s.errText(), "Lost ") {
		if time.Since(start) > 3*time.Second {
			close(stop)
			<-done
			t.Fatalf("no loss reported while running after %d events; stderr:\n%s", generated.Load(), s.errText())
		}
		time.Sleep(time.Millisecond)
	}
	close(stop)
	<-done
	t.Logf("first loss reported after %v", time.Since(start))
	// Let the consumer drain the ring, so that exit()'s event fits; should
	// it still be lost (and counted), ask again.
	time.Sleep(300 * time.Millisecond)
	exits := 0
	for done := false; !done; {
		syscall.Getpgid(0)
		exits++
		select {
		case <-s.done:
			done = true
		case <-time.After(3 * time.Second):
		}
	}
	got := s.wait()
	if got.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", got.code, got.stderr)
	}

	delivered := strings.Count(strings.TrimSuffix(got.stdout, "\n\n"), "\n")
	reported := 0
	for _, m := range regexp.MustCompile(`(?m)^Lost (\d+) events$`).FindAllStringSubmatch(got.stderr, -1) {
		n, _ := strconv.Atoi(m[1])
		reported += n
	}
	m := regexp.MustCompile(`(?m)^WARNING: Total lost event count: (\d+)$`).FindStringSubmatch(got.stderr)
	if m == nil {
		t.Fatalf("no total lost event count; stderr:\n%s", got.stderr)
	}
	total, _ := strconv.Atoi(m[1])
	t.Logf("generated %d, delivered %d, lost %d", generated.Load(), delivered, total)
	if total != reported || total == 0 {
		t.Errorf("total lost %d, reported while running %d", total, reported)
	}
	// The lost exit() events, if any, are counted too.
	if n := int(generated.Load()); delivered+total < n || delivered+total > n+exits-1 {
		t.Errorf("delivered %d + lost %d = %d, generated %d (+ %d exit() events)", delivered, total, delivered+total, n, exits)
	}
}

// TestRingBufferSize checks that perf_rb_pages sizes the events ring
// buffer, from the environment and from a config block, as bpftrace does:
// that many pages in total, at least one per CPU, rounded up to a power
// of two; the environment takes precedence over the config block.
func TestRingBufferSize(t *testing.T) {
	pages := func(n int) int {
		n = max(n, runtime.NumCPU())
		p := 1
		for p < n {
			p <<= 1
		}
		return p * os.Getpagesize()
	}
	re := regexp.MustCompile(`(?m)^Map events: RingBuf, .*max entries (\d+)$`)
	for _, tc := range []struct {
		env, config string
		want        int
	}{
		{"3", "", pages(3)},
		{"", "config = { perf_rb_pages = 100 } ", pages(100)},
		{"1", "config = { perf_rb_pages = 64 } ", pages(1)},
	} {
		t.Run(tc.env+"/"+tc.config, func(t *testing.T) {
			t.Setenv("BPFTRACE_PERF_RB_PAGES", tc.env)
			if tc.env == "" {
				os.Unsetenv("BPFTRACE_PERF_RB_PAGES")
			}
			got := run(t, "-v", "-e", tc.config+`BEGIN { exit(); }`)
			m := re.FindStringSubmatch(got.stderr)
			if m == nil {
				t.Fatalf("no events map in -v output:\n%s", got.stderr)
			}
			if n, _ := strconv.Atoi(m[1]); n != tc.want {
				t.Errorf("ring buffer of %d bytes, want %d", n, tc.want)
			}
		})
	}
}
