package check

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/internal/btfnames"
	"github.com/gotrace/gotrace/lang/types"
)

// hasUserTag reports whether a pointee carries the __user type tag.
func hasUserTag(t btf.Type) bool {
	for i := 0; i < 64; i++ {
		switch v := t.(type) {
		case *btf.TypeTag:
			if v.Value == "user" {
				return true
			}
			t = v.Type
		case *btf.Const:
			t = v.Type
		case *btf.Volatile:
			t = v.Type
		case *btf.Restrict:
			t = v.Type
		default:
			return false
		}
	}
	return false
}

// compositeName renders "struct x" / "union x".
func compositeName(t btf.Type) string {
	switch v := t.(type) {
	case *btf.Struct:
		return "struct " + v.Name
	case *btf.Union:
		return "union " + v.Name
	}
	return t.TypeName()
}

// btfToType converts a BTF type into a gotrace type. Structs and unions are
// converted shallowly: their members are looked up in BTF when accessed.
// Pointers read from kernel memory live in the kernel address space unless
// as says otherwise.
func btfToType(t btf.Type, as types.AddrSpace) *types.Type {
	t = btf.UnderlyingType(t)
	switch v := t.(type) {
	case *btf.Int:
		if v.Encoding == btf.Bool {
			return &types.Type{Kind: types.Bool, Size: int(v.Size), BTF: v}
		}
		size := int(v.Size)
		if size != 1 && size != 2 && size != 4 && size != 8 {
			size = 8
		}
		return &types.Type{Kind: types.Int, Size: size, Signed: v.Encoding == btf.Signed, BTF: v}
	case *btf.Enum:
		size := int(v.Size)
		if size != 1 && size != 2 && size != 4 && size != 8 {
			size = 4
		}
		return &types.Type{Kind: types.Int, Size: size, Signed: v.Signed, BTF: v, Name: "enum " + v.Name}
	case *btf.Pointer:
		if hasUserTag(v.Target) {
			as = types.User
		}
		elem := btf.UnderlyingType(v.Target)
		var et *types.Type
		switch e := elem.(type) {
		case *btf.Void, *btf.FuncProto, *btf.Func:
			et = types.VoidT
		case *btf.Pointer:
			et = &types.Type{Kind: types.Pointer, Size: 8, Elem: types.VoidT, AS: as, BTF: e}
			if inner := btfToType(e, as); inner != nil {
				et = inner
			}
		default:
			et = btfToType(elem, as)
		}
		if et == nil {
			et = types.VoidT
		}
		return &types.Type{Kind: types.Pointer, Size: 8, Elem: et, AS: as, BTF: v}
	case *btf.Struct, *btf.Union:
		size, _ := btf.Sizeof(v)
		return &types.Type{Kind: types.Struct, Size: size, Name: compositeName(v), BTF: v, AS: as}
	case *btf.Array:
		elem := btf.UnderlyingType(v.Type)
		if i, ok := elem.(*btf.Int); ok && i.Size == 1 && (i.Encoding == btf.Char || i.Encoding == btf.Signed || i.Name == "char" || i.Name == "unsigned char") {
			return &types.Type{Kind: types.String, Size: int(v.Nelems), Name: InlineString, BTF: v}
		}
		et := btfToType(elem, as)
		if et == nil {
			return nil
		}
		size, _ := btf.Sizeof(v)
		return &types.Type{Kind: types.Array, Size: size, Len: int(v.Nelems), Elem: et, BTF: v, AS: as}
	case *btf.Void:
		return types.VoidT
	}
	return nil
}

// errNoMember is wrapped by findMember when a member does not exist.
var errNoMember = errors.New("no such member")

// findMember looks up a member by name in a struct or union, descending
// into anonymous struct and union members at any depth. It returns the
// member with its byte offset from the start of t, and bit offset/size for
// bitfields.
func findMember(t btf.Type, name string) (types.Field, btf.Type, error) {
	members := compositeMembers(btf.UnderlyingType(t))
	if members == nil {
		return types.Field{}, nil, fmt.Errorf("%s is not a struct or union", t.TypeName())
	}
	for _, m := range members {
		if m.Name == name {
			f := types.Field{Name: name, Offset: int(m.Offset / 8)}
			if m.BitfieldSize > 0 || m.Offset%8 != 0 {
				size, _ := btf.Sizeof(m.Type)
				unit := int(m.Offset) / (size * 8) * size
				f.Offset = unit
				f.BitOffset = int(m.Offset) - unit*8
				f.BitSize = int(m.BitfieldSize)
				if f.BitSize == 0 {
					f.BitSize = size * 8
				}
			}
			return f, m.Type, nil
		}
	}
	for _, m := range members {
		if m.Name != "" {
			continue
		}
		if f, mt, err := findMember(m.Type, name); err == nil {
			f.Offset += int(m.Offset / 8)
			return f, mt, nil
		}
	}
	return types.Field{}, nil, errNoMember
}

func compositeMembers(t btf.Type) []btf.Member {
	switch v := t.(type) {
	case *btf.Struct:
		return v.Members
	case *btf.Union:
		return v.Members
	}
	return nil
}

// memberNames lists every member reachable by name, for error hints.
func memberNames(t btf.Type, out []string) []string {
	for _, m := range compositeMembers(btf.UnderlyingType(t)) {
		if m.Name == "" {
			out = memberNames(m.Type, out)
			continue
		}
		out = append(out, m.Name)
	}
	return out
}

// closeMatches returns up to n names from cands that look like name.
func closeMatches(name string, cands []string, n int) []string {
	type scored struct {
		s string
		d int
	}
	var list []scored
	for _, c := range cands {
		d := editDistance(name, c)
		if d <= max(2, len(name)/3) || strings.Contains(c, name) || strings.Contains(name, c) {
			list = append(list, scored{c, d})
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].d < list[j].d })
	var out []string
	for i := 0; i < len(list) && i < n; i++ {
		out = append(out, list[i].s)
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// lookupKernelType finds "struct x", "union x", "enum x" or a typedef name in BTF.
func lookupKernelType(spec *btf.Spec, name string) (btf.Type, error) {
	var err error
	switch {
	case strings.HasPrefix(name, "struct "):
		var s *btf.Struct
		err = spec.TypeByName(strings.TrimSpace(name[len("struct "):]), &s)
		if err == nil {
			return s, nil
		}
	case strings.HasPrefix(name, "union "):
		var u *btf.Union
		err = spec.TypeByName(strings.TrimSpace(name[len("union "):]), &u)
		if err == nil {
			return u, nil
		}
	case strings.HasPrefix(name, "enum "):
		var e *btf.Enum
		err = spec.TypeByName(strings.TrimSpace(name[len("enum "):]), &e)
		if err == nil {
			return e, nil
		}
	default:
		var td *btf.Typedef
		err = spec.TypeByName(name, &td)
		if err == nil {
			return td, nil
		}
	}
	return nil, err
}

// enumOf returns the kernel enum that declares the constant name, decoding
// only that enum, or nil.
func enumOf(spec *btf.Spec, name string) *btf.Enum {
	ix, err := btfnames.For(spec)
	if err != nil {
		return nil
	}
	id, ok := ix.Enumerator(name)
	if !ok {
		return nil
	}
	t, err := spec.TypeByID(id)
	if err != nil {
		return nil
	}
	en, _ := t.(*btf.Enum)
	return en
}

// enumValue looks up a kernel enum constant (e.g. TASK_RUNNING,
// SKB_DROP_REASON_NOT_SPECIFIED) in BTF, decoding only the enum that
// declares it, which it returns with the value (nil when name is none).
func (c *checker) enumValue(name string) (builtin.Const, *btf.Enum) {
	if builtin.LookupVar(name) != nil || c.env == nil {
		return builtin.Const{}, nil
	}
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return builtin.Const{}, nil
	}
	if en := enumOf(spec, name); en != nil {
		for _, v := range en.Values {
			if v.Name == name {
				return builtin.Const{Int: v.Value}, en
			}
		}
	}
	return builtin.Const{}, nil
}
