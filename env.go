package gotrace

import (
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/btfnames"
	"github.com/gotrace/gotrace/internal/debuginfo"
	"github.com/gotrace/gotrace/internal/hostfs"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/preamble"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/tracefs"
)

// KernelEnv is the check.Env of the running kernel. It mounts tracefs and
// loads the kernel's BTF only when a script needs them.
type KernelEnv struct {
	once      sync.Once
	env       *tracefs.Env
	err       error
	cacheOnce sync.Once
	cache     *btf.Cache // kernel BTF, parsed once for the checker and the loader
	fileOnce  sync.Once
	file      *btf.Spec // the BTF file BTFEnv names (fileBTF)
}

var (
	_ Env = (*KernelEnv)(nil)
	_ Env = (*tracefs.Env)(nil)
)

// NewKernelEnv returns an environment backed by the running kernel.
func NewKernelEnv() *KernelEnv { return &KernelEnv{cache: btf.NewCache()} }

func (k *KernelEnv) get() (*tracefs.Env, error) {
	k.once.Do(func() {
		dir, err := tracefs.Mount()
		if err != nil {
			k.err = fmt.Errorf("tracefs: %w", err)
			return
		}
		k.env = tracefs.NewEnv(dir, tracefs.WithBTFCache(k.btfCache()), tracefs.WithKernelFiles(tracefs.LiveKernel()))
	})
	return k.env, k.err
}

// TracefsDir returns the tracefs directory, or "" if it was never needed.
func (k *KernelEnv) TracefsDir() string {
	if k.env == nil {
		return ""
	}
	return k.env.Root()
}

// BTFCache returns the cache shared between the checker and program loads:
// the kernel's BTF is parsed once, when first needed.
func (k *KernelEnv) BTFCache() *btf.Cache { return k.btfCache() }

// btfCache returns k.cache, made on first use by a KernelEnv that
// NewKernelEnv did not make.
func (k *KernelEnv) btfCache() *btf.Cache {
	k.cacheOnce.Do(func() {
		if k.cache == nil {
			k.cache = btf.NewCache()
		}
	})
	return k.cache
}

// Tracepoints implements check.Env.
func (k *KernelEnv) Tracepoints(pattern string) ([]string, error) {
	e, err := k.get()
	if err != nil {
		return nil, err
	}
	return e.Tracepoints(pattern)
}

// TracepointFormat implements check.Env.
func (k *KernelEnv) TracepointFormat(category, event string) (*tracefs.Format, error) {
	e, err := k.get()
	if err != nil {
		return nil, err
	}
	return e.TracepointFormat(category, event)
}

// BTFEnv names the environment variable that gives a BTF file to read
// the kernel's types from instead of the running kernel's (bpftrace's
// BPFTRACE_BTF): a raw BTF blob or an ELF file with a .BTF section. A file
// that cannot be read is warned about, and the kernel's BTF used.
const BTFEnv = "BPFTRACE_BTF"

// fileBTF loads the BTF file BTFEnv names, once; nil when it names none
// or one that cannot be read.
func (k *KernelEnv) fileBTF() *btf.Spec {
	k.fileOnce.Do(func() {
		path := os.Getenv(BTFEnv)
		if path == "" {
			return
		}
		spec, err := btf.LoadSpec(path)
		if err != nil {
			fmt.Fprintf(os.Stderr, "WARNING: BTF: failed to parse BTF from %s: %v\n", path, err)
			return
		}
		btfnames.RegisterKernel(spec)
		k.file = spec
	})
	return k.file
}

// BTF implements check.Env: the kernel's BTF, or the file BTFEnv names.
// The kernel's BTF does not need tracefs.
func (k *KernelEnv) BTF() (*btf.Spec, error) {
	if spec := k.fileBTF(); spec != nil {
		return spec, nil
	}
	e, err := k.get()
	if err != nil {
		spec, err := k.btfCache().Kernel()
		if err != nil {
			return nil, fmt.Errorf("load kernel BTF: %w", err)
		}
		btfnames.RegisterKernel(spec)
		return spec, nil
	}
	return e.BTF()
}

// TraceableFunctions implements provider.FunctionLister when tracefs can say.
func (k *KernelEnv) TraceableFunctions() (map[string]bool, error) {
	e, err := k.get()
	if err != nil {
		return nil, err
	}
	if fl, ok := any(e).(provider.FunctionLister); ok {
		return fl.TraceableFunctions()
	}
	return nil, nil
}

// KernelSymbols implements provider.KernelSymbols when tracefs can be
// mounted.
func (k *KernelEnv) KernelSymbols() (*tracefs.Symbols, error) {
	e, err := k.get()
	if err != nil {
		return nil, nil
	}
	return e.KernelSymbols()
}

var _ provider.KernelSymbols = (*KernelEnv)(nil)

// KernelSymbol implements check.SymbolResolver from /proc/kallsyms.
func (k *KernelEnv) KernelSymbol(name string) (uint64, error) {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		return 0, fmt.Errorf("reading kernel symbols: %w", err)
	}
	defer f.Close()
	var addr uint64
	found := false
	err = tracefs.ReadKallsyms(f, func(sym tracefs.Kallsym) bool {
		if string(sym.Name) == name {
			addr, found = sym.Addr(), true
		}
		return !found
	})
	switch {
	case err != nil:
		return 0, fmt.Errorf("reading kernel symbols: %w", err)
	case !found:
		return 0, fmt.Errorf("%q: %w", name, check.ErrNoSymbol)
	case addr == 0:
		return 0, fmt.Errorf("kernel symbol addresses are hidden (kptr_restrict): run as root")
	}
	return addr, nil
}

// ResolveBinary implements provider.HostFiles on the local file system.
func (k *KernelEnv) ResolveBinary(target string) (string, error) {
	return hostfs.Files{}.ResolveBinary(target)
}

// ELFSymbols implements provider.HostFiles on the local file system.
func (k *KernelEnv) ELFSymbols(file string) ([]provider.ELFSymbol, error) {
	return hostfs.Files{}.ELFSymbols(file)
}

// Inode implements provider.HostFiles on the local file system.
func (k *KernelEnv) Inode(path string) (uint64, error) {
	return hostfs.Files{}.Inode(path)
}

// ELFType implements check.ELFTypes on the local file system.
func (k *KernelEnv) ELFType(file string) (elf.Type, error) {
	return hostfs.Files{}.ELFType(file)
}

// ReadScriptFile implements preamble.ScriptFiles on the local file system.
func (k *KernelEnv) ReadScriptFile(path string) ([]byte, error) {
	return hostfs.Files{}.ReadScriptFile(path)
}

// StatScriptFile implements preamble.ScriptFiles on the local file system.
func (k *KernelEnv) StatScriptFile(path string) (fs.FileInfo, error) {
	return hostfs.Files{}.StatScriptFile(path)
}

// ReadScriptDir implements preamble.ScriptFiles on the local file system.
func (k *KernelEnv) ReadScriptDir(path string) ([]fs.DirEntry, error) {
	return hostfs.Files{}.ReadScriptDir(path)
}

var (
	_ provider.HostFiles   = (*KernelEnv)(nil)
	_ check.ELFTypes       = (*KernelEnv)(nil)
	_ preamble.ScriptFiles = (*KernelEnv)(nil)
)

// kernelThreadStatusOffset returns the offset of thread_info.status in
// task_struct from the running kernel's raw BTF, when env is the running
// kernel.
func kernelThreadStatusOffset(env Env) (int, error) {
	if k, ok := env.(*KernelEnv); !ok || k.fileBTF() != nil {
		return 0, errors.New("not the running kernel's environment")
	}
	return btfnames.MemberOffsetFile(btfnames.KernelPath, "task_struct", "thread_info", "status")
}

// DebugInfo implements provider.DebugInfo on the local file system.
func (k *KernelEnv) DebugInfo(file string) (*debuginfo.File, error) {
	return hostfs.Files{}.DebugInfo(file)
}

var _ provider.DebugInfo = (*KernelEnv)(nil)
