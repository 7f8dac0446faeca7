package debuginfo

import (
	"debug/dwarf"

	"github.com/cilium/ebpf/btf"
)

// toBTF converts a DWARF type to BTF, memoised per file (cycles through
// struct pointers end at the memoised struct); f.mu is held.
func (f *File) toBTF(t dwarf.Type) btf.Type {
	if t == nil {
		return &btf.Void{}
	}
	if b, ok := f.conv[t]; ok {
		return b
	}
	var out btf.Type
	switch v := t.(type) {
	case *dwarf.VoidType, *dwarf.UnspecifiedType:
		out = &btf.Void{}
	case *dwarf.IntType:
		out = &btf.Int{Name: v.Name, Size: uint32(v.ByteSize), Encoding: btf.Signed}
	case *dwarf.UintType:
		out = &btf.Int{Name: v.Name, Size: uint32(v.ByteSize)}
	case *dwarf.CharType:
		out = &btf.Int{Name: v.Name, Size: uint32(v.ByteSize), Encoding: btf.Signed}
	case *dwarf.UcharType:
		out = &btf.Int{Name: v.Name, Size: uint32(v.ByteSize), Encoding: btf.Char}
	case *dwarf.BoolType:
		out = &btf.Int{Name: v.Name, Size: uint32(v.ByteSize), Encoding: btf.Bool}
	case *dwarf.FloatType:
		out = &btf.Float{Name: v.Name, Size: uint32(v.ByteSize)}
	case *dwarf.ComplexType:
		out = &btf.Float{Name: v.Name, Size: uint32(v.ByteSize)}
	case *dwarf.AddrType:
		out = &btf.Int{Name: v.Name, Size: uint32(v.ByteSize)}
	case *dwarf.PtrType:
		p := &btf.Pointer{}
		f.conv[t] = p
		p.Target = f.toBTF(v.Type)
		out = p
	case *dwarf.TypedefType:
		td := &btf.Typedef{Name: v.Name}
		f.conv[t] = td
		td.Type = f.toBTF(v.Type)
		out = td
	case *dwarf.QualType:
		inner := f.toBTF(v.Type)
		switch v.Qual {
		case "const":
			out = &btf.Const{Type: inner}
		case "volatile":
			out = &btf.Volatile{Type: inner}
		case "restrict":
			out = &btf.Restrict{Type: inner}
		default:
			out = inner
		}
	case *dwarf.ArrayType:
		n := v.Count
		if n < 0 {
			n = 0
		}
		a := &btf.Array{Index: &btf.Int{Name: "__ARRAY_SIZE_TYPE__", Size: 4}, Nelems: uint32(n)}
		f.conv[t] = a
		a.Type = f.toBTF(v.Type)
		out = a
	case *dwarf.EnumType:
		e := &btf.Enum{Name: v.EnumName, Size: uint32(v.ByteSize)}
		if e.Size == 0 {
			e.Size = 4
		}
		for _, val := range v.Val {
			if val.Val < 0 {
				e.Signed = true
			}
			e.Values = append(e.Values, btf.EnumValue{Name: val.Name, Value: uint64(val.Val)})
		}
		out = e
	case *dwarf.StructType:
		out = f.structToBTF(v)
	case *dwarf.FuncType:
		out = &btf.FuncProto{Return: &btf.Void{}}
	default:
		out = &btf.Void{}
	}
	f.conv[t] = out
	return out
}

// structToBTF converts a struct, union or class; a declaration is replaced
// by the binary's definition of the same name when there is one.
func (f *File) structToBTF(v *dwarf.StructType) btf.Type {
	kind := "struct "
	if v.Kind == "union" {
		kind = "union "
	}
	if v.Incomplete {
		if v.StructName != "" && f.index != nil {
			if tr, ok := f.index.types[kind+v.StructName]; ok {
				if dt, err := tr.d.Type(tr.off); err == nil {
					if st, ok := dt.(*dwarf.StructType); ok && !st.Incomplete {
						return f.toBTF(st)
					}
				}
			}
		}
		k := btf.FwdStruct
		if v.Kind == "union" {
			k = btf.FwdUnion
		}
		return &btf.Fwd{Name: v.StructName, Kind: k}
	}
	var members []btf.Member
	var out btf.Type
	if v.Kind == "union" {
		u := &btf.Union{Name: v.StructName, Size: uint32(v.ByteSize)}
		f.conv[v] = u
		out = u
	} else {
		s := &btf.Struct{Name: v.StructName, Size: uint32(v.ByteSize)}
		f.conv[v] = s
		out = s
	}
	for _, fl := range v.Field {
		m := btf.Member{Name: fl.Name, Type: f.toBTF(fl.Type), Offset: btf.Bits(fl.ByteOffset * 8)}
		if fl.BitSize != 0 {
			m.BitfieldSize = btf.Bits(fl.BitSize)
			switch {
			case fl.DataBitOffset != 0:
				m.Offset = btf.Bits(fl.DataBitOffset)
			case fl.BitOffset != 0 || fl.ByteSize != 0:
				size := fl.ByteSize
				if size == 0 {
					size = fl.Type.Size()
				}
				m.Offset = btf.Bits(fl.ByteOffset*8 + size*8 - fl.BitOffset - fl.BitSize)
			}
		}
		members = append(members, m)
	}
	switch s := out.(type) {
	case *btf.Struct:
		s.Members = members
	case *btf.Union:
		s.Members = members
	}
	return out
}

// cName spells a type the way bpftrace lists DWARF parameters: base types
// and typedefs by name, "T*" for pointers, "struct Foo", "const T", "T*
// const", and "<unknown type>" for the rest (arrays, functions).
func cName(t dwarf.Type) string {
	return cNameDepth(t, 0)
}

func cNameDepth(t dwarf.Type, depth int) string {
	if depth > 32 {
		return "<unknown type>"
	}
	switch v := t.(type) {
	case *dwarf.VoidType:
		return "void"
	case *dwarf.IntType, *dwarf.UintType, *dwarf.CharType, *dwarf.UcharType, *dwarf.BoolType, *dwarf.FloatType, *dwarf.ComplexType:
		return t.String()
	case *dwarf.TypedefType:
		return v.Name
	case *dwarf.PtrType:
		if _, ok := v.Type.(*dwarf.VoidType); ok {
			return "void*"
		}
		return cNameDepth(v.Type, depth+1) + "*"
	case *dwarf.StructType:
		prefix := "struct "
		if v.Kind == "union" {
			prefix = "union "
		}
		if v.StructName == "" {
			return prefix + "<anonymous>"
		}
		return prefix + v.StructName
	case *dwarf.EnumType:
		if v.EnumName == "" {
			return "enum <anonymous>"
		}
		return "enum " + v.EnumName
	case *dwarf.QualType:
		if v.Qual != "const" {
			return "<unknown type>"
		}
		if _, ok := v.Type.(*dwarf.PtrType); ok {
			return cNameDepth(v.Type, depth+1) + " const"
		}
		return "const " + cNameDepth(v.Type, depth+1)
	}
	return "<unknown type>"
}
