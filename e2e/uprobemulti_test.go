package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf/features"
)

// TestUprobeMulti: a uprobe or uretprobe probe of several functions
// attaches through one uprobe_multi link where the kernel has one (this
// host's does), and func and retval are each function's.
func TestUprobeMulti(t *testing.T) {
	if err := features.HaveBPFLinkUprobeMulti(); err != nil {
		t.Skipf("no uprobe_multi links: %v", err)
	}
	bin := buildAdd(t)
	s := startNoWait(t, "-e", fmt.Sprintf(`uprobe:%[1]s:add,uprobe:%[1]s:main { @[func] = count(); }
uretprobe:%[1]s:add,uretprobe:%[1]s:main { @r[func, retval] = count(); }`, bin))
	s.waitLinks(2, 20*time.Second)
	if got := linkTypes(t, s.cmd.Process.Pid); strings.Join(got, " ") != "uprobe_multi uretprobe_multi" {
		t.Errorf("link types %q, want one uprobe_multi and one uretprobe_multi", got)
	}
	if out, err := exec.Command(bin, "3").CombinedOutput(); err != nil {
		t.Fatalf("traced program: %v %q", err, out)
	}
	wantOutput(t, s.stop(syscall.SIGINT), "\n\n@[main]: 1\n@[add]: 3\n@r[main, 0]: 1\n@r[add, 1]: 1\n@r[add, 2]: 1\n@r[add, 3]: 1\n", 0)
}

// linkTypes lists the types of the BPF links process pid holds, sorted.
func linkTypes(t *testing.T, pid int) []string {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/fdinfo", pid)
	fds, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fd := range fds {
		b, err := os.ReadFile(filepath.Join(dir, fd.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "link_type:"); ok {
				out = append(out, strings.TrimSpace(v))
			}
		}
	}
	sort.Strings(out)
	return out
}
