package provider

import (
	"errors"
	"io"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/debuginfo"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/tracefs"
)

// ExpandEnv is what expanding attach points needs to know about the
// machine: lang's Env satisfies it, and its optional extensions
// FunctionLister and HostFiles are used when present.
type ExpandEnv interface {
	// Tracepoints returns the "category:event" names matching a glob, sorted.
	Tracepoints(pattern string) ([]string, error)
	// BTF returns the kernel's BTF, or nil with an error.
	BTF() (*btf.Spec, error)
}

// FunctionLister is an optional extension of ExpandEnv: environments that
// know which kernel functions can be traced (available_filter_functions
// minus the kprobe blacklist) implement it, and wildcards expand only to
// those.
type FunctionLister interface {
	// TraceableFunctions returns the traceable functions, or nil when the
	// kernel does not say (the list is then not filtered).
	TraceableFunctions() (map[string]bool, error)
}

// KernelSymbols is an optional extension of ExpandEnv: environments that
// read the kernel's symbol table (/proc/kallsyms) and kprobe blacklist
// implement it. An exact kprobe is then accepted when the kernel has the
// function (not only when ftrace lists it), and a missing one is explained.
type KernelSymbols interface {
	// KernelSymbols returns the symbol table, or nil when it cannot be
	// read.
	KernelSymbols() (*tracefs.Symbols, error)
}

// Binaries is an optional extension of ExpandEnv: environments that can
// read the executables of the machine (uprobe targets) implement it.
type Binaries interface {
	// ResolveBinary returns the file of uprobe:TARGET:...
	ResolveBinary(target string) (string, error)
	// ELFSymbols lists the symbols with a non-zero address of an ELF file.
	ELFSymbols(file string) ([]ELFSymbol, error)
}

// HostFiles is an optional extension of ExpandEnv (and of lang's Env):
// environments that can read the files of the machine a script runs on
// implement it. The checker reads host files only through it: uprobe
// targets and their symbols, uaddr() and cgroupid(). Without it those
// report an error.
type HostFiles interface {
	// ResolveBinary returns the file of uprobe:TARGET:...: TARGET when it is
	// a path (an error if it does not exist), else an executable on PATH or
	// a library by name (libc, libc.so.6); ELFSymbols lists the symbols
	// with a non-zero address of an ELF file, symbol table first, then
	// dynamic symbols; names carry no version (malloc@@GLIBC_2.2.5 is
	// malloc).
	Binaries
	// Inode returns the inode number of a file (a cgroup v2 directory's is
	// its cgroup id).
	Inode(path string) (uint64, error)
}

// DebugInfo is an optional extension of ExpandEnv: environments that read
// the DWARF debug information of user binaries (uprobe args, user types,
// source line attach points) implement it.
type DebugInfo interface {
	// DebugInfo returns the DWARF of a binary, from the binary or a
	// separate debug file; the error wraps debuginfo.ErrNoDWARF when there
	// is none.
	DebugInfo(file string) (*debuginfo.File, error)
}

// ELFSymbol is one symbol of an ELF file.
type ELFSymbol struct {
	Name  string // without version suffix
	Value uint64 // address, never 0
	Size  uint64 // st_size (0 when the symbol table does not say)
	Func  bool   // STT_FUNC
}

// ErrNoHostFiles is reported when the environment cannot read host files.
var ErrNoHostFiles = errors.New("the environment cannot read host files")

// ListEnv is what -l needs: an ExpandEnv that also reads tracepoint
// formats (and implements FunctionLister and Binaries when it can).
type ListEnv interface {
	ExpandEnv
	TracepointFormat(category, event string) (*tracefs.Format, error)
}

// Attacher is what attaching needs from the runtime session.
type Attacher interface {
	// Push registers something to close when detaching.
	Push(c io.Closer)
	// Watch registers the perf event of a watchpoint on addr, to close
	// when detaching or earlier, when the program calls unwatch(addr).
	Watch(addr uint64, c io.Closer)
	// Tracefs returns the tracefs environment, mounting tracefs if needed.
	Tracefs() (*tracefs.Env, error)
	// OnlineCPUs lists the online CPUs.
	OnlineCPUs() ([]int, error)
	// Pid is the process the script is restricted to (-p), 0 for none.
	Pid() int
	// Child is the pid of the child command (-c), 0 for none.
	Child() int
	// Unsafe reports --unsafe (attaching to a function of unknown size).
	Unsafe() bool
	// Stdout is where the script's output goes.
	Stdout() io.Writer
	// AttachType returns the attach type p's program was loaded with.
	AttachType(p *object.Probe) ebpf.AttachType
	// PushAll registers things to close together, concurrently, when
	// detaching (the kprobes of a wildcard: each waits for an RCU grace
	// period).
	PushAll(cs []io.Closer)
	// Skip records a target of a wildcard that the kernel refused; the
	// runtime lists them once every probe is attached.
	Skip(target string)
	// Skipped returns the targets skipped so far.
	Skipped() []string
	// Note reports progress on attaching (how many functions attached
	// how, and in how long) on stderr, unless the session is quiet.
	Note(msg string)
	// Map returns the loaded map of the collection with that name, or nil.
	Map(name string) *ebpf.Map
}
