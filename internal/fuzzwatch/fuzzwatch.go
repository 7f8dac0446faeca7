package fuzzwatch

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// Limits of one fuzz input.
type Limits struct {
	Time  time.Duration // wall time of the work
	Alloc uint64        // bytes allocated by the work (runtime.MemStats.TotalAlloc)
	Input int           // inputs longer than this many bytes are skipped
}

// Default limits: generous for a loaded CI machine, far below a runaway.
var Default = Limits{Time: 10 * time.Second, Alloc: 512 << 20, Input: 64 << 10}

// Run runs work under l: it fails t when work panics (or calls
// t.FailNow, which stops only the work's goroutine), runs past l.Time or
// allocates more than l.Alloc bytes. Inputs longer than l.Input are
// skipped. A timed-out work goroutine is abandoned (the fuzz worker exits
// with the failure).
func Run(t *testing.T, l Limits, input int, work func()) {
	t.Helper()
	if input > l.Input {
		t.Skip("input too long")
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan any, 1)
	go func() {
		finished := false
		defer func() {
			switch r := recover(); {
			case r != nil:
				done <- fmt.Sprintf("panic: %v\n%s", r, debug.Stack())
			case !finished:
				done <- "work stopped early (t.FailNow)"
			default:
				done <- nil
			}
		}()
		work()
		finished = true
	}()
	timer := time.NewTimer(l.Time)
	defer timer.Stop()
	select {
	case r := <-done:
		if r != nil {
			t.Fatal(r)
		}
	case <-timer.C:
		t.Fatalf("watchdog: input still running after %s", l.Time)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > l.Alloc {
		t.Fatalf("watchdog: input allocated %d MB (limit %d MB)", n>>20, l.Alloc>>20)
	}
}

// Scripts returns the real scripts of the repository, the seed corpus of
// the script fuzz targets: examples/ and e2e/testdata/ (.bt files), found
// from the working directory up to the module root.
func Scripts(tb testing.TB) []string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("fuzzwatch: no go.mod above the working directory")
		}
		dir = parent
	}
	var out []string
	for _, pattern := range []string{"examples/*.bt", "e2e/testdata/*/*.bt"} {
		files, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				tb.Fatal(err)
			}
			out = append(out, string(data))
		}
	}
	if len(out) == 0 {
		tb.Fatal("fuzzwatch: no seed scripts found")
	}
	return out
}
