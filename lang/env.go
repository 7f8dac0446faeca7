package lang

import "github.com/cilium/ebpf/btf"

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

// TracepointFormat is the parsed format file of a tracepoint
// (/sys/kernel/tracing/events/CATEGORY/EVENT/format).
type TracepointFormat struct {
	Category, Event string
	ID              uint32
	Fields          []TracepointField // the event's own fields, without common_*
}

// TracepointField is one field line of a format file, e.g.
// "field:const char * filename;	offset:24;	size:8;	signed:0;".
type TracepointField struct {
	Name     string // "filename"
	CType    string // "const char *", "__data_loc char[]", "char[16]", "unsigned long"
	Offset   int
	Size     int
	Signed   bool
	ArrayLen int  // N for "char comm[16]" style fields (CType then holds the element type), 0 otherwise
	DataLoc  bool // __data_loc field: a uint32 with offset (low 16 bits) and length (high 16 bits)
}
