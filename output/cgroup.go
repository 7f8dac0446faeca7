package output

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// cgroupPath renders a cgroup id as bpftrace 0.27's cgroup_path() does:
// for every mounted cgroup hierarchy whose name matches filter (a
// wildcard; cgroup v2 is "unified", a v1 hierarchy is named by its mount
// point's directory), "name:/path" of the directory whose inode is the
// id, joined by ","; cgroup v2 first, then v1 sorted by name. The lookup
// happens when the value is printed.
func cgroupPath(id uint64, filter string) string {
	data, _ := os.ReadFile("/proc/self/mountinfo")
	var out []string
	for _, root := range cgroupRoots(string(data)) {
		if ok, _ := path.Match(filter, root.name); !ok && filter != "" {
			continue
		}
		found := ""
		_ = filepath.WalkDir(root.dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() || found != "" {
				return fs.SkipDir
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Ino&0xffffffff == id&0xffffffff {
				rel, _ := filepath.Rel(root.dir, p)
				found = "/" + strings.TrimPrefix(rel, ".")
				return fs.SkipAll
			}
			return nil
		})
		if found != "" {
			out = append(out, root.name+":"+path.Clean(found))
		}
	}
	return strings.Join(out, ",")
}

type cgroupRoot struct{ name, dir string }

// cgroupRoots lists the cgroup hierarchies of mountinfo (the text of
// /proc/self/mountinfo) in bpftrace's order: v2 first, then v1 by name. A
// hierarchy mounted more than once (a bind mount, a chroot's copy of
// /sys/fs/cgroup) is listed once, at its first mount, where bpftrace
// would print it once per mount.
func cgroupRoots(mountinfo string) []cgroupRoot {
	var v2, v1 []cgroupRoot
	seen := map[[2]string]bool{}
	for line := range strings.Lines(mountinfo) {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 1 || g[0] != "cgroup" && g[0] != "cgroup2" {
			continue
		}
		hierarchy := [2]string{f[2], f[3]} // the device and the root within it
		if seen[hierarchy] {
			continue
		}
		seen[hierarchy] = true
		if g[0] == "cgroup2" {
			v2 = append(v2, cgroupRoot{"unified", f[4]})
		} else {
			v1 = append(v1, cgroupRoot{path.Base(f[4]), f[4]})
		}
	}
	slices.SortStableFunc(v1, func(a, b cgroupRoot) int { return strings.Compare(a.name, b.name) })
	return append(v2, v1...)
}
