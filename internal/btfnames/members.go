package btfnames

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// More BTF kinds: the ones MemberOffset looks through.
const (
	kindVolatile = 9
	kindConst    = 10
	kindRestrict = 11
	kindTypeTag  = 18
)

// ErrNotFound reports a struct or member that the blob does not have.
var ErrNotFound = errors.New("not found")

// MemberOffset returns the byte offset of the member reached from the
// struct named structName through the member names path (for example
// "task_struct", "thread_info", "status"), from a raw BTF blob, decoding
// only the records on the way: the records are walked in order only as far
// as the struct and the types its members refer to, and read in place.
// Members of anonymous structs and unions are found as if they were the
// enclosing struct's.
func MemberOffset(raw []byte, structName string, path ...string) (int, error) {
	b, err := parseBlob(raw)
	if err != nil {
		return 0, err
	}
	r := &reader{blob: b, starts: make([]int, 1, 1024)}
	r.starts[0] = -1
	root := -1
	for root < 0 {
		id, err := r.next()
		if err != nil {
			return 0, err
		}
		if id < 0 {
			return 0, fmt.Errorf("struct %s: %w", structName, ErrNotFound)
		}
		off := r.starts[id]
		info := b.bo.Uint32(b.types[off+4:])
		if info>>24&0x1f == kindStruct && b.nameIs(b.bo.Uint32(b.types[off:]), structName) {
			root = id
		}
	}
	id, total := root, 0
	for i, m := range path {
		sid, err := r.resolve(id)
		if err != nil {
			return 0, err
		}
		mid, off, ok := r.member(sid, m, 0)
		if !ok {
			return 0, fmt.Errorf("member %s of %s: %w", m, structName, ErrNotFound)
		}
		if off%8 != 0 && i == len(path)-1 {
			return 0, fmt.Errorf("member %s of %s is a bitfield", m, structName)
		}
		id, total = mid, total+off/8
	}
	return total, nil
}

// reader reads type records by ID, walking the type section only as far
// as the highest ID asked for.
type reader struct {
	*blob
	starts []int // starts[id] is the offset of type id's record; ID 0 is void
	end    int   // offset of the first record not walked yet
}

// next walks one more record and returns its ID, or -1 at the end.
func (r *reader) next() (int, error) {
	off := r.end
	if off >= len(r.types) {
		return -1, nil
	}
	id := len(r.starts)
	if len(r.types)-off < 12 {
		return 0, fmt.Errorf("%w: truncated type %d", ErrFormat, id)
	}
	info := r.bo.Uint32(r.types[off+4:])
	kind, vlen := int(info>>24&0x1f), int(info&0xffff)
	extra, ok := extraLen(kind, vlen)
	if !ok {
		return 0, fmt.Errorf("%w: unknown kind %d of type %d", ErrFormat, kind, id)
	}
	if len(r.types)-off-12 < extra {
		return 0, fmt.Errorf("%w: truncated type %d", ErrFormat, id)
	}
	r.starts = append(r.starts, off)
	r.end = off + 12 + extra
	return id, nil
}

// record returns the kind, vlen, kind_flag and header offset of type id.
func (r *reader) record(id int) (kind, vlen int, kindFlag bool, off int, err error) {
	for id >= len(r.starts) {
		n, err := r.next()
		if err != nil {
			return 0, 0, false, 0, err
		}
		if n < 0 {
			break
		}
	}
	if id <= 0 || id >= len(r.starts) {
		return 0, 0, false, 0, fmt.Errorf("%w: type ID %d out of range", ErrFormat, id)
	}
	off = r.starts[id]
	info := r.bo.Uint32(r.types[off+4:])
	return int(info >> 24 & 0x1f), int(info & 0xffff), info>>31 == 1, off, nil
}

// resolve follows typedefs and qualifiers from id to a struct or union.
func (r *reader) resolve(id int) (int, error) {
	for range 64 {
		kind, _, _, off, err := r.record(id)
		if err != nil {
			return 0, err
		}
		switch kind {
		case kindStruct, kindUnion:
			return id, nil
		case kindTypedef, kindVolatile, kindConst, kindRestrict, kindTypeTag:
			id = int(r.bo.Uint32(r.types[off+8:]))
		default:
			return 0, fmt.Errorf("type %d is not a struct or union (kind %d)", id, kind)
		}
	}
	return 0, fmt.Errorf("%w: type %d: qualifier loop", ErrFormat, id)
}

// member finds name among the members of struct or union id, descending
// into anonymous members, and returns the member's type and its bit offset
// plus base.
func (r *reader) member(id int, name string, base int) (int, int, bool) {
	_, vlen, kindFlag, off, err := r.record(id)
	if err != nil {
		return 0, 0, false
	}
	for i := range vlen {
		m := off + 12 + 12*i
		nameOff := r.bo.Uint32(r.types[m:])
		mtype := int(r.bo.Uint32(r.types[m+4:]))
		bits := int(r.bo.Uint32(r.types[m+8:]))
		if kindFlag {
			bits &= 0xffffff // the high byte is the bitfield size
		}
		if r.nameIs(nameOff, name) {
			return mtype, base + bits, true
		}
		if nameOff == 0 {
			if sid, err := r.resolve(mtype); err == nil {
				if t, o, ok := r.member(sid, name, base+bits); ok {
					return t, o, true
				}
			}
		}
	}
	return 0, 0, false
}

// MemberOffsetFile is MemberOffset on the blob in file (KernelPath for the
// running kernel).
func MemberOffsetFile(file, structName string, path ...string) (int, error) {
	// Not populated: only the records up to the struct are read.
	raw, mapped, err := mapOrRead(file, false)
	if err != nil {
		return 0, fmt.Errorf("read BTF: %w", err)
	}
	if mapped {
		// Nothing refers to the blob afterwards.
		defer unix.Munmap(raw)
	}
	off, err := MemberOffset(raw, structName, path...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", file, err)
	}
	return off, nil
}
