package hostfs

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// MaxScriptFile is the largest header or imported file read, as large as
// the largest program: /dev/zero or a runaway file stops with an error
// rather than filling memory.
const MaxScriptFile = 16 << 20

// ReadScriptFile reads a header or an imported file: a regular file of at
// most MaxScriptFile bytes. The open does not wait (a FIFO without a
// writer would block it); a FIFO or a device is refused.
func (Files) ReadScriptFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxScriptFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxScriptFile {
		return nil, fmt.Errorf("%s: larger than %d MB", path, MaxScriptFile>>20)
	}
	return data, nil
}

// StatScriptFile describes a header, an imported file or directory.
func (Files) StatScriptFile(path string) (fs.FileInfo, error) { return os.Stat(path) }

// ReadScriptDir lists an imported directory, sorted by name.
func (Files) ReadScriptDir(path string) ([]fs.DirEntry, error) { return os.ReadDir(path) }
