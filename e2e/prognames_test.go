package e2e

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
)

// TestProgramNames: the kernel knows each program by bpftrace's name of its
// probe (provider_function_index, cut to the kernel's 15 characters), which
// bpftool prog shows and scripts grep for.
func TestProgramNames(t *testing.T) {
	s := startNoWait(t, "-e", `tracepoint:syscalls:sys_enter_getppid { @a = count(); } rawtracepoint:sys_enter { @b = count(); }`)
	s.waitLinks(2, 20*time.Second)
	names := progNames(t, s.cmd.Process.Pid)
	s.stop(syscall.SIGINT)
	for _, want := range []string{"tracepoint_sysc", "rawtracepoint_s"} {
		if !names[want] {
			t.Errorf("no program named %q among gotrace's: %v", want, names)
		}
	}
}

// progNames returns the kernel names of the BPF programs that process pid
// holds.
func progNames(t *testing.T, pid int) map[string]bool {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fdinfo", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, fd := range fds {
		b, err := os.ReadFile(dir + "/" + fd.Name())
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			v, ok := strings.CutPrefix(line, "prog_id:")
			if !ok {
				continue
			}
			id, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				continue
			}
			p, err := ebpf.NewProgramFromID(ebpf.ProgramID(id))
			if err != nil {
				continue
			}
			if info, err := p.Info(); err == nil {
				names[info.Name] = true
			}
			p.Close()
		}
	}
	return names
}
