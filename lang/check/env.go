package check

import (
	"debug/elf"

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
