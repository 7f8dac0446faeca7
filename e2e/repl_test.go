package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// replTTY is gotrace's REPL running on a pseudo-terminal.
type replTTY struct {
	t    *testing.T
	cmd  *exec.Cmd
	tty  *os.File
	mu   sync.Mutex
	out  bytes.Buffer // everything the terminal showed
	mark int          // expect looks past this offset
	done chan struct{}
	err  error
}

// startREPL runs `gotrace [args]` (no program: the REPL) on a pty, with
// HOME in a temporary directory (its history file).
func startREPL(t *testing.T, home string, args ...string) *replTTY {
	t.Helper()
	cmd := exec.Command(gotrace(t), args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "TERM=xterm")
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 200})
	if err != nil {
		t.Fatal(err)
	}
	r := &replTTY{t: t, cmd: cmd, tty: tty, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			r.mu.Lock()
			r.out.Write(buf[:n])
			r.mu.Unlock()
			if err != nil {
				break
			}
		}
	}()
	go func() {
		r.err = cmd.Wait()
		close(r.done)
	}()
	t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			_ = cmd.Process.Kill()
			<-r.done
		}
		tty.Close()
	})
	r.expect(`gotrace> `)
	return r
}

// ansi matches the terminal control sequences of the line editor.
var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]|\r`)

// text returns what the terminal showed since the mark, without control
// sequences.
func (r *replTTY) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return ansi.ReplaceAllString(r.out.String()[r.mark:], "")
}

// send types a line and Enter.
func (r *replTTY) send(line string) {
	r.t.Helper()
	r.mu.Lock()
	r.mark = r.out.Len()
	r.mu.Unlock()
	if _, err := r.tty.Write([]byte(line + "\r")); err != nil {
		r.t.Fatal(err)
	}
}

// expect waits until the output since the last send matches re, and
// returns the text.
func (r *replTTY) expect(re string) string {
	r.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if txt := r.text(); rx.MatchString(txt) {
			return txt
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.t.Fatalf("no %q in the REPL's output:\n%s", re, r.text())
	return ""
}

// bpfFDs counts the gotrace process's own BPF objects by kind: its
// /proc/PID/fd links name them (other developers' BPF objects are not
// counted).
func bpfFDs(t *testing.T, pid int) map[string]int {
	t.Helper()
	n := map[string]int{}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if err != nil {
			continue
		}
		switch l {
		case "anon_inode:bpf_link", "anon_inode:bpf-prog", "anon_inode:bpf-map", "anon_inode:[perf_event]":
			n[l]++
		}
	}
	return n
}

// TestREPLSession drives the REPL as a user would: a probe attaches in the
// background and its map grows between two prints; a second probe writes
// the same map; \detach 1 stops the first; \probes and \maps show it; bad
// entries change nothing; \save writes a script that gotrace runs; \watch
// redraws; \detach all leaves no program, link or perf event, and \q
// prints the maps as a script run does.
func TestREPLSession(t *testing.T) {
	home := t.TempDir()
	r := startREPL(t, home)
	pid := os.Getpid()
	r.send(fmt.Sprintf(`tracepoint:syscalls:sys_enter_getppid /pid == %d/ { @[1] = count(); }`, pid))
	r.expect(`\[1\] attached tracepoint:syscalls:sys_enter_getppid`)
	getppidN(3)
	r.send(`print(@)`)
	r.expect(`@\[1\]: 3\n`)
	getppidN(2)
	r.send(`print(@)`)
	r.expect(`@\[1\]: 5\n`)

	r.send(fmt.Sprintf(`tracepoint:syscalls:sys_enter_getpgid /pid == %d/ {`, pid))
	r.expect(`\.\.\. `)
	r.send(`  @[2] = count(); }`)
	r.expect(`\[2\] attached tracepoint:syscalls:sys_enter_getpgid`)
	r.send(`\detach 1`)
	r.expect(`\[1\] detached`)
	getppidN(4)
	for range 2 {
		syscall.Getpgid(0)
	}
	r.send(`print(@)`)
	r.expect(`@\[2\]: 2\n@\[1\]: 5\n`)
	r.send(`\probes`)
	if txt := r.expect(`\[2\] tracepoint:syscalls:sys_enter_getpgid  hits: 2  events: 0\n`); strings.Contains(txt, "[1] tracepoint") {
		t.Errorf("\\probes lists a detached entry:\n%s", txt)
	}
	r.send(`\maps`)
	r.expect(`@ +key \[int64\] +value count_t +entries 2\n`)

	// Bad entries: positioned errors, nothing attached or created.
	before := bpfFDs(t, r.cmd.Process.Pid)
	r.send(`tracepoint:syscalls:sys_enter_getppid { @ = 1; @other = 2; }`)
	r.expect(`stdin:1:\d+-\d+: ERROR: .*\n.*\n +~+`)
	r.send(`tracepoint:syscalls:sys_enter_getppid { @[3] = ; }`)
	r.expect(`stdin:1:\d+.*ERROR`)
	r.send(`tracepoint:syscalls:no_such_tracepoint { @[4] = count(); }`)
	r.expect(`ERROR`)
	r.send(`\probes`)
	r.expect(`hits: 2  events: 0\n`)
	if after := bpfFDs(t, r.cmd.Process.Pid); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("rejected entries changed the process's BPF objects: %v, then %v", before, after)
	}
	r.send(`\maps`)
	if txt := r.expect(`entries 2\n`); strings.Contains(txt, "@other") {
		t.Errorf("a rejected entry created a map:\n%s", txt)
	}

	// \save, then gotrace FILE runs the live probe.
	saved := filepath.Join(t.TempDir(), "saved.bt")
	r.send(`\save ` + saved)
	r.expect(`saved to `)
	s := startNoWait(t, saved)
	s.waitLinks(1, 20*time.Second)
	for range 3 {
		syscall.Getpgid(0)
	}
	got := s.stop(syscall.SIGINT)
	if !strings.Contains(got.stdout, "@[2]: 3\n") {
		t.Errorf("gotrace %s: stdout %q, stderr %q, want @[2]: 3", saved, got.stdout, got.stderr)
	}

	// \watch redraws the map until a key is pressed.
	r.send(`\watch @ 100ms`)
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(r.text(), "Every 100ms: @") < 3 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := strings.Count(r.text(), "Every 100ms: @"); n < 3 {
		t.Errorf("\\watch drew the map %d times, want at least 3:\n%s", n, r.text())
	}
	r.mu.Lock()
	r.mark = r.out.Len()
	r.mu.Unlock()
	r.tty.Write([]byte("x"))
	r.expect(`\\watch @ ended\n`)

	r.send(`\detach all`)
	r.expect(`\[2\] detached`)
	left := bpfFDs(t, r.cmd.Process.Pid)
	if left["anon_inode:bpf-prog"]+left["anon_inode:bpf_link"]+left["anon_inode:[perf_event]"] != 0 {
		t.Errorf("after \\detach all the process still holds %v", left)
	}
	r.send(`\q`)
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		t.Fatal("\\q did not end the REPL")
	}
	if r.err != nil {
		t.Errorf("REPL exit: %v", r.err)
	}
	r.expect(`\n\n@\[1\]: 5\n@\[2\]: 5\n`)
	if b, err := os.ReadFile(filepath.Join(home, ".gotrace_history")); err != nil || !strings.Contains(string(b), `print(@)`) {
		t.Errorf("history: %q, %v", b, err)
	}
}
