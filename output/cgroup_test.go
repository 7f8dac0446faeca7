package output

import (
	"reflect"
	"testing"
)

// TestCgroupRoots: the hierarchies of mountinfo in bpftrace 0.27's order
// and names (unified, then v1 by mount directory), each once however many
// times it is mounted.
func TestCgroupRoots(t *testing.T) {
	mountinfo := `25 30 0:22 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
26 25 0:23 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
27 25 0:24 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
28 25 0:25 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio
29 25 0:26 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
40 39 0:23 / /opt/chroot/sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
41 39 0:26 / /opt/chroot/sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
42 39 0:26 /sub /opt/sub rw,relatime - cgroup2 cgroup2 rw
`
	want := []cgroupRoot{
		{"unified", "/sys/fs/cgroup/unified"},
		{"unified", "/opt/sub"},
		{"blkio", "/sys/fs/cgroup/blkio"},
		{"cpu", "/sys/fs/cgroup/cpu"},
		{"systemd", "/sys/fs/cgroup/systemd"},
	}
	if got := cgroupRoots(mountinfo); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}
