package runtime

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"time"

	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
)

// Sink receives every event of a session: what the scripts print and what
// the runtime reports about them. The session calls it from the event
// loops of its programs and from the callers of its API at once, so an
// implementation must be safe for concurrent use. A method returns an
// error only when the output cannot be written: the session stops then.
// Problems with one event (a value that cannot be formatted) are the
// sink's to report (Error) and are not returned.
//
// TextSink prints bpftrace's text output, JSONSink its -f json output
// (Options.Format chooses between them); Options.Sink sets another, such
// as a test's recorder, which can embed either to print too.
type Sink interface {
	// Attached: n probes are attached, which took took (not called
	// with Options.Quiet).
	Attached(n int, took time.Duration) error
	// Printf: the text of one printf() (b is reused after the call).
	Printf(b []byte) error
	// PrintValue: print() of a value, its record formatted with f.
	PrintValue(f *output.Formatter, p *object.Printf, rec []byte) error
	// Message: errorf() (isError) or warnf() with its text; p has its
	// script position, source is the script's text.
	Message(isError bool, text string, p *object.Printf, source string) error
	// HelperError: a helper call that failed with code (a negative
	// errno) at site; RuntimeError: a run-time warning of the script.
	HelperError(site object.HelperSite, code int64, source string) error
	RuntimeError(re object.RuntimeError, source string) error
	// Time, Join and System: the output of time(), join() (the joined
	// line) and system() (the command's output).
	Time(text string) error
	Join(line string) error
	System(out string) error
	// CatBegin, Cat and CatEnd: cat()'s output, in pieces that end on
	// whole UTF-8 sequences.
	CatBegin() error
	Cat(piece []byte) error
	CatEnd() error
	// Map: a map printed (print(@m), or at exit) with its entries as
	// read, formatted with f.
	Map(f *output.Formatter, m *object.Map, entries []output.Entry, mo output.MapOptions) error
	// Lost: n events the programs could not queue.
	Lost(n uint64) error
	// Benchmark: the result of one bench probe (first: the first one).
	Benchmark(first bool, width int, name string, avg time.Duration, iters int) error
	// TestResult: the result of a test probe, the last of results;
	// names are every test's, in the order they run.
	TestResult(names []string, results []TestResult) error
	// Detached: detaching the probes took took, which is long (not
	// called with Options.Quiet).
	Detached(took time.Duration)
	// Exit: the run ends; the maps printed at exit follow.
	Exit() error
	// Error and Warning: a problem of the runtime ("ERROR: text",
	// "WARNING: text"), and Info a line about what it did (-v).
	Error(text string)
	Warning(text string)
	Info(text string)
}

// TextSink prints a session's events as bpftrace prints them: the output
// on Stdout, messages and reports on Stderr. Maps print as Folded stacks
// where they can (bpftrace -f folded... of gotrace).
type TextSink struct {
	Stdout, Stderr io.Writer
	// Folded prints maps of stacks as folded stacks (output.FormatFolded).
	Folded bool
}

// NewSink returns the sink of an output format: JSONSink for
// output.FormatJSON, a TextSink otherwise.
func NewSink(format output.OutputFormat, stdout, stderr io.Writer) Sink {
	text := &TextSink{Stdout: stdout, Stderr: stderr, Folded: format == output.FormatFolded}
	if format == output.FormatJSON {
		return &JSONSink{TextSink: text}
	}
	return text
}

func (t *TextSink) write(str string) error {
	if _, err := io.WriteString(t.Stdout, str); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

func (t *TextSink) Attached(n int, took time.Duration) error {
	fmt.Fprintln(t.Stderr, attachedLine(n, took))
	return nil
}

func (t *TextSink) Printf(b []byte) error {
	if _, err := t.Stdout.Write(b); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

func (t *TextSink) PrintValue(f *output.Formatter, p *object.Printf, rec []byte) error {
	return t.printValue(f.FormatPrintValue, p, rec)
}

// printValue formats a print() value with format and writes it.
func (t *TextSink) printValue(format func(*object.Printf, []byte) (string, error), p *object.Printf, rec []byte) error {
	str, err := format(p, rec)
	if err != nil {
		t.Error("print: " + err.Error())
		return nil
	}
	return t.write(str)
}

func (t *TextSink) Message(isError bool, text string, p *object.Printf, source string) error {
	fmt.Fprint(t.Stderr, output.Message(isError, text, srcpos.Span{Start: p.Pos, End: p.End}, p.Expanded, source))
	return nil
}

func (t *TextSink) HelperError(site object.HelperSite, code int64, source string) error {
	// bpftrace 0.26's warning: the span, the message, the helper and its
	// code, and the source line under it.
	sp := srcpos.Span{Start: site.Pos, End: site.End}
	fmt.Fprintf(t.Stderr, "%s: WARNING: %s\nAdditional Info - helper: %s, retcode: %d\n", sp.Location(), helperMessage(code), site.Helper, code)
	for _, l := range sp.Context(source) {
		fmt.Fprintln(t.Stderr, l)
	}
	return nil
}

// helperMessage words a helper's negative errno return code.
func helperMessage(code int64) string { return strerror(syscall.Errno(-code)) }

func (t *TextSink) RuntimeError(re object.RuntimeError, source string) error {
	if re.End.IsValid() {
		sp := srcpos.Span{Start: re.Pos, End: re.End}
		fmt.Fprintf(t.Stderr, "%s: WARNING: %s\n", sp.Location(), re.Msg)
		for _, l := range sp.Context(source) {
			fmt.Fprintln(t.Stderr, l)
		}
		return nil
	}
	fmt.Fprintf(t.Stderr, "%s: WARNING: %s\n", re.Pos, re.Msg)
	return nil
}

func (t *TextSink) Time(text string) error  { return t.write(text) }
func (t *TextSink) Join(line string) error  { return t.write(line + "\n") }
func (t *TextSink) System(out string) error { return t.write(out + "\n") }
func (t *TextSink) CatBegin() error         { return nil }
func (t *TextSink) Cat(piece []byte) error  { return t.write(string(piece)) }
func (t *TextSink) CatEnd() error           { return nil }
func (t *TextSink) Lost(n uint64) error     { fmt.Fprintf(t.Stderr, "Lost %d events\n", n); return nil }
func (t *TextSink) Exit() error             { return t.write("\n\n") }
func (t *TextSink) Error(text string)       { fmt.Fprintf(t.Stderr, "ERROR: %s\n", text) }
func (t *TextSink) Warning(text string)     { fmt.Fprintf(t.Stderr, "WARNING: %s\n", text) }
func (t *TextSink) Info(text string)        { fmt.Fprintln(t.Stderr, text) }
func (t *TextSink) Detached(took time.Duration) {
	fmt.Fprintf(t.Stderr, "Detached probes in %.2fs\n", took.Seconds())
}
func (t *TextSink) mapWriter(f *output.Formatter) mapWrite {
	if t.Folded {
		return f.WriteMapFolded
	}
	return f.WriteMap
}

// mapWrite is output's WriteMap, WriteMapJSON or WriteMapFolded.
type mapWrite func(io.Writer, *object.Map, []output.Entry, output.MapOptions) error

func (t *TextSink) Map(f *output.Formatter, m *object.Map, entries []output.Entry, mo output.MapOptions) error {
	return t.writeMap(t.mapWriter(f), m, entries, mo)
}

// writeMap prints a map with write; malformed entries are reported.
func (t *TextSink) writeMap(write mapWrite, m *object.Map, entries []output.Entry, mo output.MapOptions) error {
	if err := write(t.Stdout, m, entries, mo); err != nil {
		if errors.Is(err, output.ErrBadEntry) {
			t.Error(fmt.Sprintf("print %s: %v", m.Name, err))
			return nil
		}
		return fmt.Errorf("print %s: %w", m.Name, err)
	}
	return nil
}

func (t *TextSink) Benchmark(first bool, width int, name string, avg time.Duration, iters int) error {
	var b strings.Builder
	if first {
		fmt.Fprintf(&b, "%-*s%-15s%s\n", width+1, "Benchmark", "Time(ns)", "Iterations")
		b.WriteString(strings.Repeat("-", width+1+15+len("Iterations")) + "\n")
	}
	fmt.Fprintf(&b, "%-*s%-15d%d\n", width+1, name, avg.Nanoseconds(), iters)
	return t.write(b.String())
}

// The colours of bpftrace's test report, which it prints whatever the
// output is.
const (
	testGreen = "\033[32m"
	testRed   = "\033[31m"
	testReset = "\033[0m"
)

func (t *TextSink) TestResult(names []string, results []TestResult) error {
	var b strings.Builder
	i := len(results) - 1
	r := results[i]
	if i == 0 {
		fmt.Fprintf(&b, "%s[==========]%s Running %d tests.\n", testGreen, testReset, len(names))
	}
	fmt.Fprintf(&b, "%s[ RUN      ]%s %s\n", testGreen, testReset, r.Name)
	if r.Passed {
		// a test that passes prints nothing of its own
		fmt.Fprintf(&b, "%s[       OK ]%s %s", testGreen, testReset, r.Name)
	} else {
		for _, line := range strings.Split(r.Output, "\n") {
			if line != "" {
				b.WriteString(line + "\n")
			}
		}
		fmt.Fprintf(&b, "%s[  FAILED  ]%s %s", testRed, testReset, r.Name)
	}
	fmt.Fprintf(&b, " (%s)\n", testDuration(r.Duration))
	if i == len(names)-1 {
		plural := func(n int) string {
			if n == 1 {
				return "test"
			}
			return "tests"
		}
		var failed []string
		for _, r := range results {
			if !r.Passed {
				failed = append(failed, r.Name)
			}
		}
		passed := len(results) - len(failed)
		fmt.Fprintf(&b, "%s[==========]%s %d %s ran.\n", testGreen, testReset, len(names), plural(len(names)))
		fmt.Fprintf(&b, "%s[  PASSED  ]%s %d %s.\n", testGreen, testReset, passed, plural(passed))
		if len(failed) > 0 {
			fmt.Fprintf(&b, "%s[  FAILED  ]%s %d %s, listed below:\n", testRed, testReset, len(failed), plural(len(failed)))
			for _, n := range failed {
				fmt.Fprintf(&b, "%s[  FAILED  ]%s %s\n", testRed, testReset, n)
			}
		}
	}
	return t.write(b.String())
}

// testDuration renders a test's run time in the largest unit it reaches
// (ns, μs, ms, s), truncated. bpftrace 0.27.1 prints the unit's scale
// there instead ("1000 μs" for any time in microseconds).
func testDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%d s", d/time.Second)
	case d >= time.Millisecond:
		return fmt.Sprintf("%d ms", d/time.Millisecond)
	case d >= time.Microsecond:
		return fmt.Sprintf("%d μs", d/time.Microsecond)
	}
	return fmt.Sprintf("%d ns", d.Nanoseconds())
}

// JSONSink prints a session's events as bpftrace's -f json does: one JSON
// object a line on Stdout, the script's messages and lost events
// included; the runtime's own errors and warnings stay text on Stderr.
type JSONSink struct {
	*TextSink
}

func (j *JSONSink) Attached(n int, took time.Duration) error {
	return j.write(output.JSONAttachedProbes(n))
}

func (j *JSONSink) Printf(b []byte) error { return j.write(output.JSONPrintf(string(b))) }

func (j *JSONSink) PrintValue(f *output.Formatter, p *object.Printf, rec []byte) error {
	return j.printValue(f.FormatPrintValueJSON, p, rec)
}

func (j *JSONSink) Message(isError bool, text string, p *object.Printf, source string) error {
	return j.write(output.JSONMessage(isError, text, p.Pos))
}

func (j *JSONSink) HelperError(site object.HelperSite, code int64, source string) error {
	return j.write(helperErrorJSON(site, helperMessage(code), code))
}

func (j *JSONSink) RuntimeError(re object.RuntimeError, source string) error {
	if re.Helper != "" {
		return j.write(helperErrorJSON(object.HelperSite{Helper: re.Helper, Pos: re.Pos}, "Success", 0))
	}
	return j.write(fmt.Sprintf(`{"type": "runtime_error", "msg": %s, "filename": %s, "line": %d, "col": %d}`+"\n",
		output.JSONString(re.Msg), output.JSONString(jsonFilename(re.Pos)), re.Pos.Line, re.Pos.Column))
}

func (j *JSONSink) Time(text string) error { return j.write(output.JSONTime(text)) }

func (j *JSONSink) Join(line string) error {
	return j.write(`{"type": "join", "data": ` + output.JSONString(line) + "}\n")
}

func (j *JSONSink) System(out string) error { return j.write(output.JSONSyscall(out)) }

// CatBegin writes the start of cat()'s JSON object, up to the inside of
// its string, which Cat continues and CatEnd closes.
func (j *JSONSink) CatBegin() error {
	begin, _ := jsonCatParts()
	return j.write(begin)
}

func (j *JSONSink) Cat(piece []byte) error {
	if len(piece) == 0 {
		return nil
	}
	q := output.JSONString(string(piece))
	return j.write(q[1 : len(q)-1])
}

func (j *JSONSink) CatEnd() error {
	_, end := jsonCatParts()
	return j.write(end)
}

// jsonCatParts splits cat()'s JSON object around the inside of its string.
func jsonCatParts() (begin, end string) {
	empty := output.JSONCat("")
	i := strings.LastIndex(empty, `""`) + 1
	return empty[:i], empty[i:]
}

func (j *JSONSink) Map(f *output.Formatter, m *object.Map, entries []output.Entry, mo output.MapOptions) error {
	return j.writeMap(f.WriteMapJSON, m, entries, mo)
}

// Lost: like bpftrace, JSON reports go to the output stream.
func (j *JSONSink) Lost(n uint64) error { return j.write(output.JSONLostEvents(n)) }

func (j *JSONSink) Benchmark(first bool, width int, name string, avg time.Duration, iters int) error {
	return j.write(output.JSONBenchmark(name, avg.Nanoseconds(), iters))
}

func (j *JSONSink) TestResult(_ []string, results []TestResult) error {
	r := results[len(results)-1]
	return j.write(output.JSONTestResult(r.Name, r.Duration.Nanoseconds(), r.Passed, r.Output))
}

// Detached: JSON output does not report the time detaching took.
func (j *JSONSink) Detached(took time.Duration) {}

// Exit: JSON output has no blank lines before the maps.
func (j *JSONSink) Exit() error { return nil }

// jsonFilename is the file name -f json gives a script position: "stdin"
// for -e.
func jsonFilename(pos srcpos.Pos) string {
	if pos.Filename == "-e" || pos.Filename == "" {
		return "stdin"
	}
	return pos.Filename
}

// helperErrorJSON renders a failed helper call for -f json as bpftrace
// 0.26 does: the message, the helper, its return code and the script
// position (file "stdin" for -e).
func helperErrorJSON(site object.HelperSite, msg string, code int64) string {
	return fmt.Sprintf(`{"type": "helper_error", "msg": %s, "helper": %s, "retcode": %d, "filename": %s, "line": %d, "col": %d}`+"\n",
		output.JSONString(msg), output.JSONString(site.Helper), code, output.JSONString(jsonFilename(site.Pos)), site.Pos.Line, site.Pos.Column)
}
