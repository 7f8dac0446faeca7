package output

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/lang/types"
)

// DefaultStrTruncTrailer is bpftrace's default str_trunc_trailer: appended to
// a string that fills its whole buffer, which bpftrace takes as a sign that it
// was truncated.
const DefaultStrTruncTrailer = ".."

// Formatter renders values, maps and printf events. Its hooks resolve values
// that need runtime state; a nil hook falls back to a plain rendering (see
// each field). Use NewFormatter for bpftrace's defaults. A Formatter is not
// modified by its methods and may be shared between goroutines.
type Formatter struct {
	// Ksym resolves a kernel address (types.Ksym); nil prints "0x" hex.
	Ksym func(addr uint64) string
	// Usym resolves a user address of process pid (types.Usym, stored as
	// {addr, pid}); nil prints "0x" hex.
	Usym func(addr, pid uint64) string
	// Stack renders a stack id (types.Stack) of type t; nil prints the id.
	// (types.Stack is {id} for kstack and {id, pid} for ustack: pid is 0
	// for kernel stacks.)
	Stack func(t *types.Type, id, pid uint64) string
	// Timestamp renders a types.Timestamp value (nanoseconds) of type t; nil
	// prints the number.
	Timestamp func(t *types.Type, ns uint64) string
	// StrTruncTrailer is appended to strings that fill their buffer.
	StrTruncTrailer string
}

// NewFormatter returns a Formatter with bpftrace's defaults and no hooks.
func NewFormatter() *Formatter {
	return &Formatter{StrTruncTrailer: DefaultStrTruncTrailer}
}

// FormatValue renders a value of type t stored in b the way bpftrace prints
// it with print(), in map keys and map values: integers in decimal, strings
// raw, tuples as "(1, abc)", records and structs as "{ .a = 1, .b = 2 }",
// arrays as "[1,2,3]", booleans as true/false, pointers as 0x hex. Bytes
// missing from b read as zero.
func FormatValue(t *types.Type, b []byte) string {
	return NewFormatter().Value(t, b)
}

// Value is FormatValue with f's hooks and settings.
func (f *Formatter) Value(t *types.Type, b []byte) string {
	var sb strings.Builder
	f.writeValue(&sb, t, b, 0)
	return sb.String()
}

// maxDepth bounds recursion through nested types.
const maxDepth = 32

// slice returns b[off:off+n], zero-padded when b is short.
func slice(b []byte, off, n int) []byte {
	if off < 0 || n < 0 {
		return make([]byte, max(n, 0))
	}
	if off+n <= len(b) {
		return b[off : off+n]
	}
	out := make([]byte, n)
	if off < len(b) {
		copy(out, b[off:])
	}
	return out
}

// readUint reads a little-endian unsigned integer of size bytes (1, 2, 4, 8).
func readUint(b []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(slice(b, 0, 1)[0])
	case 2:
		return uint64(binary.LittleEndian.Uint16(slice(b, 0, 2)))
	case 4:
		return uint64(binary.LittleEndian.Uint32(slice(b, 0, 4)))
	default:
		return binary.LittleEndian.Uint64(slice(b, 0, 8))
	}
}

// readInt reads an integer of the given size and returns its 64-bit bits,
// sign-extended when signed.
func readInt(b []byte, size int, signed bool) uint64 {
	v := readUint(b, size)
	if !signed {
		return v
	}
	switch size {
	case 1:
		return uint64(int64(int8(v)))
	case 2:
		return uint64(int64(int16(v)))
	case 4:
		return uint64(int64(int32(v)))
	}
	return v
}

func intString(v uint64, signed bool) string {
	if signed {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatUint(v, 10)
}

// cString returns the bytes of b up to the first NUL.
func cString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

func (f *Formatter) str(t *types.Type, b []byte) string {
	b = slice(b, 0, t.Size)
	s := cString(b)
	if len(s) == t.Size && t.Size > 0 {
		return string(s) + f.StrTruncTrailer
	}
	return string(s)
}

func hexAddr(v uint64) string { return "0x" + strconv.FormatUint(v, 16) }

func (f *Formatter) writeValue(sb *strings.Builder, t *types.Type, b []byte, depth int) {
	if t == nil || depth > maxDepth {
		return
	}
	switch t.Kind {
	case types.Void:
		// a struct member without a value (float), as bpftrace prints it
		sb.WriteString("null")
	case types.Int:
		if en := t.Enum(); en != nil {
			sb.WriteString(types.EnumSymbol(en, readUint(b, t.Size), t.Size))
			return
		}
		sb.WriteString(intString(readInt(b, t.Size, t.Signed), t.Signed))
	case types.Bool:
		if readUint(b, 1) != 0 {
			sb.WriteString("true")
		} else {
			sb.WriteString("false")
		}
	case types.String:
		sb.WriteString(f.str(t, b))
	case types.Pointer, types.Ctx:
		sb.WriteString(hexAddr(readUint(b, 8)))
	case types.Tuple:
		sb.WriteString("(")
		for i, fl := range t.Fields {
			if i > 0 {
				sb.WriteString(", ")
			}
			f.writeValue(sb, fl.Type, slice(b, fl.Offset, fl.Type.Size), depth+1)
		}
		sb.WriteString(")")
	case types.Record, types.Struct:
		if len(t.Fields) == 0 {
			sb.WriteString("{}")
			return
		}
		sb.WriteString("{ ")
		for i, fl := range t.Fields {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(".")
			sb.WriteString(fl.Name)
			sb.WriteString(" = ")
			if fl.BitSize > 0 && fl.Type.IsInt() {
				sb.WriteString(bitfield(fl, b))
				continue
			}
			f.writeValue(sb, fl.Type, slice(b, fl.Offset, fl.Type.Size), depth+1)
		}
		sb.WriteString(" }")
	case types.Buf:
		sb.WriteString(hexFormatBuffer(t.BufBytes(slice(b, 0, t.Size)), true, true))
	case types.Array:
		if t.IsBuf() {
			sb.WriteString(hexFormatBuffer(slice(b, 0, t.Len), true, true))
			return
		}
		sb.WriteString("[")
		if t.Elem != nil {
			for i := 0; i < t.Len; i++ {
				if i > 0 {
					sb.WriteString(",")
				}
				f.writeValue(sb, t.Elem, slice(b, i*t.Elem.Size, t.Elem.Size), depth+1)
			}
		}
		sb.WriteString("]")
	case types.Timestamp:
		ns := readUint(b, 8)
		if f.Timestamp != nil {
			sb.WriteString(f.Timestamp(t, ns))
		} else {
			sb.WriteString(strconv.FormatUint(ns, 10))
		}
	case types.Errno:
		sb.WriteString(strerror(int64(readInt(b, 8, true))))
	case types.SyscallName:
		sb.WriteString(syscallName(int64(readInt(b, 8, true))))
	case types.Inet:
		sb.WriteString(inetString(readUint(b, 8), slice(b, 8, 16)))
	case types.CgroupPath:
		sb.WriteString(cgroupPath(readUint(b, 8), t.CgroupFilter))
	case types.MacAddr:
		m := slice(b, 0, 6)
		fmt.Fprintf(sb, "%02X:%02X:%02X:%02X:%02X:%02X", m[0], m[1], m[2], m[3], m[4], m[5])
	case types.Username:
		sb.WriteString(username(readUint(b, 8)))
	case types.SignalName:
		sb.WriteString(signalName(int64(readInt(b, 8, true))))
	case types.Ksym:
		addr := readUint(b, 8)
		if f.Ksym != nil {
			sb.WriteString(f.Ksym(addr))
		} else {
			sb.WriteString(hexAddr(addr))
		}
	case types.Usym:
		addr := readUint(b, 8)
		if f.Usym != nil {
			sb.WriteString(f.Usym(addr, readUint(slice(b, 8, 8), 8)))
		} else {
			sb.WriteString(hexAddr(addr))
		}
	case types.Stack:
		id := readUint(b, 8)
		if f.Stack != nil {
			sb.WriteString(f.Stack(t, id, readUint(slice(b, 8, 8), 8)))
		} else {
			sb.WriteString(strconv.FormatUint(id, 10))
		}
	case types.Count:
		sb.WriteString(strconv.FormatUint(readUint(b, 8), 10))
	case types.Sum, types.Min, types.Max:
		sb.WriteString(intString(readUint(b, 8), t.Signed))
	case types.Avg:
		var s stats
		s.add(b, t.Signed)
		sb.WriteString(s.avgString(1))
	case types.Stats:
		var s stats
		s.add(b, t.Signed)
		sb.WriteString(s.String(1))
	}
}

// bitfield extracts a bitfield: the storage unit is fl.Type.Size bytes at
// fl.Offset, the value is BitSize bits starting BitOffset bits into it.
func bitfield(fl types.Field, b []byte) string {
	raw := readUint(slice(b, fl.Offset, fl.Type.Size), fl.Type.Size)
	v := raw >> uint(fl.BitOffset%64)
	if fl.BitSize < 64 {
		v &= 1<<uint(fl.BitSize) - 1
		if fl.Type.Signed && v&(1<<uint(fl.BitSize-1)) != 0 {
			v |= ^uint64(0) << uint(fl.BitSize)
		}
	}
	return intString(v, fl.Type.Signed)
}

// stats accumulates avg()/stats() per-CPU values {int64 total; uint64 count}.
type stats struct {
	total, count uint64
	signed       bool
}

func (s *stats) add(b []byte, signed bool) {
	s.signed = signed
	s.total += readUint(slice(b, 0, 8), 8)
	s.count += readUint(slice(b, 8, 8), 8)
}

// avg is total/count with C's truncating division, 0 when count is 0.
func (s *stats) avg() uint64 {
	if s.count == 0 {
		return 0
	}
	if s.signed {
		return uint64(int64(s.total) / int64(s.count))
	}
	return s.total / s.count
}

func (s *stats) avgString(div uint32) string {
	return divString(s.avg(), div, s.signed)
}

// String renders stats() the way bpftrace 0.24+ does.
func (s *stats) String(div uint32) string {
	return fmt.Sprintf("{ .count = %s, .average = %s, .total = %s }",
		intString(s.count, s.signed), s.avgString(div), intString(s.total, s.signed))
}

// divString divides v (signed or not) by div and renders it.
func divString(v uint64, div uint32, signed bool) string {
	if div <= 1 {
		return intString(v, signed)
	}
	if signed {
		return strconv.FormatInt(int64(v)/int64(div), 10)
	}
	return strconv.FormatUint(v/uint64(div), 10)
}
