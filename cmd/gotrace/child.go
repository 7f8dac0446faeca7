package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// childEnv marks the re-executed gotrace process that stands in for the -c
// command until the probes are attached; its value is the command's path.
const childEnv = "GOTRACE_CHILD_EXEC"

// childMain is the first thing main runs. In the stand-in process started
// by startChild it waits until the parent releases it (a byte, or the pipe
// closing, on fd 3), then replaces itself with the command, keeping its pid
// (the cpid the script was compiled with). Otherwise it returns.
func childMain() {
	path, ok := os.LookupEnv(childEnv)
	if !ok {
		return
	}
	os.Unsetenv(childEnv)
	gate := os.NewFile(3, "gate")
	var b [1]byte
	n, _ := gate.Read(b[:])
	gate.Close()
	if n == 0 {
		// gotrace gave up before attaching: do not run the command.
		os.Exit(1)
	}
	err := syscall.Exec(path, os.Args, os.Environ())
	fmt.Fprintf(os.Stderr, "ERROR: child: failed to execve %s: %v\n", path, err)
	os.Exit(127)
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
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create pipe: %w", err)
	}
	defer r.Close()
	cmd := &exec.Cmd{
		Path:       self,
		Args:       args,
		Env:        append(os.Environ(), childEnv+"="+path),
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
