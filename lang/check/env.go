package check

import (
	"debug/elf"
	"io/fs"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/tracefs"
)

// Env is what the checker needs to know about the machine a script will run
// on. The runtime provides one backed by tracefs and the kernel's BTF; tests
// provide one backed by files in testdata.
type Env interface {
	// Tracepoints returns the "category:event" names matching a glob pattern
	// such as "syscalls:sys_enter_open*", sorted.
	Tracepoints(pattern string) ([]string, error)
	// TracepointFormat returns the fields of one tracepoint.
	TracepointFormat(category, event string) (*tracefs.Format, error)
	// BTF returns the kernel's BTF, or nil with an error when it is unavailable.
	BTF() (*btf.Spec, error)
}

// ScriptFiles is an optional extension of Env: environments that can read
// the files a script names in its text implement it. The checker reads
// them only through it: the headers of #include (and the system include
// directories, to tell a system header), and the files and directories of
// import. Without it, user headers and imported files report an error.
type ScriptFiles interface {
	// ReadScriptFile returns the contents of a file.
	ReadScriptFile(path string) ([]byte, error)
	// StatScriptFile describes a file or directory, following symbolic
	// links, as os.Stat does (permission bits included).
	StatScriptFile(path string) (fs.FileInfo, error)
	// ReadScriptDir lists the entries of a directory, sorted by name.
	ReadScriptDir(path string) ([]fs.DirEntry, error)
}

// ELFTypes is an optional extension of provider.HostFiles: environments that can
// tell an executable (ELF type ET_EXEC, loaded at its link-time addresses)
// from a position-independent file (ET_DYN: a PIE executable or a shared
// library, loaded anywhere) implement it. Without it, uaddr() takes every
// file for ET_EXEC.
type ELFTypes interface {
	ELFType(file string) (elf.Type, error)
}

// hostFiles returns the environment's provider.HostFiles.
func (c *checker) hostFiles() (provider.HostFiles, error) {
	if h, ok := c.env.(provider.HostFiles); ok {
		return h, nil
	}
	return nil, provider.ErrNoHostFiles
}

// scriptFiles returns the environment's ScriptFiles.
func (c *checker) scriptFiles() (ScriptFiles, error) {
	if f, ok := c.env.(ScriptFiles); ok {
		return f, nil
	}
	return nil, provider.ErrNoHostFiles
}
