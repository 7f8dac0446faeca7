package vmtest

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// File-type bits of a newc cpio mode (the same values as in struct stat).
const (
	modeDir     = 0o040000
	modeRegular = 0o100000
	modeSymlink = 0o120000
	modeCharDev = 0o020000
)

// cpioWriter writes an uncompressed "newc" (SVR4, no CRC) cpio archive,
// the format the kernel unpacks as an initramfs. It creates missing parent
// directories on demand and skips paths it has already written, so the
// first entry for a path wins.
type cpioWriter struct {
	w    io.Writer
	off  int64
	ino  uint32
	seen map[string]bool
}

func newCPIOWriter(w io.Writer) *cpioWriter {
	return &cpioWriter{w: w, ino: 300, seen: map[string]bool{".": true, "": true}}
}

// cleanName turns an absolute or relative path into the archive's
// relative form ("a/b"), without leading "/" or "./".
func cleanName(name string) string {
	name = path.Clean("/" + filepath.ToSlash(name))
	return strings.TrimPrefix(name, "/")
}

func (c *cpioWriter) write(b []byte) error {
	n, err := c.w.Write(b)
	c.off += int64(n)
	if err != nil {
		return fmt.Errorf("write cpio: %w", err)
	}
	return nil
}

func (c *cpioWriter) pad() error {
	if r := c.off % 4; r != 0 {
		return c.write(make([]byte, 4-r))
	}
	return nil
}

// header writes one entry header and its name. name is already clean.
func (c *cpioWriter) header(name string, mode uint32, size int64, rdevMajor, rdevMinor uint32) error {
	if size > 0xffffffff {
		return fmt.Errorf("cpio: %s: file too large (%d bytes)", name, size)
	}
	nlink := uint32(1)
	if mode&0o170000 == modeDir {
		nlink = 2
	}
	c.ino++
	hdr := fmt.Sprintf("070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
		c.ino, mode, 0, 0, nlink, 0, uint32(size), 0, 0, rdevMajor, rdevMinor, len(name)+1, 0)
	if err := c.write([]byte(hdr)); err != nil {
		return err
	}
	if err := c.write(append([]byte(name), 0)); err != nil {
		return err
	}
	return c.pad()
}

// mkdirAll writes directory entries for name and all its missing parents.
func (c *cpioWriter) mkdirAll(name string, perm uint32) error {
	name = cleanName(name)
	if c.seen[name] {
		return nil
	}
	if err := c.mkdirAll(path.Dir(name), 0o755); err != nil {
		return err
	}
	c.seen[name] = true
	return c.header(name, modeDir|perm&0o7777, 0, 0, 0)
}

// claim reserves name for a new non-directory entry after creating its
// parents; it reports false if name was already written.
func (c *cpioWriter) claim(name string) (string, bool, error) {
	name = cleanName(name)
	if c.seen[name] {
		return name, false, nil
	}
	if err := c.mkdirAll(path.Dir(name), 0o755); err != nil {
		return name, false, err
	}
	c.seen[name] = true
	return name, true, nil
}

// Bytes writes a regular file with the given contents.
func (c *cpioWriter) Bytes(name string, perm uint32, data []byte) error {
	name, ok, err := c.claim(name)
	if !ok || err != nil {
		return err
	}
	if err := c.header(name, modeRegular|perm&0o7777, int64(len(data)), 0, 0); err != nil {
		return err
	}
	if err := c.write(data); err != nil {
		return err
	}
	return c.pad()
}

// Symlink writes a symbolic link name -> target.
func (c *cpioWriter) Symlink(name, target string) error {
	name, ok, err := c.claim(name)
	if !ok || err != nil {
		return err
	}
	if err := c.header(name, modeSymlink|0o777, int64(len(target)), 0, 0); err != nil {
		return err
	}
	if err := c.write([]byte(target)); err != nil {
		return err
	}
	return c.pad()
}

// CharDev writes a character device node.
func (c *cpioWriter) CharDev(name string, perm, major, minor uint32) error {
	name, ok, err := c.claim(name)
	if !ok || err != nil {
		return err
	}
	return c.header(name, modeCharDev|perm&0o7777, 0, major, minor)
}

// HostFile copies the host file, directory (recursively) or symlink at
// src into the archive at name.
func (c *cpioWriter) HostFile(name, src string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return fmt.Errorf("initramfs: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(src)
		if err != nil {
			return fmt.Errorf("initramfs: %w", err)
		}
		return c.Symlink(name, target)
	case fi.IsDir():
		if err := c.mkdirAll(name, uint32(fi.Mode().Perm())); err != nil {
			return err
		}
		ents, err := os.ReadDir(src)
		if err != nil {
			return fmt.Errorf("initramfs: %w", err)
		}
		sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
		for _, e := range ents {
			if err := c.HostFile(path.Join(cleanName(name), e.Name()), filepath.Join(src, e.Name())); err != nil {
				return err
			}
		}
		return nil
	case fi.Mode().IsRegular():
		return c.copyRegular(name, src, fi)
	default:
		// Sockets, fifos and devices are not useful in the guest.
		return nil
	}
}

func (c *cpioWriter) copyRegular(name, src string, fi fs.FileInfo) error {
	name, ok, err := c.claim(name)
	if !ok || err != nil {
		return err
	}
	f, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("initramfs: %w", err)
	}
	defer f.Close()
	// Mode bits include setuid/setgid/sticky, which fs.FileMode keeps apart.
	perm := uint32(fi.Mode().Perm())
	if err := c.header(name, modeRegular|perm, fi.Size(), 0, 0); err != nil {
		return err
	}
	n, err := io.Copy(writerFunc(c.write), io.LimitReader(f, fi.Size()))
	if err != nil {
		return fmt.Errorf("initramfs: copy %s: %w", src, err)
	}
	if n != fi.Size() {
		return fmt.Errorf("initramfs: %s changed size while copying", src)
	}
	return c.pad()
}

// Close writes the trailer entry.
func (c *cpioWriter) Close() error {
	c.ino = 0
	return c.header("TRAILER!!!", 0, 0, 0, 0)
}

type writerFunc func([]byte) error

func (f writerFunc) Write(b []byte) (int, error) {
	if err := f(b); err != nil {
		return 0, err
	}
	return len(b), nil
}
