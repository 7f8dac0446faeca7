package hostfs

import (
	"io/fs"
	"os"
)

// ReadScriptFile reads a header or an imported file.
func (Files) ReadScriptFile(path string) ([]byte, error) { return os.ReadFile(path) }

// StatScriptFile describes a header, an imported file or directory.
func (Files) StatScriptFile(path string) (fs.FileInfo, error) { return os.Stat(path) }

// ReadScriptDir lists an imported directory, sorted by name.
func (Files) ReadScriptDir(path string) ([]fs.DirEntry, error) { return os.ReadDir(path) }
