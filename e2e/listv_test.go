package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestListKernelFunctions: -l and -lv of kernel functions as bpftrace
// 0.27.1 prints them, over the functions --traceable-functions lists: a
// kprobe is kprobe:NAME, or kprobe:vmlinux:NAME when the pattern names a
// module; -lv gives a kprobe's parameters as argN and a kretprobe only
// its retval; a trampoline is always fentry:vmlinux:NAME with the
// parameters' names.
func TestListKernelFunctions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "traceable")
	if err := os.WriteFile(file, []byte("vfs_read\ntcp_v4_connect\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	vfsRead := []string{"struct file *", "char *", "size_t", "loff_t *"}
	params := func(names ...string) string {
		out := ""
		for i, ty := range vfsRead {
			out += "    " + ty + " " + names[i] + "\n"
		}
		return out
	}
	for _, c := range []struct{ pattern, want string }{
		{"kprobe:vfs_*", "kprobe:vfs_read\n" + params("arg0", "arg1", "arg2", "arg3")},
		{"kprobe:*:vfs_read", "kprobe:vmlinux:vfs_read\n" + params("arg0", "arg1", "arg2", "arg3")},
		{"kretprobe:vmlinux:vfs_read", "kretprobe:vmlinux:vfs_read\n    ssize_t retval\n"},
		{"kretprobe:vfs_read", "kretprobe:vfs_read\n    ssize_t retval\n"},
		{"fentry:vfs_read", "fentry:vmlinux:vfs_read\n" + params("file", "buf", "count", "pos")},
	} {
		wantOutput(t, run(t, "--traceable-functions", file, "-lv", c.pattern), c.want, 0)
	}
	wantOutput(t, run(t, "--traceable-functions", file, "-l", "kprobe:*"), "kprobe:tcp_v4_connect\nkprobe:vfs_read\n", 0)
	wantOutput(t, run(t, "--traceable-functions", file, "-l", "kprobe:*:*"), "kprobe:vmlinux:tcp_v4_connect\nkprobe:vmlinux:vfs_read\n", 0)
}
