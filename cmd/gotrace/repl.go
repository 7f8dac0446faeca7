package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chzyer/readline"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/runtime"
)

const replHelp = `gotrace REPL: a live session. Enter a probe block to attach it in the background
(it gets a number), or a statement or expression to run once against the session.
  tracepoint:syscalls:sys_enter_openat { @[comm] = count(); }   attaches as [N]
  print(@)   @x = 6 * 7   clear(@)   nsecs / 1000                runs once
Commands:
  \probes               the attached entries: number, attach points, events seen
  \detach N|all         detach entry N (its END probes run), or every entry
  \maps                 the session's maps: name, key and value types, entries
  \print @m [top [div]] print a map now
  \watch @m [interval]  redraw a map every interval (default 1s) until a key is pressed
  \asm N|PROGRAM        the BPF instructions of entry N, or of a program
  \load FILE            add the probes and definitions of a script file
  \save FILE            write the live probes and the definitions as a script
  \help                 this text
  \q                    quit as a script run ends (END probes, maps printed)
A program continues on the next line while its braces are open. Tab completes
probe types, attach points, builtins, maps, $variables and commands. Ctrl-C
clears the line; Ctrl-C twice on an empty line asks before quitting.
`

// The REPL's line editor is github.com/chzyer/readline, not
// github.com/peterh/liner: output of probes running in the background
// must appear above the prompt while a line is being typed, and liner
// has no way to print while Prompt runs (it owns the terminal and offers
// neither a writer that redraws the line nor a refresh). readline's
// Stdout() clears the edited line, writes and redraws it. (Its maintained
// fork, github.com/ergochat/readline, is not served by this module proxy.)

// repl runs the interactive session: entries attach in the background,
// their output is printed above the prompt, and \q (or Ctrl-D) ends the
// session as a script run ends.
func repl(ctx context.Context, cfg *config, stdout, stderr io.Writer) int {
	r := &replSession{cfg: cfg, rawOut: stdout, rawErr: stderr, work: make(chan func(), 64)}
	rl, err := readline.NewEx(&readline.Config{
		Prompt:                 replPrompt,
		AutoComplete:           &completer{r: r},
		InterruptPrompt:        "^C",
		EOFPrompt:              "",
		DisableAutoSaveHistory: true,
		HistoryLimit:           historyLimit,
		FuncFilterInputRune:    r.filterRune,
	})
	if err != nil {
		fmt.Fprintf(stderr, "gotrace: %v\n", err)
		return 1
	}
	r.rl = rl
	r.out = &switchWriter{w: rl.Stdout()}
	r.errOut = &switchWriter{w: rl.Stderr()}
	// SIGINT outside the line editor (which reads Ctrl-C as a key) must
	// not kill the session.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT)
	defer signal.Stop(sigs)
	go func() {
		for range sigs {
		}
	}()

	srv, msrc, err := r.startMetrics()
	if err != nil {
		closeEditor(rl)
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	sess, err := gotrace.Open(ctx, compileOptions(cfg), gotrace.RunOptions{Stdout: r.out, Stderr: r.errOut, Quiet: true, Format: cfg.out.fmt, ProbeStats: true})
	if err != nil {
		rl.Close()
		if srv != nil {
			srv.Close()
		}
		fmt.Fprintf(stderr, "gotrace: %v\n", err)
		return 1
	}
	r.sess = sess
	if srv != nil {
		msrc.Set(sess.Runtime())
	}
	hist := historyPath()
	for _, l := range loadHistory(hist) {
		_ = rl.SaveHistory(l)
	}
	go r.worker()
	fmt.Fprint(r.errOut, replHelp)
	if srv != nil {
		fmt.Fprintf(r.errOut, "Metrics of the attached entries' maps at http://%s/metrics\n", srv.Addr())
	}
	code := r.loop()
	r.wait()
	if srv != nil {
		srv.Close()
	}
	if hist != "" {
		if err := saveHistory(hist, r.history); err != nil {
			fmt.Fprintf(r.errOut, "gotrace: history not saved: %v\n", err)
		}
	}
	closeEditor(rl)
	// The session's last output (END probes, the maps) goes to the
	// terminal without the line editor.
	r.out.set(stdout)
	r.errOut.set(stderr)
	if err := sess.Close(); err != nil {
		fmt.Fprintf(stderr, "gotrace: %v\n", err)
		return 1
	}
	return code
}

// closeEditor closes the line editor, giving up after a moment: readline's
// Close can wait forever for its reader of stdin (github.com/chzyer/readline
// v1.5.1), and the terminal is out of raw mode between lines anyway.
func closeEditor(rl *readline.Instance) {
	done := make(chan struct{})
	go func() {
		rl.Close()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(200 * time.Millisecond):
	}
}

const (
	replPrompt = "gotrace> "
	contPrompt = "     ... "
)

// replSession is the REPL's state.
type replSession struct {
	cfg            *config
	sess           *gotrace.Session
	rl             *readline.Instance
	out, errOut    *switchWriter
	rawOut, rawErr io.Writer

	work    chan func() // entries compiled and added in order, in the background
	pending sync.WaitGroup

	mu      sync.Mutex
	entries []*replEntry // live entries, in order
	defs    []*replEntry // every entry added, for \save's definitions
	next    int          // the number of the last entry attached
	history []string

	watching atomic.Bool // \watch: any key ends it
	input    string      // the entry being typed so far (for completion)
}

// replEntry is an entry added to the session.
type replEntry struct {
	n      int             // the entry's number (one-shot runs have none)
	h      *gotrace.Handle // nil for definitions only
	script *gotrace.Script
}

// worker adds the queued entries one after another.
func (r *replSession) worker() {
	for f := range r.work {
		f()
		r.pending.Done()
	}
}

// enqueue runs f on the worker.
func (r *replSession) enqueue(f func()) {
	r.pending.Add(1)
	r.work <- f
}

// wait waits for every queued entry.
func (r *replSession) wait() { r.pending.Wait() }

// loop reads entries until \q or Ctrl-D and returns the exit status.
func (r *replSession) loop() int {
	var pending strings.Builder
	interrupted := false
	for {
		if pending.Len() > 0 {
			r.rl.SetPrompt(contPrompt)
		} else {
			r.rl.SetPrompt(replPrompt)
		}
		r.mu.Lock()
		r.input = pending.String()
		r.mu.Unlock()
		l, err := r.rl.Readline()
		switch {
		case errors.Is(err, readline.ErrInterrupt):
			if pending.Len() > 0 || l != "" {
				pending.Reset()
				interrupted = false
				continue
			}
			if interrupted {
				if r.confirmQuit() {
					return 0
				}
				interrupted = false
				continue
			}
			interrupted = true
			fmt.Fprintln(r.errOut, `(Ctrl-C again to quit, or \q)`)
			continue
		case errors.Is(err, io.EOF):
			if pending.Len() > 0 {
				pending.Reset()
				continue
			}
			return 0
		case err != nil:
			fmt.Fprintf(r.errOut, "gotrace: %v\n", err)
			return 1
		}
		interrupted = false
		pending.WriteString(l + "\n")
		if !balanced(pending.String()) {
			continue
		}
		input := strings.TrimSpace(pending.String())
		pending.Reset()
		if input == "" {
			continue
		}
		r.remember(input)
		if quit := r.handle(input); quit {
			return 0
		}
	}
}

// confirmQuit asks before quitting on a second Ctrl-C.
func (r *replSession) confirmQuit() bool {
	r.rl.SetPrompt("Quit the session (END probes run, maps are printed)? [y/N] ")
	ans, err := r.rl.Readline()
	if err != nil {
		return errors.Is(err, io.EOF)
	}
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(ans)), "y")
}

// remember adds an entry to the history, one line.
func (r *replSession) remember(input string) {
	line := strings.ReplaceAll(input, "\n", " ")
	if strings.Contains(input, "//") && strings.Contains(input, "\n") {
		return // a comment would swallow the rest of the joined line
	}
	_ = r.rl.SaveHistory(line)
	r.history = append(r.history, line)
}

// filterRune ends a \watch on any key.
func (r *replSession) filterRune(c rune) (rune, bool) {
	if r.watching.Load() {
		return readline.CharEnter, true
	}
	return c, true
}

// handle runs one complete entry; it reports whether to quit.
func (r *replSession) handle(input string) bool {
	if strings.HasPrefix(input, `\`) {
		return r.command(input)
	}
	switch input {
	case "quit", "exit":
		return true
	case "help":
		fmt.Fprint(r.errOut, replHelp)
		return false
	}
	if isProgram(input) {
		r.enqueue(func() { r.add("stdin", input) })
		return false
	}
	done := make(chan struct{})
	r.enqueue(func() {
		defer close(done)
		r.once(replProgram(input))
	})
	<-done
	return false
}

// add compiles and adds one entry, and says what it attached.
func (r *replSession) add(name, src string) {
	script, err := r.sess.Compile(name, src)
	if err != nil {
		fmt.Fprint(r.errOut, gotrace.FormatError(err, src))
		return
	}
	if w := script.Warnings(); w != "" {
		fmt.Fprint(r.errOut, w)
	}
	h, err := r.sess.AddScript(script)
	if err != nil {
		fmt.Fprint(r.errOut, script.FormatError(err))
		return
	}
	e := &replEntry{h: h, script: script}
	r.mu.Lock()
	r.defs = append(r.defs, e)
	if h != nil {
		r.next++
		e.n = r.next
		r.entries = append(r.entries, e)
	}
	r.mu.Unlock()
	if h == nil {
		fmt.Fprintln(r.errOut, "definitions added")
		return
	}
	fmt.Fprintf(r.errOut, "[%d] attached %s\n", e.n, strings.Join(h.Probes(), ", "))
	go func() {
		<-h.Done()
		if exited, code := h.Exited(); exited {
			fmt.Fprintf(r.errOut, "[%d] called exit(%d): detached\n", e.n, code)
			r.enqueue(func() { r.detach(e) })
		}
	}()
}

// once runs a program of BEGIN probes (a statement or expression) against
// the session and waits for its output.
func (r *replSession) once(src string) {
	script, err := r.sess.Compile("stdin", src)
	if err != nil {
		fmt.Fprint(r.errOut, gotrace.FormatError(err, src))
		return
	}
	h, err := r.sess.AddScript(script)
	if err != nil {
		fmt.Fprint(r.errOut, script.FormatError(err))
		return
	}
	if h == nil {
		return
	}
	<-h.Done()
	if err := h.Detach(); err != nil {
		fmt.Fprintf(r.errOut, "gotrace: %v\n", err)
	}
}

// detach detaches one entry.
func (r *replSession) detach(e *replEntry) {
	r.mu.Lock()
	live := false
	for i, x := range r.entries {
		if x == e {
			r.entries = append(r.entries[:i], r.entries[i+1:]...)
			live = true
			break
		}
	}
	r.mu.Unlock()
	if !live {
		return
	}
	if err := e.h.Detach(); err != nil && !errors.Is(err, runtime.ErrClosed) {
		fmt.Fprintf(r.errOut, "[%d] detach: %v\n", e.n, err)
		return
	}
	fmt.Fprintf(r.errOut, "[%d] detached\n", e.n)
}

// isProgram reports whether input is a script (probes or definitions)
// rather than a statement or expression.
func isProgram(input string) bool {
	f, err := syntax.Parse("stdin", input)
	return err == nil && (len(f.Probes)+len(f.Macros)+len(f.Preamble)+len(f.Imports)+len(f.MapDecls) > 0 || f.Config != nil)
}

// replProgram turns a statement or expression into a program run once: an
// expression is printed from BEGIN; anything else runs as statements in
// BEGIN.
func replProgram(input string) string {
	if e, err := syntax.ParseExpr(input); err == nil {
		if _, isCall := e.(*ast.Call); !isCall {
			return "BEGIN { print(" + input + "); exit(); }"
		}
	}
	return "BEGIN { " + strings.TrimSuffix(input, ";") + "; exit(); }"
}

// balanced reports whether every brace and parenthesis of src outside
// strings and comments is closed.
func balanced(src string) bool {
	depth := 0
	inStr := false
	for i := 0; i < len(src); i++ {
		ch := src[i]
		switch {
		case inStr:
			if ch == '\\' {
				i++
			} else if ch == '"' {
				inStr = false
			}
		case ch == '"':
			inStr = true
		case ch == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case ch == '{' || ch == '(':
			depth++
		case ch == '}' || ch == ')':
			depth--
		}
	}
	return depth <= 0 && !inStr
}

// switchWriter is a writer whose destination can change: the session's
// output goes through the line editor while it runs, and straight to the
// terminal at the end.
type switchWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *switchWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	s.w = w
	s.mu.Unlock()
}
