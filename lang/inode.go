package lang

import (
	"fmt"
	"syscall"
)

// inodeOf returns the inode number of a file (a cgroup v2 directory's is
// its cgroup id).
func inodeOf(path string) (uint64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	return st.Ino, nil
}
