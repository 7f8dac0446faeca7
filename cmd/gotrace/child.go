package main

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/internal/earlysig"
)

// childEnv marks the re-executed gotrace process that stands in for the -c
// command until the probes are attached. Its value is a random token of the
// run; the variable alone does nothing (see childMain).
const childEnv = "GOTRACE_CHILD_EXEC"

// gateFD is the stand-in's end of the release pipe.
const gateFD = 3

// childMain is the first thing main runs. In the stand-in process started
// by startChild it waits until the parent releases it (a byte, or the pipe
// closing, on fd 3), then replaces itself with the command, keeping its pid
// (the cpid the script was compiled with). Otherwise it returns.
//
// The stand-in is recognised by a handshake, not by the environment: fd 3
// must be an anonymous pipe (made by its parent, not a FIFO anyone could
// open) that already holds the token of childEnv followed by the command's
// path, which startChild writes before starting the process. A stray
// childEnv, or one with a file, a FIFO or an empty pipe on fd 3, is
// removed and ignored.
func childMain() {
	token, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	os.Unsetenv(childEnv)
	path, released, ok := readHandshake(gateFD, token)
	if !ok {
		return
	}
	// The stand-in keeps the default effect of signals.
	earlysig.Reset()
	gate := os.NewFile(gateFD, "gate")
	if !released {
		var b [1]byte
		n, _ := gate.Read(b[:])
		released = n > 0
	}
	gate.Close()
	if !released {
		// gotrace gave up before attaching: do not run the command.
		os.Exit(1)
	}
	err := syscall.Exec(path, os.Args, os.Environ())
	fmt.Fprintf(os.Stderr, "ERROR: child: failed to execve %s: %v\n", path, err)
	os.Exit(127)
}

// handshake is what startChild writes into the release pipe before the
// stand-in starts: the run's token and the command's path.
func handshake(token, path string) []byte { return []byte(token + "\x00" + path + "\x00") }

// readHandshake reads the handshake from fd without waiting: fd must be an
// anonymous pipe whose buffered data starts with handshake(token, path).
// It returns the path and whether the release byte followed already, and
// leaves fd blocking for the release byte.
func readHandshake(fd int, token string) (path string, released, ok bool) {
	var st unix.Stat_t
	var sfs unix.Statfs_t
	if token == "" || unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO ||
		unix.Fstatfs(fd, &sfs) != nil || sfs.Type != unix.PIPEFS_MAGIC { // a named FIFO lives on a file system
		return "", false, false
	}
	if unix.SetNonblock(fd, true) != nil {
		return "", false, false
	}
	defer unix.SetNonblock(fd, false)
	// Read the two NUL-terminated fields, at most a path's length.
	var msg []byte
	var b [512]byte
	for bytes.Count(msg, []byte{0}) < 2 && len(msg) < len(token)+unix.PathMax+2 {
		n, err := unix.Read(fd, b[:])
		if n <= 0 || err != nil {
			return "", false, false // nothing buffered: not our pipe
		}
		msg = append(msg, b[:n]...)
	}
	tok, rest, ok := bytes.Cut(msg, []byte{0})
	if !ok || subtle.ConstantTimeCompare(tok, []byte(token)) != 1 {
		return "", false, false
	}
	p, rest, ok := bytes.Cut(rest, []byte{0})
	if !ok || len(p) == 0 || len(rest) > 1 {
		return "", false, false
	}
	return string(p), len(rest) == 1, true
}

// newToken returns a random token for one run's handshake.
func newToken() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// child is the -c command: started before the script is compiled (so that
// cpid is known) but held back until the probes are attached, as bpftrace
// does.
type child struct {
	cmd  *exec.Cmd
	gate *os.File // write end of the release pipe
	done chan struct{}
}

// splitCommand splits -c's argument on single spaces, as bpftrace does
// (no quoting; consecutive spaces give empty arguments).
func splitCommand(s string) []string { return strings.Split(s, " ") }

// startChild starts the stand-in for command, stopped before exec.
func startChild(command string) (*child, error) {
	args := splitCommand(command)
	if len(args) == 0 || args[0] == "" {
		return nil, errors.New("Empty command")
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		return nil, fmt.Errorf("Path '%s' does not exist or is not executable", args[0])
	}
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("find the gotrace executable: %w", err)
	}
	token, err := newToken()
	if err != nil {
		return nil, fmt.Errorf("make the child's token: %w", err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create pipe: %w", err)
	}
	defer r.Close()
	if _, err := w.Write(handshake(token, path)); err != nil {
		w.Close()
		return nil, fmt.Errorf("write to the child's pipe: %w", err)
	}
	cmd := &exec.Cmd{
		Path:       self,
		Args:       args,
		Env:        append(os.Environ(), childEnv+"="+token),
		Stdin:      os.Stdin,
		Stdout:     os.Stdout,
		Stderr:     os.Stderr,
		ExtraFiles: []*os.File{r},
		// Like bpftrace's child: receive SIGTERM if gotrace dies.
		SysProcAttr: &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM},
	}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("Unable to fork child process: %w", err)
	}
	c := &child{cmd: cmd, gate: w, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

// pid is the child's pid, the value of cpid.
func (c *child) pid() int { return c.cmd.Process.Pid }

// release lets the child exec the command.
func (c *child) release() {
	if c.gate != nil {
		_, _ = c.gate.Write([]byte{1})
		c.gate.Close()
		c.gate = nil
	}
}

// finish kills the child if it is still running (never released, or still
// running when the script stopped), as bpftrace does at exit, and reaps it.
func (c *child) finish() {
	if c.gate != nil {
		c.gate.Close() // an unreleased child exits without running the command
		c.gate = nil
	}
	select {
	case <-c.done:
		return
	default:
	}
	_ = c.cmd.Process.Kill()
	<-c.done
}
