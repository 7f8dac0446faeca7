package lang

import (
	"github.com/cilium/ebpf/btf"

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
	TracepointFormat(category, event string) (*TracepointFormat, error)
	// BTF returns the kernel's BTF, or nil with an error when it is unavailable.
	BTF() (*btf.Spec, error)
}

// TracepointFormat is the parsed format file of a tracepoint, as tracefs
// reads it.
type TracepointFormat = tracefs.Format

// TracepointField is one field line of a tracepoint format file.
type TracepointField = tracefs.Field
