package runtime

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gotrace/gotrace/object"
)

// errTestsNotRun refuses a program whose only probes are test: probes
// run without --test, in bpftrace's words.
var errTestsNotRun = errors.New("No probes attached; use --test to run test probes.")

// TestResult is the outcome of one test: probe (bpftrace --test).
type TestResult struct {
	Name     string        // the test's name (test:NAME)
	Duration time.Duration // the kernel's time for the run
	Passed   bool          // the program returned 0, with no error and no non-zero exit()
	Output   string        // what it printed, errors included, as text
}

// testCapture is the sink a test's events go to: its text output and
// errors in one buffer, errors counted.
type testCapture struct {
	*TextSink
	buf    bytes.Buffer
	errors int
}

func newTestCapture() *testCapture {
	c := &testCapture{}
	c.TextSink = &TextSink{Stdout: &c.buf, Stderr: &c.buf}
	return c
}

func (c *testCapture) Message(isError bool, text string, p *object.Printf, source string) error {
	if isError {
		c.errors++
	}
	return c.TextSink.Message(isError, text, p, source)
}

func (c *testCapture) RuntimeError(re object.RuntimeError, source string) error {
	c.errors++
	return c.TextSink.RuntimeError(re, source)
}

func (c *testCapture) Error(text string) {
	c.errors++
	c.TextSink.Error(text)
}

// runTests runs the test: probes in script order, each once with
// BPF_PROG_TEST_RUN, as bpftrace --test does: what a test prints is
// captured (the events BEGIN sent, pending, go with the first test's), it
// passes when its program returns 0 with no error and no non-zero exit(),
// and each result goes to the sink with the names of all tests. A failed
// test makes the exit code 1; an exit() in a test ends only that test.
func (s *entry) runTests(tests []*object.Probe, pending [][]byte) error {
	names := make([]string, len(tests))
	for i, p := range tests {
		names[i] = strings.TrimPrefix(p.Name, "test:")
	}
	out := s.sink
	defer func() { s.sink = out }()
	var results []TestResult
	failed := false
	for i, p := range tests {
		bp, err := s.program(p)
		if err != nil {
			return err
		}
		capture := newTestCapture()
		s.sink = capture
		for _, rec := range pending {
			if err := s.handle(rec); err != nil {
				return err
			}
		}
		pending = nil
		ret, d, err := bp.Benchmark(benchInput, 1, nil)
		if err != nil {
			return fmt.Errorf("run %s: %w", p.Name, err)
		}
		if err := s.drain(false); err != nil {
			return err
		}
		r := TestResult{Name: names[i], Duration: d, Output: capture.buf.String(),
			Passed: ret == 0 && s.exitCode == 0 && capture.errors == 0}
		s.exitCode, s.exited, s.finalizing = 0, false, false
		failed = failed || !r.Passed
		results = append(results, r)
		s.sink = out
		if err := out.TestResult(names, results); err != nil {
			return err
		}
	}
	if failed {
		s.exitCode = 1
	}
	return s.flush()
}
