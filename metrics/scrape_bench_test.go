package metrics_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/metrics"
)

// BenchmarkScrapeSession10k: a whole scrape over HTTP of a live session
// whose map has 10,000 keys: the kernel map read, decoded, collected and
// written out. It needs root.
func BenchmarkScrapeSession10k(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root (CAP_BPF, CAP_PERFMON)")
	}
	sess, err := gotrace.Open(context.Background(), gotrace.Options{}, gotrace.RunOptions{Stdout: io.Discard, Stderr: io.Discard, Quiet: true, NoExitMaps: true})
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	if _, err := sess.Add(fmt.Sprintf(`config = { max_map_keys = 16384 } tracepoint:syscalls:sys_enter_lseek /pid == %d/ { @m[args.offset] = count(); }`, os.Getpid())); err != nil {
		b.Fatal(err)
	}
	f, err := os.CreateTemp(b.TempDir(), "seek")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	const keys = 10000
	for i := range keys {
		if _, err := unix.Seek(int(f.Fd()), int64(i), 0); err != nil {
			b.Fatal(err)
		}
	}
	src := metrics.NewSessionSource(nil)
	src.Set(sess.Runtime())
	c, err := metrics.New(src, metrics.Options{})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := metrics.Listen("127.0.0.1:0", c, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	url := "http://" + srv.Addr().String() + "/metrics"
	scrape := func() string {
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			b.Fatal(err)
		}
		return string(body)
	}
	if n := strings.Count(scrape(), "gotrace_m_total{"); n != keys {
		b.Fatalf("%d series, want %d", n, keys)
	}
	cpu := cpuTime()
	for b.Loop() {
		scrape()
	}
	// On a loaded machine the wall time per scrape counts the waits for a
	// CPU; the process's CPU time per scrape does not.
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time the process used so far (user and system).
func cpuTime() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
