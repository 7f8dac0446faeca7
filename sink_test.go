package gotrace

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
	"github.com/gotrace/gotrace/runtime"
)

// recorder is a test's sink: it records the events it receives, and
// prints them as text too (it embeds a TextSink).
type recorder struct {
	*runtime.TextSink
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *recorder) Attached(n int, took time.Duration) error {
	r.add("attached %d", n)
	return r.TextSink.Attached(n, took)
}

func (r *recorder) Printf(b []byte) error {
	r.add("printf %q", b)
	return r.TextSink.Printf(b)
}

func (r *recorder) PrintValue(f *output.Formatter, p *object.Printf, rec []byte) error {
	r.add("print value")
	return r.TextSink.PrintValue(f, p, rec)
}

func (r *recorder) Map(f *output.Formatter, m *object.Map, entries []output.Entry, mo output.MapOptions) error {
	r.add("map %s, %d entries", m.Name, len(entries))
	return r.TextSink.Map(f, m, entries, mo)
}

func (r *recorder) Exit() error {
	r.add("exit")
	return r.TextSink.Exit()
}

// TestRunSink: RunOptions.Sink receives every event of a run, in order,
// and what its embedded TextSink prints is the text output of a run
// without a sink.
func TestRunSink(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	src := `BEGIN { printf("hi %d\n", 1); @x = 5; print(@x); print(7); @y[2] = 3; exit(); }`
	script, err := Compile("-e", src, Options{})
	if err != nil {
		t.Fatal(FormatError(err, src))
	}
	run := func(sink func(stdout, stderr *bytes.Buffer) runtime.Sink) (string, string) {
		var out, errOut bytes.Buffer
		opts := RunOptions{Stdout: &out, Stderr: &errOut, NoSignals: true}
		if sink != nil {
			opts.Sink = sink(&out, &errOut)
		}
		if _, err := script.Run(context.Background(), opts); err != nil {
			t.Fatal(err)
		}
		return out.String(), errOut.String()
	}
	wantOut, wantErr := run(nil)
	var rec *recorder
	gotOut, gotErr := run(func(stdout, stderr *bytes.Buffer) runtime.Sink {
		rec = &recorder{TextSink: &runtime.TextSink{Stdout: stdout, Stderr: stderr}}
		return rec
	})
	if gotOut != wantOut || gotErr != wantErr {
		t.Errorf("output through the recorder:\n%q %q\nwant\n%q %q", gotOut, gotErr, wantOut, wantErr)
	}
	want := []string{
		"attached 1",
		`printf "hi 1\n"`,
		"map @x, 1 entries",
		"print value",
		"exit",
		"map @x, 1 entries",
		"map @y, 1 entries",
	}
	if got := strings.Join(rec.events, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("events:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
}
