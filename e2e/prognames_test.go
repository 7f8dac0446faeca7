package e2e

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gotrace/gotrace/internal/heldprogs"
)

// TestProgramNames: the kernel knows each program by bpftrace's name of its
// probe (provider_function_index): its own name cut to 15 characters, and
// in full as the BTF function of the program, which bpftool prog shows
// and scripts grep for. The names and indexes are bpftrace 0.27.1's for
// the same script (read with bpftool prog): each attach point of a probe
// is a probe of its own, a raw tracepoint names its module, a uprobe
// wildcard (one uprobe_multi link in bpftrace) is named after the
// wildcard. A program with callbacks (the for loop in END) is named alike.
func TestProgramNames(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "gt")
	if err := os.Symlink(gotrace(t), bin); err != nil {
		t.Fatal(err)
	}
	s := startNoWait(t, "-e", `tracepoint:syscalls:sys_enter_getppid { @a[pid] = count(); }
rawtracepoint:sched_switch,rawtracepoint:sched_wakeup { @b = count(); }
interval:s:100 { @c = count(); }
uprobe:`+bin+`:main.main { @d = count(); }
uprobe:`+bin+`:main.mai* { @e = count(); }
END { for ($kv : @a) { print($kv); } }`)
	var names, funcs map[string]bool
	for deadline := time.Now().Add(20 * time.Second); len(funcs) < 7 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		names, funcs = progNames(t, s.cmd.Process.Pid)
	}
	s.stop(syscall.SIGINT)
	for _, want := range []string{"tracepoint_sysc", "rawtracepoint_v", "interval_s_100_", "uprobe__"} {
		if !hasPrefix(names, want) {
			t.Errorf("no program named %q among gotrace's: %v", want, names)
		}
	}
	sanitized := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, bin)
	want := map[string]bool{
		"tracepoint_syscalls_sys_enter_getppid_1": true,
		"rawtracepoint_vmlinux_sched_switch_2":    true,
		"rawtracepoint_vmlinux_sched_wakeup_3":    true,
		"interval_s_100_4":                        true,
		"uprobe_" + sanitized + "_main_main_5":    true,
		"uprobe_" + sanitized + "_main_mai__6":    true,
		"end_7":                                   true,
	}
	if !maps.Equal(funcs, want) {
		t.Errorf("the BTF functions of gotrace's programs are\n%v\nwant\n%v", slices.Sorted(maps.Keys(funcs)), slices.Sorted(maps.Keys(want)))
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
