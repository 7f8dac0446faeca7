package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotrace/gotrace/internal/heldprogs"
)

// TestProgramNames: the kernel knows each program by bpftrace's name of its
// probe (provider_function_index): its own name cut to 15 characters, and
// in full as the BTF function of the program, which bpftool prog shows
// and scripts grep for. A program with callbacks (the for loop in END)
// is named alike.
func TestProgramNames(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "gt")
	if err := os.Symlink(gotrace(t), bin); err != nil {
		t.Fatal(err)
	}
	s := startNoWait(t, "-e", `tracepoint:syscalls:sys_enter_getppid { @a[pid] = count(); }
rawtracepoint:sys_enter { @b = count(); }
interval:s:100 { @c = count(); }
uprobe:`+bin+`:main.main { @d = count(); }
END { for ($kv : @a) { print($kv); } }`)
	var names, funcs map[string]bool
	for deadline := time.Now().Add(20 * time.Second); len(names) < 5 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		names, funcs = progNames(t, s.cmd.Process.Pid)
	}
	s.stop(syscall.SIGINT)
	for _, want := range []string{"tracepoint_sysc", "rawtracepoint_s", "interval_s_100_", "uprobe__"} {
		if !names[want] && !hasPrefix(names, want) {
			t.Errorf("no program named %q among gotrace's: %v", want, names)
		}
	}
	sanitized := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, bin)
	for _, want := range []string{"tracepoint_syscalls_sys_enter_getppid_1", "rawtracepoint_sys_enter_2", "interval_s_100_3", "uprobe_" + sanitized + "_main_main_4", "end_5"} {
		if !funcs[want] {
			t.Errorf("no program whose BTF function is %q among gotrace's: %v", want, funcs)
		}
	}
}

// hasPrefix reports whether a name in names starts with prefix.
func hasPrefix(names map[string]bool, prefix string) bool {
	for n := range names {
		if strings.HasPrefix(n, prefix) {
			return true
		}
	}
	return false
}

// progNames returns the kernel names of the BPF programs that process pid
// holds, and the names of their main BTF functions (as bpftool prog shows).
func progNames(t *testing.T, pid int) (names, funcs map[string]bool) {
	t.Helper()
	progs, err := heldprogs.Of(pid)
	if err != nil {
		t.Fatal(err)
	}
	names, funcs = map[string]bool{}, map[string]bool{}
	for _, p := range progs {
		names[p.Name] = true
		if p.Func != "" {
			funcs[p.Func] = true
		}
	}
	return names, funcs
}
