package tracefs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Well-known tracefs locations.
const (
	// DefaultDir is where tracefs is mounted on current systems.
	DefaultDir = "/sys/kernel/tracing"
	// DebugfsDir is where tracefs appears on systems that only mount debugfs.
	DebugfsDir = "/sys/kernel/debug/tracing"
)

// Mount returns the directory where tracefs is mounted. When it is mounted
// neither at DefaultDir nor at DebugfsDir, Mount mounts it at DefaultDir
// (the equivalent of "mount -t tracefs nodev /sys/kernel/tracing"), which
// needs CAP_SYS_ADMIN. It returns an error explaining how to mount tracefs
// by hand when that fails.
func Mount() (string, error) {
	if isTracefs(DefaultDir) {
		return DefaultDir, nil
	}
	if isTracefs(DebugfsDir) {
		return DebugfsDir, nil
	}
	mountErr := unix.Mount("nodev", DefaultDir, "tracefs", 0, "")
	if mountErr == nil && isTracefs(DefaultDir) {
		return DefaultDir, nil
	}
	// An older kernel may only offer tracefs through debugfs: mounting
	// debugfs makes the tracing directory appear (automounted) inside it.
	if !isMounted("/sys/kernel/debug") {
		if err := unix.Mount("debugfs", "/sys/kernel/debug", "debugfs", 0, ""); err == nil && isTracefs(DebugfsDir) {
			return DebugfsDir, nil
		}
	}
	if mountErr == nil {
		mountErr = errors.New("mount succeeded but no tracefs found")
	}
	return "", fmt.Errorf("tracefs is not mounted at %s or %s and mounting it failed (%w); "+
		"mount it with: mount -t tracefs nodev %s", DefaultDir, DebugfsDir, mountErr, DefaultDir)
}

// isTracefs reports whether dir is the root of a tracefs mount (or the
// tracing directory of a debugfs mount, which old kernels use).
func isTracefs(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	switch st.Type {
	case unix.TRACEFS_MAGIC:
		return true
	case unix.DEBUGFS_MAGIC:
		_, err := os.Stat(filepath.Join(dir, "events"))
		return err == nil
	}
	return false
}

// isMounted reports whether dir is a mount point other than its parent's
// file system.
func isMounted(dir string) bool {
	var st, parent unix.Stat_t
	if unix.Stat(dir, &st) != nil || unix.Stat(filepath.Dir(dir), &parent) != nil {
		return false
	}
	return st.Dev != parent.Dev
}
