package output

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// cgroupPath renders a cgroup id as bpftrace's cgroup_path() does: for
// every mounted cgroup hierarchy whose name matches filter (a wildcard;
// cgroup v2 is "unified", v1 hierarchies are named by their controllers),
// "name:/path" of the directory whose inode is the id, joined by ";". The
// lookup happens when the value is printed.
func cgroupPath(id uint64, filter string) string {
	var out []string
	for _, root := range cgroupRoots() {
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
	return strings.Join(out, ";")
}

type cgroupRoot struct{ name, dir string }

// cgroupRoots lists the mounted cgroup hierarchies from /proc/self/mountinfo.
func cgroupRoots() []cgroupRoot {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil
	}
	var roots []cgroupRoot
	for _, line := range strings.Split(string(data), "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			continue
		}
		switch g[0] {
		case "cgroup2":
			roots = append(roots, cgroupRoot{"unified", f[4]})
		case "cgroup":
			var names []string
			for _, o := range strings.Split(g[2], ",") {
				if o == "rw" || o == "ro" || strings.Contains(o, "=") && !strings.HasPrefix(o, "name=") {
					continue
				}
				names = append(names, o)
			}
			roots = append(roots, cgroupRoot{strings.Join(names, ","), f[4]})
		}
	}
	return roots
}
