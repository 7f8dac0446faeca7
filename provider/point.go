package provider

import (
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/tracefs"
)

// Point is one expanded attach point.
type Point struct {
	Pos      ast.Pos
	Provider string // canonical provider name
	Name     string // canonical full name, e.g. "tracepoint:syscalls:sys_enter_openat"

	// tracepoint
	Category, Event string
	Format          *tracefs.Format

	// kprobe, kretprobe, fentry, fexit: the kernel function, its module ("" for
	// vmlinux), the kprobe offset, and its BTF prototype (nil without BTF).
	// rawtracepoint: Func is the event and Proto its BTF prototype, without
	// the leading context argument. uprobe, uretprobe: Module is the binary.
	Func   string
	Module string
	Offset uint64
	Proto  *btf.FuncProto
	// NoFtrace: the kernel function has no ftrace location (it is not in
	// available_filter_functions under any of its names), so only a kprobe
	// of its own can attach, never kprobe_multi; the kernel decides.
	NoFtrace bool

	// interval, profile: Unit is "s", "ms", "us", "hz"; Value the number.
	// software: Event is the event name and Value the sample period.
	Unit  string
	Value uint64

	// usdt: the probe location (Module is the binary, Func is
	// "NAMESPACE:PROBE").
	USDT *USDTLocation
}
