package gotrace

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/gotrace/gotrace/internal/benchcpu"
)

// The session benchmarks measure what a REPL user waits for: an entry
// compiled and attached (Session.Add), a probe detached, and a Read of a
// 10,000-key map. They need root:
//
//	go test -run '^$' -bench Session -benchtime 20x .
func openBenchSession(b *testing.B) *Session {
	b.Helper()
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
	sess, err := Open(context.Background(), Options{}, RunOptions{Stdout: io.Discard, Stderr: io.Discard, Quiet: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sess.Close() })
	return sess
}

// BenchmarkSessionAddTracepoint: an entry with a tracepoint probe, from
// source to attached.
func BenchmarkSessionAddTracepoint(b *testing.B) {
	sess := openBenchSession(b)
	for b.Loop() {
		h, err := sess.Add(`tracepoint:syscalls:sys_enter_getppid { @[comm] = count(); }`)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := h.Detach(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

func benchDetach(b *testing.B, src string) {
	sess := openBenchSession(b)
	for b.Loop() {
		b.StopTimer()
		h, err := sess.Add(src)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := h.Detach(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSessionDetachTracepoint: \detach of a tracepoint probe.
func BenchmarkSessionDetachTracepoint(b *testing.B) {
	benchDetach(b, `tracepoint:syscalls:sys_enter_getppid { @a[comm] = count(); }`)
}

// BenchmarkSessionDetachRawTracepoint: \detach of a raw tracepoint probe.
func BenchmarkSessionDetachRawTracepoint(b *testing.B) {
	benchDetach(b, `rawtracepoint:sched_process_exec { @b[comm] = count(); }`)
}

// BenchmarkSessionRead10k: Map.Read of a map of 10,000 keys.
func BenchmarkSessionRead10k(b *testing.B) {
	sess := openBenchSession(b)
	// Ten BEGIN probes of 1,000 keys each (a range loop is bounded).
	src := "config = { max_map_keys = 16384 }\n"
	for k := 0; k < 10; k++ {
		src += fmt.Sprintf("BEGIN { for $i : 0..1000 { @m[$i + %d] = $i; } }\n", k*1000)
	}
	h, err := sess.Add(src + "BEGIN { exit(); }")
	if err != nil {
		b.Fatal(FormatError(err, src))
	}
	<-h.Done()
	m, err := sess.Map("@m")
	if err != nil {
		b.Fatal(err)
	}
	defer benchcpu.Measure(b)()
	for b.Loop() {
		es, err := m.Read()
		if err != nil {
			b.Fatal(err)
		}
		if len(es) != 10000 {
			b.Fatalf("%d entries, want 10000", len(es))
		}
	}
}
