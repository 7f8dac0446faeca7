package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/output"
	"github.com/gotrace/gotrace/runtime"
)

// outputFlags are bpftrace's output and process-control options.
type outputFlags struct {
	format   string // -f
	file     string // -o, --output
	buffer   string // -B
	cmd      string // -c, --cmd
	pid      string // -p, --pid
	unsafe   bool   // --unsafe
	verbose  bool   // -v, --verbose
	warnings bool   // -k, --warnings
	kk       bool   // -kk (deprecated in bpftrace)
	// noWarnings is --no-warnings: no warning messages at all.
	noWarnings bool

	fmt  output.OutputFormat // parsed -f
	pidN int                 // parsed -p
}

const outputUsage = `    -o, --output FILE
                   redirect program output to FILE
    -f FORMAT      output format ('text', 'json', 'folded': stack maps as folded stacks)
    -B MODE        output buffering mode ('line', 'full', 'none')
    -p, --pid PID  filter actions on PID, and exit when it exits
    -c, --cmd CMD  run CMD (started once the probes are attached; cpid is its pid)
    -k, --warnings emit a warning when a probe read or map update fails
    --no-warnings  disable all warning messages
    --unsafe       allow unsafe functionality (system())
`

// outputOptions are the options that set o.
func outputOptions(o *outputFlags) []option {
	str := func(p *string) func(string) error { return func(v string) error { *p = v; return nil } }
	return []option{
		{short: 'f', hasArg: true, set: str(&o.format)},
		{short: 'o', long: "output", hasArg: true, set: str(&o.file)},
		{short: 'B', hasArg: true, set: str(&o.buffer)},
		{short: 'c', long: "cmd", hasArg: true, set: str(&o.cmd)},
		{short: 'p', long: "pid", hasArg: true, set: str(&o.pid)},
		{long: "unsafe", set: func(string) error { o.unsafe = true; return nil }},
		{short: 'v', long: "verbose", set: func(string) error { o.verbose = true; return nil }},
		{short: 'k', long: "warnings", set: func(string) error {
			switch {
			case o.noWarnings:
				return errors.New("USAGE: -k, --warnings conflicts with --no-warnings")
			case o.warnings:
				o.kk = true
			}
			o.warnings = true
			return nil
		}},
		{long: "no-warnings", set: func(string) error {
			if o.warnings {
				return errors.New("USAGE: -k, --warnings conflicts with --no-warnings")
			}
			o.noWarnings = true
			return nil
		}},
	}
}

// check validates the options, with bpftrace's messages.
func (o *outputFlags) check() error {
	var err error
	if o.fmt, err = output.ParseOutputFormat(o.format); err != nil {
		return err
	}
	switch o.buffer {
	case "", "line", "full", "none":
	default:
		return errors.New("USAGE: -B must be either 'line', 'full', or 'none'.")
	}
	if o.kk {
		return errors.New("USAGE: -kk has been deprecated. Use a single -k for runtime warnings for errors in map lookups and probe reads.")
	}
	if o.cmd != "" && o.pid != "" {
		return errors.New("USAGE: Cannot use both -c and -p.")
	}
	if o.pid != "" {
		n, err := parsePid(o.pid)
		if err != nil {
			return err
		}
		o.pidN = n
	}
	return nil
}

// session is what the options set up around one run: the output stream,
// the child command, the watched process.
type session struct {
	stdout io.Writer
	flush  func() error
	closeF func() error
	child  *child
	cancel context.CancelFunc
	// targetExited stops the run because the -c child or -p's process
	// exited: the events it sent last are still printed.
	targetExited func()
	pidfd        int
}

// open sets up the child (-c) and the watch on -p's process. ctx is
// cancelled when the child or the process exits, which stops the run
// cleanly (END probes, maps). The output stream is set up by openOutput,
// once the script has compiled.
func (o *outputFlags) open(ctx context.Context, stdout io.Writer) (context.Context, *session, error) {
	s := &session{stdout: stdout, pidfd: -1}
	ctx, cancel := context.WithCancelCause(ctx)
	s.cancel = func() { cancel(nil) }
	s.targetExited = func() { cancel(runtime.ErrTargetExited) }
	if o.cmd != "" {
		c, err := startChild(o.cmd)
		if err != nil {
			s.close()
			return nil, nil, fmt.Errorf("Failed to fork child: %w", err)
		}
		s.child = c
		go func() {
			<-c.done
			s.targetExited()
		}()
	}
	if o.pidN != 0 {
		fd, err := unix.PidfdOpen(o.pidN, 0)
		if err != nil {
			s.close()
			return nil, nil, fmt.Errorf("Failed to attach to pid: %d: %w", o.pidN, err)
		}
		s.pidfd = fd
		go func() {
			// The pidfd becomes readable when the process exits.
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			for {
				n, err := unix.Poll(fds, -1)
				if err == unix.EINTR {
					continue
				}
				if err != nil || n > 0 {
					s.targetExited()
					return
				}
			}
		}()
	}
	return ctx, s, nil
}

// openOutput sets up the output stream (-o, -B) on top of stdout. It runs
// after the script compiled, so that a script with errors leaves -o's file
// untouched.
func (s *session) openOutput(o *outputFlags) error {
	w := s.stdout
	if o.file != "" {
		f, err := os.Create(o.file)
		if err != nil {
			msg := err.Error()
			var pe *os.PathError
			if errors.As(err, &pe) {
				// strerror's capitalisation, as bpftrace prints it.
				msg = pe.Err.Error()
				if msg != "" {
					msg = strings.ToUpper(msg[:1]) + msg[1:]
				}
			}
			return fmt.Errorf("Failed to open output file: %q: %s", o.file, msg)
		}
		w = f
		s.closeF = f.Close
	}
	switch o.buffer {
	case "full":
		bw := bufio.NewWriterSize(w, 8192)
		s.stdout, s.flush = bw, bw.Flush
	case "none":
		s.stdout = w
	default:
		// bpftrace's default is line buffering, whatever the stream.
		lw := &lineWriter{w: bufio.NewWriterSize(w, 8192)}
		s.stdout, s.flush = lw, lw.w.Flush
	}
	return nil
}

// attached is called once the probes are attached: it lets the child run.
func (s *session) attached() {
	// The begin probes have run on the main thread (mainthread.go); the
	// event loop is better served by any thread.
	goruntime.UnlockOSThread()
	if os.Getenv(notifyAttachedEnv) != "" {
		// bpftrace's test hook: its runtime test runner starts a test's
		// AFTER command on this line, which bpftrace writes to its
		// standard output (not -o's file) after attaching, before the
		// output of begin probes.
		fmt.Fprintln(os.Stdout, notifyAttachedEnv)
	}
	if s.child != nil {
		s.child.release()
	}
}

// notifyAttachedEnv names bpftrace's attach-notification test hook and is
// the line it prints.
const notifyAttachedEnv = "__BPFTRACE_NOTIFY_PROBES_ATTACHED"

// close flushes the output, ends the child and releases everything.
func (s *session) close() error {
	var errs []error
	if s.flush != nil {
		errs = append(errs, s.flush())
	}
	if s.closeF != nil {
		errs = append(errs, s.closeF())
	}
	if s.child != nil {
		s.child.finish()
	}
	s.cancel()
	// The pidfd stays open: its watcher may still be polling it, and it
	// goes away with gotrace.
	return errors.Join(errs...)
}

// lineWriter flushes its buffer whenever a write contains a newline.
type lineWriter struct{ w *bufio.Writer }

func (l *lineWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if err == nil && bytes.IndexByte(p, '\n') >= 0 {
		err = l.w.Flush()
	}
	return n, err
}

// parsePid parses -p's pid with bpftrace's checks and messages: a number
// with nothing after it, at most 0x400000 (the largest pid_max).
func parsePid(s string) (int, error) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	switch {
	case i == 0:
		return 0, fmt.Errorf("Failed to parse pid: invalid integer: %s", s)
	case i < len(s):
		return 0, fmt.Errorf("Failed to parse pid: invalid trailing bytes: %s", s)
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > 0x400000 {
		return 0, fmt.Errorf("Pid out of range: %s", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("Pid out of range: %d", n)
	}
	return int(n), nil
}
