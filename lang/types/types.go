package types

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"
)

// Kind classifies a Type.
type Kind uint8

// The kinds of value. Aggregation kinds (Count...Lhist) only appear as map
// value types; their per-CPU layout is given next to each.
const (
	Invalid     Kind = iota
	Void             // no value (statements, printf)
	Int              // Size 1, 2, 4 or 8 bytes; Signed
	Bool             // stored as one byte, widened to 8 in registers
	String           // Size bytes, NUL-terminated and zero-padded
	Pointer          // 8 bytes; Elem is the pointee, AS the address space
	Array            // Len elements of Elem
	Tuple            // Fields laid out with natural alignment, unnamed ("0", "1", ...)
	Record           // like Tuple, with names
	Struct           // a kernel or script-defined struct/union; BTF holds the type
	Ctx              // the probe context pointer
	Count            // per-CPU uint64
	Sum              // per-CPU int64 (Signed) or uint64
	Min              // per-CPU {int64 value; uint64 set}
	Max              // per-CPU {int64 value; uint64 set}
	Avg              // per-CPU {int64 total; uint64 count}
	Stats            // per-CPU {int64 total; uint64 count}
	Hist             // key suffixed with a uint64 bucket index; per-CPU uint64 count
	Lhist            // key suffixed with a uint64 bucket index; per-CPU uint64 count
	Timestamp        // uint64 nanoseconds, printed with strftime in the format Strftime
	Ksym             // uint64 kernel address, printed as a symbol
	Usym             // {uint64 addr; uint64 pid}, a user address printed as a symbol
	Stack            // {uint64 id} (kstack) or {uint64 id; uint64 pid} (ustack): UserStack says which
	Errno            // int64 errno, printed as strerror(3) text (strerror())
	SyscallName      // int64 syscall number, printed as its name (syscall_name())
	Inet             // {uint64 family; [16]byte address}, printed as an IP address (ntop())
	Username         // uint64 uid, printed as the user name
	SignalName       // int64 signal number, printed as its name (signal_name())
	MacAddr          // 6 bytes (in 8), printed as XX:XX:XX:XX:XX:XX (macaddr())
	CgroupPath       // uint64 cgroup id, printed as the cgroup\'s path(s) (cgroup_path()); CgroupFilter selects the hierarchies
	Tseries          // key suffixed with a uint64 bucket (epoch % Len); per-CPU {int64 value; int64 meta; uint64 epoch}; LStep is the interval in ns, Agg the aggregation
	Buf              // buf() with a run-time length, and bufs of different lengths unified: {uint32 length; [Len]byte data}, the first length bytes (at most Len) are the value; Size is 4+Len
)

// BufferName is the Name of the Array of bytes that buf() makes: it prints
// as text with non-printable bytes escaped (\x00), as %r does.
const BufferName = "buffer"

// IsBuf reports whether t is a buf() value, of a constant length (an
// Array named BufferName) or of a run-time length (a Buf).
func (t *Type) IsBuf() bool {
	return t != nil && (t.Kind == Array && t.Name == BufferName || t.Kind == Buf)
}

// BufHeader is the size of a Buf's length field (bpftrace's
// AsyncEvent::Buf).
const BufHeader = 4

// NewBuf returns the type of a buf() value with a run-time length of at
// most n bytes: buf(data, length) of a length not constant, or the type
// that holds bufs of different lengths (a ternary's branches, the values
// of one variable or map), whose capacity is the larger.
func NewBuf(n int) *Type {
	return &Type{Kind: Buf, Size: BufHeader + n, Len: n, Elem: Uint8}
}

// BufBytes returns the bytes that the buf() value b of type t holds: the
// first Len bytes of a constant-length buffer, the first length bytes
// (at most Len) of a Buf.
func (t *Type) BufBytes(b []byte) []byte {
	if t.Kind != Buf {
		return b[:min(t.Len, len(b))]
	}
	if len(b) < BufHeader {
		return nil
	}
	n := int(uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24)
	n = min(n, t.Len, len(b)-BufHeader)
	return b[BufHeader : BufHeader+n]
}

// AddrSpace tells which helper reads through a pointer.
type AddrSpace uint8

// Address spaces.
const (
	NoAS AddrSpace = iota
	Kernel
	User
)

// String names the address space: "kernel", "user", or "" for none.
func (as AddrSpace) String() string {
	switch as {
	case Kernel:
		return "kernel"
	case User:
		return "user"
	}
	return ""
}

// Type is the type of a value.
type Type struct {
	Kind   Kind
	Size   int  // size in bytes of the stored value
	Signed bool // Int, Sum, Min, Max, Avg, Stats: the value is signed
	// Flexible marks a non-negative integer literal's type (int64): when
	// unified with another integer type, it takes that type, as bpftrace's
	// literals do.
	Flexible bool
	Elem     *Type
	Len      int
	Fields   []Field
	Name     string // struct/union name ("struct task_struct"), or a typedef name
	AS       AddrSpace
	BTF      btf.Type // the BTF type behind Struct, Pointer and Int values read from the kernel

	// Args: a Record of a probe's arguments (the args builtin's type,
	// kept by the values copied from it).
	Args bool
	// UserStack: a Stack of user-space frames (ustack), {id, pid}; else a
	// kernel stack (kstack), {id}.
	UserStack bool
	// DWARF: a user Stack unwound with DWARF call frame information
	// (dw_ustack), whose id names a sample of registers and stack bytes
	// rather than frames in a stack trace map.
	DWARF bool
	// StackMode is how a Stack prints when its kstack/ustack call chose
	// ("bpftrace", "perf", "raw"); "" follows the config.
	StackMode string

	// Strftime is a Timestamp's format (strftime()).
	Strftime string
	// CgroupFilter is a CgroupPath's wildcard over the hierarchy names
	// whose paths print ("*": all; "unified": cgroup v2).
	CgroupFilter string
	// Agg is a Tseries's aggregation of each interval: Sum, Min, Max or
	// Avg (TseriesAggs), Invalid for the last value set.
	Agg Kind

	// Hist: log2 bits (hist(n, k)); Lhist: bucket parameters.
	Bits              int
	LMin, LMax, LStep int64
}

// Field is a member of a Tuple, Record or Struct.
type Field struct {
	Name   string
	Type   *Type
	Offset int
	// BitOffset and BitSize describe a bitfield (BitSize > 0).
	BitOffset, BitSize int
}

// Predeclared types.
var (
	VoidT  = &Type{Kind: Void}
	BoolT  = &Type{Kind: Bool, Size: 1}
	Int8   = &Type{Kind: Int, Size: 1, Signed: true}
	Int16  = &Type{Kind: Int, Size: 2, Signed: true}
	Int32  = &Type{Kind: Int, Size: 4, Signed: true}
	Int64  = &Type{Kind: Int, Size: 8, Signed: true}
	Uint8  = &Type{Kind: Int, Size: 1}
	Uint16 = &Type{Kind: Int, Size: 2}
	Uint32 = &Type{Kind: Int, Size: 4}
	Uint64 = &Type{Kind: Int, Size: 8}
	CtxT   = &Type{Kind: Ctx, Size: 8}
)

// NewInt returns an integer type of the given size (1, 2, 4, 8) and signedness.
func NewInt(size int, signed bool) *Type {
	return &Type{Kind: Int, Size: size, Signed: signed}
}

// NewString returns a string type holding size bytes including the NUL.
func NewString(size int) *Type { return &Type{Kind: String, Size: size} }

// IsInt reports whether t is an integer (or bool, which behaves as one).
func (t *Type) IsInt() bool { return t != nil && (t.Kind == Int || t.Kind == Bool) }

// IsAggregation reports whether t is a map-only aggregation value.
func (t *Type) IsAggregation() bool {
	if t == nil {
		return false
	}
	switch t.Kind {
	case Count, Sum, Min, Max, Avg, Stats, Hist, Lhist, Tseries:
		return true
	}
	return false
}

// IsBuffer reports whether values of t live in memory rather than in a
// register (strings, tuples, records, arrays, structs).
func (t *Type) IsBuffer() bool {
	if t == nil {
		return false
	}
	switch t.Kind {
	case String, Tuple, Record, Array, Struct, Inet, Usym, Buf:
		return true
	case Stack:
		return t.UserStack
	}
	return false
}

// NewStack returns the type of a stack of up to n frames: a user stack
// (ustack) or a kernel stack (kstack).
func NewStack(user bool, n int) *Type {
	if user {
		return &Type{Kind: Stack, Size: 16, UserStack: true, Len: n}
	}
	return &Type{Kind: Stack, Size: 8, Len: n}
}

// Align returns the alignment of t in BPF memory.
func (t *Type) Align() int {
	switch t.Kind {
	case Int, Bool:
		return t.Size
	case String:
		return 1
	case Buf:
		return BufHeader
	case Array:
		return t.Elem.Align()
	case Void:
		// a struct member of a type without a value (float, double,
		// arrays of them): the largest power of two up to 8 dividing its
		// size, as C aligns them
		a := 8
		for a > 1 && t.Size%a != 0 {
			a /= 2
		}
		return a
	case Tuple, Record, Struct:
		a := 1
		for _, f := range t.Fields {
			if fa := f.Type.Align(); fa > a {
				a = fa
			}
		}
		if t.Kind == Struct && len(t.Fields) == 0 {
			return 8
		}
		return a
	default:
		return 8
	}
}

// NewTuple lays out elems with natural alignment, as bpftrace does.
func NewTuple(elems []*Type, names []string) *Type {
	t := &Type{Kind: Tuple}
	if names != nil {
		t.Kind = Record
	}
	off, align := 0, 1
	for i, e := range elems {
		a := e.Align()
		if a > align {
			align = a
		}
		off = (off + a - 1) / a * a
		name := fmt.Sprint(i)
		if names != nil {
			name = names[i]
		}
		t.Fields = append(t.Fields, Field{Name: name, Type: e, Offset: off})
		off += e.Size
	}
	t.Size = (off + align - 1) / align * align
	return t
}

// Equal reports whether a and b are the same type for assignment purposes:
// same kind, and for integers same size and signedness.
func Equal(a, b *Type) bool {
	if a == nil || b == nil || a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case Int:
		return a.Size == b.Size && a.Signed == b.Signed
	case String:
		return a.Size == b.Size
	case Tuple, Record:
		if len(a.Fields) != len(b.Fields) {
			return false
		}
		for i := range a.Fields {
			if a.Fields[i].Name != b.Fields[i].Name || !Equal(a.Fields[i].Type, b.Fields[i].Type) {
				return false
			}
		}
		return true
	case Pointer:
		return Equal(a.Elem, b.Elem) || a.Elem.Kind == Void || b.Elem.Kind == Void
	case Array:
		return a.Len == b.Len && Equal(a.Elem, b.Elem)
	case Buf:
		return a.Len == b.Len
	case Struct:
		return a.Name == b.Name
	case Lhist:
		return a.LMin == b.LMin && a.LMax == b.LMax && a.LStep == b.LStep
	case Hist:
		return a.Bits == b.Bits
	case Tseries:
		return a.LStep == b.LStep && a.Len == b.Len && a.Agg == b.Agg
	case Stack:
		// kstack and ustack, their limits and their modes are all
		// different types, as in bpftrace; "" is the default mode (the
		// checker gives a stack the config's stack_mode when it is set).
		// A dw_ustack's id names a sample, a ustack's a stack trace.
		return a.UserStack == b.UserStack && a.DWARF == b.DWARF && a.Len == b.Len && cmp.Or(a.StackMode, "bpftrace") == cmp.Or(b.StackMode, "bpftrace")
	}
	return true
}

// HasDWARFStack reports whether t is or holds a dw_ustack (Stack.DWARF).
func HasDWARFStack(t *Type) bool {
	if t == nil {
		return false
	}
	if t.Kind == Stack {
		return t.DWARF
	}
	for _, f := range t.Fields {
		if HasDWARFStack(f.Type) {
			return true
		}
	}
	return false
}

// String names the type the way bpftrace's error messages do.
func (t *Type) String() string {
	if t == nil {
		return "none"
	}
	switch t.Kind {
	case Void:
		return "void"
	case Int:
		if t.Signed {
			return fmt.Sprintf("int%d", t.Size*8)
		}
		return fmt.Sprintf("uint%d", t.Size*8)
	case Bool:
		return "bool"
	case String:
		return fmt.Sprintf("string[%d]", t.Size)
	case Pointer:
		return t.Elem.String() + " *"
	case Array:
		// int32[2][3]: two arrays of three, as C writes it.
		dims := ""
		e := t
		for ; e.Kind == Array; e = e.Elem {
			dims += fmt.Sprintf("[%d]", e.Len)
		}
		return e.String() + dims
	case Tuple, Record:
		var b strings.Builder
		b.WriteString("(")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(",")
			}
			if t.Kind == Record {
				b.WriteString(f.Name + "=")
			}
			b.WriteString(f.Type.String())
		}
		b.WriteString(")")
		return b.String()
	case Struct:
		return t.Name
	case Ctx:
		return "ctx"
	case Count:
		return "count_t"
	case Sum:
		return "sum_t"
	case Min:
		return "min_t"
	case Max:
		return "max_t"
	case Avg:
		return "avg_t"
	case Stats:
		return "stats_t"
	case Hist:
		return "hist_t"
	case Lhist:
		return "lhist_t"
	case Timestamp:
		return "timestamp"
	case Ksym:
		return "ksym_t"
	case Usym:
		return "usym_t"
	case Stack:
		// bpftrace's name: ustack_perf_127
		kind := "kstack"
		if t.UserStack {
			kind = "ustack"
		}
		return fmt.Sprintf("%s_%s_%d", kind, cmp.Or(t.StackMode, "bpftrace"), t.Len)
	case Errno:
		return "strerror_t"
	case SyscallName:
		return "syscall_name_t"
	case Inet:
		return "inet"
	case Username:
		return "username"
	case SignalName:
		return "signal_name_t"
	case MacAddr:
		return "macaddr_t"
	case CgroupPath:
		return "cgroup_path_t"
	case Tseries:
		return "tseries_t"
	case Buf:
		return fmt.Sprintf("buffer[%d]", t.Len)
	}
	return "invalid"
}

// TseriesAggs are tseries()'s aggregations of an interval, by the name its
// fourth argument gives.
var TseriesAggs = map[string]Kind{"avg": Avg, "max": Max, "min": Min, "sum": Sum}

// AggValueSize returns the per-CPU value size of an aggregation kind.
func AggValueSize(k Kind) int {
	switch k {
	case Min, Max, Avg, Stats:
		return 16
	case Tseries:
		return 24
	}
	return 8
}

// Truncate converts the 64-bit value v to the integer or bool type t as a
// cast does: bools become 0 or 1, narrower integers keep their low bytes,
// sign-extended when t is signed.
func Truncate(v uint64, t *Type) uint64 {
	if t.Kind == Bool {
		if v != 0 {
			return 1
		}
		return 0
	}
	if t.Size >= 8 {
		return v
	}
	n := uint(t.Size * 8)
	v &= 1<<n - 1
	if t.Signed && v>>(n-1) != 0 {
		v |= ^uint64(0) << n
	}
	return v
}

// Enum returns the enum behind an integer of an enum type (a kernel or
// script-defined enum, a cast to one, or one of its enumerators), or nil.
func (t *Type) Enum() *btf.Enum {
	if t == nil || t.Kind != Int {
		return nil
	}
	e, _ := t.BTF.(*btf.Enum)
	return e
}

// NewEnum returns the type of a value of enum e held in size bytes.
func NewEnum(e *btf.Enum, size int) *Type {
	return &Type{Kind: Int, Size: size, Signed: false, BTF: e, Name: "enum " + e.Name}
}

// EnumSymbol names the value v of enum e as bpftrace prints it: the first
// enumerator with that value, or v in decimal when none has it. Only the
// low size bytes of v are compared.
func EnumSymbol(e *btf.Enum, v uint64, size int) string {
	if size < 8 {
		v &= 1<<(uint(size)*8) - 1
	}
	for _, ev := range e.Values {
		x := ev.Value
		if size < 8 {
			x &= 1<<(uint(size)*8) - 1
		}
		if x == v {
			return ev.Name
		}
	}
	return strconv.FormatUint(v, 10)
}

// Storage is the type a value has once stored in a map or variable:
// integers widen to 64 bits and string buffers to a multiple of 8 bytes.
func Storage(t *Type) *Type {
	switch {
	case t.Kind == Int && t.Size < 8 && t.Enum() != nil:
		return NewEnum(t.Enum(), 8)
	case t.Kind == Int && t.Size < 8:
		st := NewInt(8, t.Signed)
		st.Flexible = t.Flexible
		return st
	case t.Kind == String && t.Size%8 != 0:
		return NewString((t.Size + 7) / 8 * 8)
	}
	return t
}

// WithAS returns t living in address space as: a pointer and what it
// points to (nested pointers, structs, arrays) all read from as, the way
// bpftrace's dereferences and member accesses inherit the address space
// of the value they start from. t itself is not modified.
func WithAS(t *Type, as AddrSpace) *Type {
	if t == nil {
		return nil
	}
	switch t.Kind {
	case Pointer, Struct, Array:
	default:
		return t
	}
	elem := t.Elem
	if t.Kind != Struct {
		elem = WithAS(t.Elem, as)
	}
	if t.AS == as && elem == t.Elem {
		return t
	}
	cp := *t
	cp.AS, cp.Elem = as, elem
	return &cp
}
