package btfnames

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"
)

// Entry is a named type: its name and the ID that btf.Spec.TypeByID takes.
type Entry struct {
	Name string
	ID   btf.TypeID
}

// Index holds the names of one BTF blob, sorted by name.
type Index struct {
	raw      []byte  // the blob (TrampolineRefusals reads it)
	funcs    []Entry // FUNC records
	typedefs []Entry // TYPEDEF records

	// Enumerators are indexed on first use, from the enum records.
	enumOnce sync.Once
	enumScan func() map[string]btf.TypeID
	enumVals map[string]btf.TypeID // enumerator -> last ENUM/ENUM64 declaring it
}

// Funcs returns the functions, sorted by name; a name that occurs more than
// once (static functions of several units) is listed once, with its first
// ID. The slice is shared: do not modify it.
func (ix *Index) Funcs() []Entry { return ix.funcs }

// Func returns the ID of the function name.
func (ix *Index) Func(name string) (btf.TypeID, bool) { return find(ix.funcs, name) }

// Typedefs returns the typedefs whose name starts with prefix, sorted by
// name.
func (ix *Index) Typedefs(prefix string) []Entry {
	i := sort.Search(len(ix.typedefs), func(i int) bool { return ix.typedefs[i].Name >= prefix })
	j := i
	for j < len(ix.typedefs) && strings.HasPrefix(ix.typedefs[j].Name, prefix) {
		j++
	}
	return ix.typedefs[i:j]
}

// Enumerator returns the ID of the enum that declares the constant name
// (the last one, when several do).
func (ix *Index) Enumerator(name string) (btf.TypeID, bool) {
	ix.enumOnce.Do(func() {
		if ix.enumScan != nil {
			ix.enumVals = ix.enumScan()
		}
	})
	id, ok := ix.enumVals[name]
	return id, ok
}

func find(list []Entry, name string) (btf.TypeID, bool) {
	i := sort.Search(len(list), func(i int) bool { return list[i].Name >= name })
	if i < len(list) && list[i].Name == name {
		return list[i].ID, true
	}
	return 0, false
}

// BTF kinds (include/uapi/linux/btf.h).
const (
	kindInt      = 1
	kindArray    = 3
	kindStruct   = 4
	kindUnion    = 5
	kindEnum     = 6
	kindTypedef  = 8
	kindFunc     = 12
	kindProto    = 13
	kindVar      = 14
	kindDatasec  = 15
	kindDeclTag  = 17
	kindEnum64   = 19
	maxKnownKind = 19
)

// ErrFormat reports a blob this reader does not understand.
var ErrFormat = errors.New("malformed BTF")

// blob is a raw BTF blob's type section and string section.
type blob struct {
	bo       binary.ByteOrder
	types    []byte
	strBytes []byte
	strs     string // a copy of strBytes, made by copyStrings
}

// parseBlob checks the header of raw and finds its sections.
func parseBlob(raw []byte) (*blob, error) {
	if len(raw) < 24 {
		return nil, fmt.Errorf("%w: short header", ErrFormat)
	}
	var bo binary.ByteOrder
	switch {
	case binary.LittleEndian.Uint16(raw) == 0xeb9f:
		bo = binary.LittleEndian
	case binary.BigEndian.Uint16(raw) == 0xeb9f:
		bo = binary.BigEndian
	default:
		return nil, fmt.Errorf("%w: bad magic", ErrFormat)
	}
	hdrLen := bo.Uint32(raw[4:])
	typeOff, typeLen := bo.Uint32(raw[8:]), bo.Uint32(raw[12:])
	strOff, strLen := bo.Uint32(raw[16:]), bo.Uint32(raw[20:])
	body := uint64(len(raw)) - uint64(hdrLen)
	if uint64(hdrLen) > uint64(len(raw)) || uint64(typeOff)+uint64(typeLen) > body || uint64(strOff)+uint64(strLen) > body {
		return nil, fmt.Errorf("%w: sections out of bounds", ErrFormat)
	}
	return &blob{
		bo:       bo,
		types:    raw[hdrLen+typeOff : hdrLen+typeOff+typeLen],
		strBytes: raw[hdrLen+strOff : hdrLen+strOff+strLen],
	}, nil
}

// copyStrings makes the one copy of the string section that the names
// name returns are substrings of.
func (b *blob) copyStrings() { b.strs = string(b.strBytes) }

// nameIs reports whether the string at off is s, without copying it.
func (b *blob) nameIs(off uint32, s string) bool {
	if off == 0 || uint64(off)+uint64(len(s)) >= uint64(len(b.strBytes)) {
		return s == "" && off == 0
	}
	return string(b.strBytes[off:int(off)+len(s)]) == s && b.strBytes[int(off)+len(s)] == 0
}

// name returns the string at off in the string section (copyStrings must
// have been called).
func (b *blob) name(off uint32) string {
	if off == 0 || off >= uint32(len(b.strs)) {
		return ""
	}
	s := b.strs[off:]
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

// extra returns the length of the kind-specific data after a type record's
// 12-byte header.
func extraLen(kind, vlen int) (int, bool) {
	switch kind {
	case kindInt, kindVar, kindDeclTag:
		return 4, true
	case kindArray:
		return 12, true
	case kindStruct, kindUnion, kindDatasec, kindEnum64:
		return 12 * vlen, true
	case kindEnum, kindProto:
		return 8 * vlen, true
	}
	return 0, kind <= maxKnownKind
}

// Read lists the names of a raw BTF blob (the contents of
// /sys/kernel/btf/vmlinux). Split BTF (kernel modules) is not supported:
// its string offsets continue the base's.
func Read(raw []byte) (*Index, error) {
	b, err := parseBlob(raw)
	if err != nil {
		return nil, err
	}
	b.copyStrings()
	bo, types, name := b.bo, b.types, b.name

	type enumRec struct {
		id        btf.TypeID
		off, vlen int
		size      int // bytes per value
	}
	var enums []enumRec
	ix := &Index{raw: raw}
	id := btf.TypeID(1)
	for off := 0; off < len(types); id++ {
		if len(types)-off < 12 {
			return nil, fmt.Errorf("%w: truncated type %d", ErrFormat, id)
		}
		nameOff, info := bo.Uint32(types[off:]), bo.Uint32(types[off+4:])
		kind, vlen := int(info>>24&0x1f), int(info&0xffff)
		off += 12
		extra, ok := extraLen(kind, vlen)
		if !ok {
			return nil, fmt.Errorf("%w: unknown kind %d of type %d", ErrFormat, kind, id)
		}
		if len(types)-off < extra {
			return nil, fmt.Errorf("%w: truncated type %d", ErrFormat, id)
		}
		switch kind {
		case kindFunc:
			ix.funcs = append(ix.funcs, Entry{name(nameOff), id})
		case kindTypedef:
			ix.typedefs = append(ix.typedefs, Entry{name(nameOff), id})
		case kindEnum, kindEnum64:
			if vlen > 0 {
				enums = append(enums, enumRec{id, off, vlen, extra / vlen})
			}
		}
		off += extra
	}
	ix.funcs = sortUnique(ix.funcs)
	ix.typedefs = sortUnique(ix.typedefs)
	ix.enumScan = func() map[string]btf.TypeID {
		vals := map[string]btf.TypeID{}
		for _, e := range enums {
			for i := range e.vlen {
				if n := name(bo.Uint32(types[e.off+i*e.size:])); n != "" {
					vals[n] = e.id
				}
			}
		}
		return vals
	}
	return ix, nil
}

// sortUnique sorts entries by name and keeps the first ID of each name.
func sortUnique(list []Entry) []Entry {
	slices.SortStableFunc(list, func(a, b Entry) int { return strings.Compare(a.Name, b.Name) })
	return slices.CompactFunc(list, func(a, b Entry) bool { return a.Name == b.Name })
}

// FromSpec builds the index by decoding every type of spec. It is the slow
// path, for specs whose raw blob is unknown (see Register).
func FromSpec(spec *btf.Spec) (*Index, error) {
	ix := &Index{enumVals: map[string]btf.TypeID{}}
	ix.enumOnce.Do(func() {})
	for t, err := range spec.All() {
		if err != nil {
			return nil, err
		}
		var list *[]Entry
		switch t := t.(type) {
		case *btf.Func:
			list = &ix.funcs
		case *btf.Typedef:
			list = &ix.typedefs
		case *btf.Enum:
			id, err := spec.TypeID(t)
			if err != nil {
				return nil, err
			}
			for _, v := range t.Values {
				if v.Name != "" {
					ix.enumVals[v.Name] = id
				}
			}
			continue
		default:
			continue
		}
		id, err := spec.TypeID(t)
		if err != nil {
			return nil, err
		}
		*list = append(*list, Entry{t.TypeName(), id})
	}
	ix.funcs = sortUnique(ix.funcs)
	ix.typedefs = sortUnique(ix.typedefs)
	return ix, nil
}

// KernelPath is the kernel's own BTF.
const KernelPath = "/sys/kernel/btf/vmlinux"

// ReadFile lists the names of the raw BTF blob in file. The file is mapped
// rather than read when it can be (a read-only file such as
// /sys/kernel/btf/vmlinux; the mapping then lives as long as the process).
func ReadFile(file string) (*Index, error) {
	raw, err := mapFile(file)
	if err != nil {
		return nil, fmt.Errorf("read BTF names: %w", err)
	}
	ix, err := Read(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return ix, nil
}

// mapFile maps file read-only, or reads it when it cannot be mapped. The
// mapping is populated at once: the readers touch every page, and one
// page fault per page costs more than the whole scan.
func mapFile(file string) ([]byte, error) {
	raw, _, err := mapOrRead(file, true)
	return raw, err
}

// mapOrRead is mapFile, also saying whether raw is a mapping (which
// unix.Munmap may release); populate asks for every page at once.
func mapOrRead(file string, populate bool) (raw []byte, mapped bool, err error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if st.Size() > 0 {
		flags := unix.MAP_PRIVATE
		if populate {
			flags |= unix.MAP_POPULATE
		}
		if raw, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, flags); err == nil {
			return raw, true, nil
		}
	}
	raw, err = io.ReadAll(f)
	return raw, false, err
}

// registry maps a Spec to the way its index is built.
var registry struct {
	sync.Mutex
	loaders map[*btf.Spec]func() (*Index, error)
}

// Register tells For how to build the index of spec, typically by reading
// the raw blob spec was parsed from (ReadFile(KernelPath) for the kernel's
// spec). The index is built once, on first use.
func Register(spec *btf.Spec, load func() (*Index, error)) {
	if spec == nil {
		return
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.loaders == nil {
		registry.loaders = map[*btf.Spec]func() (*Index, error){}
	}
	if _, ok := registry.loaders[spec]; !ok {
		registry.loaders[spec] = sync.OnceValues(load)
	}
}

// For returns the index of spec: from the loader registered for it, or else
// built once with FromSpec.
func For(spec *btf.Spec) (*Index, error) {
	registry.Lock()
	load, ok := registry.loaders[spec]
	registry.Unlock()
	if !ok {
		Register(spec, func() (*Index, error) { return FromSpec(spec) })
		registry.Lock()
		load = registry.loaders[spec]
		registry.Unlock()
	}
	return load()
}

// RegisterKernel registers spec as parsed from the running kernel's BTF:
// its index is read from KernelPath, or, when that file is missing (BTF
// found in a vmlinux image), built from spec.
func RegisterKernel(spec *btf.Spec) {
	Register(spec, func() (*Index, error) {
		ix, err := ReadFile(KernelPath)
		if err != nil {
			return FromSpec(spec)
		}
		return ix, nil
	})
}
