package provider

import (
	"sync"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/tracefs"
)

// Point is one expanded attach point.
type Point struct {
	Pos      srcpos.Pos
	Provider string // canonical provider name
	Name     string // canonical full name, e.g. "tracepoint:syscalls:sys_enter_openat"

	// tracepoint
	Category, Event string
	Format          *tracefs.Format

	// kprobe, kretprobe, fentry, fexit: the kernel function, its module ("" for
	// vmlinux), the kprobe offset, and its BTF prototype (FuncProto; nil
	// without BTF). rawtracepoint: Func is the event and FuncProto its BTF
	// prototype, without
	// the leading context argument. uprobe, uretprobe: Module is the binary.
	Func   string
	Module string
	Offset uint64
	proto  *lazyProto
	// NoFtrace: the kernel function has no ftrace location (it is not in
	// available_filter_functions under any of its names), so only a kprobe
	// of its own can attach, never kprobe_multi; the kernel decides.
	NoFtrace bool

	// Data is what a provider's expansion keeps about the point for its
	// own Compile, of the provider's own type (a timer's rate, a perf
	// event's sample period, a watchpoint's breakpoint); no other stage
	// reads it.
	Data any

	// uprobe, uretprobe: Lang is the language prefix written
	// (uprobe:BINARY:cpp:FUNCTION), "" for none; Demangled is the C++
	// name of a mangled Func (with its parameters), "" when Func is not
	// mangled or config cpp_demangle is off.
	Lang, Demangled string
}

// lazyProto is a BTF prototype decoded on first use: decoding one pulls in
// every type its parameters name, and a wildcard of a thousand functions
// whose script never reads args would decode them all for nothing.
type lazyProto struct {
	once   sync.Once
	decode func() *btf.FuncProto
	proto  *btf.FuncProto
}

// FuncProto returns the point's BTF prototype, or nil.
func (p *Point) FuncProto() *btf.FuncProto {
	if p.proto == nil {
		return nil
	}
	p.proto.once.Do(func() {
		if p.proto.decode != nil {
			p.proto.proto = p.proto.decode()
		}
	})
	return p.proto.proto
}

// SetProto sets the point's BTF prototype; nil leaves it without one.
func (p *Point) SetProto(proto *btf.FuncProto) {
	p.proto = nil
	if proto != nil {
		p.proto = &lazyProto{proto: proto}
		p.proto.once.Do(func() {})
	}
}

// setLazyProto sets the prototype of the BTF function id of spec, decoded
// when it is first asked for.
func (p *Point) setLazyProto(spec *btf.Spec, id btf.TypeID) {
	p.proto = &lazyProto{decode: func() *btf.FuncProto { return protoByID(spec, id) }}
}

// FuncName is the name the func builtin gives the point's function: the
// demangled C++ name when there is one.
func (p *Point) FuncName() string {
	if p.Demangled != "" {
		return p.Demangled
	}
	return p.Func
}
