package debuginfo

import (
	"debug/dwarf"
	"fmt"
)

// index maps the names of a binary's functions and top-level types to
// their entries. It is built on first use by one pass over the top-level
// entries of every compilation unit (children are skipped).
type index struct {
	funcs map[string]ref // defined functions (with code) first
	types map[string]ref // "struct Foo", "union U", "enum E", "size_t"
	names []string       // function names, in DWARF order
}

// ref is an entry of one of the file's DWARF data sets (the binary's, or
// a split unit's).
type ref struct {
	d   *dwarf.Data
	off dwarf.Offset
}

// ensureIndex builds the index; f.mu is held.
func (f *File) ensureIndex() (*index, error) {
	if f.index != nil {
		return f.index, nil
	}
	ix := &index{funcs: map[string]ref{}, types: map[string]ref{}}
	for _, d := range f.units {
		if err := ix.addUnits(d, f.Debug); err != nil {
			return nil, err
		}
	}
	f.index = ix
	return ix, nil
}

// addUnits indexes the top-level entries of every compilation unit of d.
func (ix *index) addUnits(d *dwarf.Data, file string) error {
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil {
			return fmt.Errorf("reading the DWARF of %s: %w", file, err)
		}
		if cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit && cu.Tag != dwarf.TagPartialUnit && cu.Tag != dwarf.TagSkeletonUnit {
			r.SkipChildren()
			continue
		}
		if !cu.Children {
			continue
		}
		for {
			e, err := r.Next()
			if err != nil {
				return fmt.Errorf("reading the DWARF of %s: %w", file, err)
			}
			if e == nil || e.Tag == 0 {
				break
			}
			ix.add(d, e)
			if e.Children {
				r.SkipChildren()
			}
		}
	}
	return nil
}

// add records one top-level entry.
func (ix *index) add(d *dwarf.Data, e *dwarf.Entry) {
	declaration, _ := e.Val(dwarf.AttrDeclaration).(bool)
	switch e.Tag {
	case dwarf.TagSubprogram:
		name := entryName(d, e)
		if name == "" || declaration {
			return // a declaration's parameters are unnamed, and it has no code
		}
		_, hasCode := e.Val(dwarf.AttrLowpc).(uint64)
		if _, ok := e.Val(dwarf.AttrRanges).(int64); ok {
			hasCode = true
		}
		if old, seen := ix.funcs[name]; seen {
			if !hasCode {
				return
			}
			if oe := entryAt(old.d, old.off); oe != nil {
				if _, ok := oe.Val(dwarf.AttrLowpc).(uint64); ok {
					return // keep the first definition
				}
			}
		} else {
			ix.names = append(ix.names, name)
		}
		ix.funcs[name] = ref{d, e.Offset}
	case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagEnumerationType, dwarf.TagTypedef, dwarf.TagClassType:
		name, _ := e.Val(dwarf.AttrName).(string)
		if name == "" {
			return
		}
		switch e.Tag {
		case dwarf.TagStructType, dwarf.TagClassType:
			name = "struct " + name
		case dwarf.TagUnionType:
			name = "union " + name
		case dwarf.TagEnumerationType:
			name = "enum " + name
		}
		if old, seen := ix.types[name]; seen && (declaration || !isDeclaration(old.d, old.off)) {
			return
		}
		ix.types[name] = ref{d, e.Offset}
	}
}

// entryAt reads the entry at off, or nil.
func entryAt(d *dwarf.Data, off dwarf.Offset) *dwarf.Entry {
	r := d.Reader()
	r.Seek(off)
	e, err := r.Next()
	if err != nil {
		return nil
	}
	return e
}

func isDeclaration(d *dwarf.Data, off dwarf.Offset) bool {
	e := entryAt(d, off)
	if e == nil {
		return true
	}
	decl, _ := e.Val(dwarf.AttrDeclaration).(bool)
	return decl
}

// origin returns the entry e's attributes come from when it is a concrete
// instance or an out-of-line definition (abstract origin, specification).
func origin(d *dwarf.Data, e *dwarf.Entry) *dwarf.Entry {
	for _, a := range []dwarf.Attr{dwarf.AttrAbstractOrigin, dwarf.AttrSpecification} {
		if off, ok := e.Val(a).(dwarf.Offset); ok {
			return entryAt(d, off)
		}
	}
	return nil
}

// entryName returns the name of e, following its origin.
func entryName(d *dwarf.Data, e *dwarf.Entry) string {
	for i := 0; e != nil && i < 4; i++ {
		if n, ok := e.Val(dwarf.AttrName).(string); ok {
			return n
		}
		e = origin(d, e)
	}
	return ""
}

// entryType returns the offset of e's DW_AT_type, following its origin.
func entryType(d *dwarf.Data, e *dwarf.Entry) (dwarf.Offset, bool) {
	for i := 0; e != nil && i < 4; i++ {
		if t, ok := e.Val(dwarf.AttrType).(dwarf.Offset); ok {
			return t, true
		}
		e = origin(d, e)
	}
	return 0, false
}
