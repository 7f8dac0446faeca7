package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/output"
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

	fmt  output.OutputFormat // parsed -f
	pidN int                 // parsed -p
}

const outputUsage = `    -o, --output FILE
                   redirect program output to FILE
    -f FORMAT      output format ('text', 'json')
    -B MODE        output buffering mode ('line', 'full', 'none')
    -p, --pid PID  filter actions on PID, and exit when it exits
    -c, --cmd CMD  run CMD (started once the probes are attached; cpid is its pid)
    -v, --verbose  print program and map information and verifier statistics
    -k, --warnings emit a warning when a probe read or map update fails
    --unsafe       allow unsafe functionality (system())
`

// addOutputFlags registers the options on fs.
func addOutputFlags(fs *flag.FlagSet, o *outputFlags) {
	fs.StringVar(&o.format, "f", "", "format")
	fs.StringVar(&o.file, "o", "", "output file")
	fs.StringVar(&o.file, "output", "", "output file")
	fs.StringVar(&o.buffer, "B", "", "buffering")
	fs.StringVar(&o.cmd, "c", "", "command")
	fs.StringVar(&o.cmd, "cmd", "", "command")
	fs.StringVar(&o.pid, "p", "", "pid")
	fs.StringVar(&o.pid, "pid", "", "pid")
	fs.BoolVar(&o.unsafe, "unsafe", false, "unsafe")
	fs.BoolVar(&o.verbose, "v", false, "verbose")
	fs.BoolVar(&o.verbose, "verbose", false, "verbose")
	fs.BoolVar(&o.warnings, "k", false, "warnings")
	fs.BoolVar(&o.warnings, "warnings", false, "warnings")
	fs.BoolVar(&o.kk, "kk", false, "deprecated")
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
		n, perr := strconv.ParseUint(o.pid, 10, 64)
		switch {
		case perr != nil:
			return fmt.Errorf("Failed to parse pid: %q is not a valid number", o.pid)
		case n == 0 || n > 0x400000:
			return fmt.Errorf("Pid out of range: %d", n)
		}
		o.pidN = int(n)
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
	pidfd  int
}

// open sets up the child (-c) and the watch on -p's process. ctx is
// cancelled when the child or the process exits, which stops the run
// cleanly (END probes, maps). The output stream is set up by openOutput,
// once the script has compiled.
func (o *outputFlags) open(ctx context.Context, stdout io.Writer) (context.Context, *session, error) {
	s := &session{stdout: stdout, pidfd: -1}
	ctx, s.cancel = context.WithCancel(ctx)
	if o.cmd != "" {
		c, err := startChild(o.cmd)
		if err != nil {
			s.close()
			return nil, nil, fmt.Errorf("Failed to fork child: %w", err)
		}
		s.child = c
		go func() {
			<-c.done
			s.cancel()
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
					s.cancel()
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
	if s.child != nil {
		s.child.release()
	}
}

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
