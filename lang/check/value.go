package check

import (
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

// MaxValueSize bounds a struct or array copied by value out of kernel or
// user memory (into a variable, a map key or value, a tuple): such values
// are built on the 512-byte BPF stack, next to the statement's other
// temporaries. The checker refuses larger ones before any code is
// generated.
const MaxValueSize = 256

// isKernelValue reports whether t is a struct, union or array that lives in
// kernel or user memory (it still has its BTF type): storing it copies it.
func isKernelValue(t *types.Type) bool {
	return (t.Kind == types.Struct || t.Kind == types.Array) && t.BTF != nil
}

// valueType returns the type a struct, union or array read out of kernel or
// user memory has once copied into BPF memory: its layout spelled out as
// fields (nested structs and arrays too) and no BTF type, which is how the
// code generator and the output tell a value from kernel memory. Other
// types are returned as they are. It reports a positioned error, and
// returns nil, for a value larger than MaxValueSize.
func (c *checker) valueType(at srcpos.Spanned, t *types.Type) *types.Type {
	if !isKernelValue(t) {
		return t
	}
	if !c.fitsValue(at, t) {
		return nil
	}
	return copiedType(t, 0)
}

// fitsValue reports whether a struct or array value of type t is at most
// MaxValueSize bytes, and reports a positioned error when it is not.
func (c *checker) fitsValue(at srcpos.Spanned, t *types.Type) bool {
	if t.Size <= MaxValueSize {
		return true
	}
	c.errorf(at, "%s is %d bytes: values larger than %d bytes cannot be copied by value (the BPF stack is 512 bytes); store a pointer to it or one of its members", t, t.Size, MaxValueSize)
	return false
}

// copiedType is valueType without the size check.
func copiedType(t *types.Type, depth int) *types.Type {
	if t == nil || depth > 32 {
		return t
	}
	switch {
	case t.Kind == types.Array && t.BTF != nil:
		at := *t
		at.Elem = copiedType(t.Elem, depth+1)
		at.BTF, at.AS = nil, types.NoAS
		return &at
	case t.Kind == types.Struct && t.BTF != nil:
		st := &types.Type{Kind: types.Struct, Size: t.Size, Name: t.Name}
		st.Fields = structFields(t.BTF, 0, depth, nil)
		return st
	case t.Kind == types.String && t.BTF != nil:
		s := *t
		s.BTF = nil
		return &s
	}
	return t
}

// structFields lists the members of a BTF struct or union at byte offset
// base, members of anonymous structs and unions inlined, each with its type
// copied as valueType does.
func structFields(bt btf.Type, base, depth int, out []types.Field) []types.Field {
	for _, m := range compositeMembers(btf.UnderlyingType(bt)) {
		if m.Name == "" {
			out = structFields(m.Type, base+int(m.Offset/8), depth, out)
			continue
		}
		f, mt, err := findMember(bt, m.Name)
		if err != nil {
			continue
		}
		ft := btfToType(mt, types.NoAS)
		if ft == nil {
			// A member of a type gotrace has no value for (float,
			// double) is kept, as bpftrace keeps it with its none type:
			// it prints as null and cannot be read.
			size, _ := btf.Sizeof(mt)
			f.Type = &types.Type{Kind: types.Void, Size: size, Name: mt.TypeName()}
			f.Offset += base
			out = append(out, f)
			continue
		}
		if f.BitSize > 0 && ft.Kind == types.Int {
			ft = types.NewInt(ft.Size, ft.Signed)
		}
		f.Type = copiedType(ft, depth+1)
		f.Offset += base
		out = append(out, f)
	}
	return out
}

// fieldOf looks up a field of a struct value (one copied into BPF memory).
func fieldOf(t *types.Type, name string) (types.Field, bool) {
	for _, f := range t.Fields {
		if f.Name == name {
			return f, true
		}
	}
	return types.Field{}, false
}

// comparableValues reports whether == and != compare a and b byte by byte:
// arrays of the same type, tuples and records that unify (compared in
// their unified layout), and buf() values.
func comparableValues(a, b *types.Type) bool {
	if a.IsBuf() && b.IsBuf() {
		return true // bufs of different lengths differ
	}
	switch a.Kind {
	case types.Array:
		return types.Equal(a, b) && a.Size == b.Size
	case types.Tuple, types.Record:
		_, ok := unify(a, b)
		return ok
	}
	return false
}

// UnifyTypes returns the type that holds values of types a and b, as
// assignments and comparisons unify them (tuples field by field, strings
// resized to the larger).
func UnifyTypes(a, b *types.Type) (*types.Type, bool) { return unify(a, b) }
