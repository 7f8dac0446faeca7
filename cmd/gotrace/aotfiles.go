package main

import (
	"io/fs"
	"path/filepath"
	"time"

	"github.com/gotrace/gotrace"
)

// scriptFiles is what a compile read of the files a script names: the
// user headers of #include and --include, the stats of the system include
// directories, and import's files and directories, by the path the
// checker asked for. It is recorded when --aot compiles the script and
// served to the AOT binary's compile, which so reads the same files, and
// none of the host's, whatever the host has by then.
//
// The checker reads these through its environment's ScriptFiles methods
// (preamble.ScriptFiles: ReadScriptFile, StatScriptFile, ReadScriptDir), which
// recordingEnv and replayEnv implement over a KernelEnv; a checker that
// reads them directly reads the host's files in both.
type scriptFiles struct {
	Reads map[string][]byte
	Stats map[string]fileStat
	Dirs  map[string][]dirEntry
}

func newScriptFiles() *scriptFiles {
	return &scriptFiles{Reads: map[string][]byte{}, Stats: map[string]fileStat{}, Dirs: map[string][]dirEntry{}}
}

// fileStat is a recorded fs.FileInfo.
type fileStat struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime int64 // Unix nanoseconds
}

func (s fileStat) Name() string       { return s.name }
func (s fileStat) Size() int64        { return s.size }
func (s fileStat) Mode() fs.FileMode  { return s.mode }
func (s fileStat) ModTime() time.Time { return time.Unix(0, s.modTime) }
func (s fileStat) IsDir() bool        { return s.mode.IsDir() }
func (s fileStat) Sys() any           { return nil }

// dirEntry is a recorded fs.DirEntry: its name and type bits.
type dirEntry struct {
	name string
	typ  fs.FileMode
	info fileStat // for Info: the recorded stat, or one with the type only
}

func (d dirEntry) Name() string               { return d.name }
func (d dirEntry) IsDir() bool                { return d.typ.IsDir() }
func (d dirEntry) Type() fs.FileMode          { return d.typ }
func (d dirEntry) Info() (fs.FileInfo, error) { return d.info, nil }

// recordingEnv is the running kernel's environment, reading the script's
// files as it does (from the host) and recording what it read.
type recordingEnv struct {
	*gotrace.KernelEnv
	files *scriptFiles
}

func newRecordingEnv() recordingEnv {
	return recordingEnv{KernelEnv: gotrace.NewKernelEnv(), files: newScriptFiles()}
}

// ReadScriptFile reads a file and records its contents.
func (e recordingEnv) ReadScriptFile(path string) ([]byte, error) {
	data, err := e.KernelEnv.ReadScriptFile(path)
	if err == nil {
		e.files.Reads[path] = data
	}
	return data, err
}

// StatScriptFile stats a file and records its description.
func (e recordingEnv) StatScriptFile(path string) (fs.FileInfo, error) {
	fi, err := e.KernelEnv.StatScriptFile(path)
	if err == nil {
		e.files.Stats[path] = fileStat{name: fi.Name(), size: fi.Size(), mode: fi.Mode(), modTime: fi.ModTime().UnixNano()}
	}
	return fi, err
}

// ReadScriptDir lists a directory and records its entries.
func (e recordingEnv) ReadScriptDir(path string) ([]fs.DirEntry, error) {
	entries, err := e.KernelEnv.ReadScriptDir(path)
	if err == nil {
		rec := make([]dirEntry, 0, len(entries))
		for _, d := range entries {
			rec = append(rec, dirEntry{name: d.Name(), typ: d.Type()})
		}
		e.files.Dirs[path] = rec
	}
	return entries, err
}

// replayEnv is the running kernel's environment with the script's files
// served from a record: what was not recorded does not exist.
type replayEnv struct {
	*gotrace.KernelEnv
	files *scriptFiles
}

func newReplayEnv(files *scriptFiles) replayEnv {
	if files == nil {
		files = newScriptFiles()
	}
	return replayEnv{KernelEnv: gotrace.NewKernelEnv(), files: files}
}

func notExist(op, path string) error { return &fs.PathError{Op: op, Path: path, Err: fs.ErrNotExist} }

// ReadScriptFile returns a recorded file's contents.
func (e replayEnv) ReadScriptFile(path string) ([]byte, error) {
	data, ok := e.files.Reads[path]
	if !ok {
		return nil, notExist("open", path)
	}
	return data, nil
}

// StatScriptFile returns a recorded file's description.
func (e replayEnv) StatScriptFile(path string) (fs.FileInfo, error) {
	fi, ok := e.files.Stats[path]
	if !ok {
		return nil, notExist("stat", path)
	}
	return fi, nil
}

// ReadScriptDir returns a recorded directory's entries.
func (e replayEnv) ReadScriptDir(path string) ([]fs.DirEntry, error) {
	rec, ok := e.files.Dirs[path]
	if !ok {
		return nil, notExist("open", path)
	}
	entries := make([]fs.DirEntry, len(rec))
	for i, d := range rec {
		d.info = fileStat{name: d.name, mode: d.typ}
		if fi, ok := e.files.Stats[filepath.Join(path, d.name)]; ok {
			d.info = fi
		}
		entries[i] = d
	}
	return entries, nil
}
