package check

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

// kernelBTF returns the kernel's BTF or reports why it is unavailable.
func (c *checker) kernelBTF(pos srcpos.Pos) (*btf.Spec, error) {
	if c.env == nil {
		c.errorf(pos, "kernel BTF is unavailable")
		return nil, errors.New("no environment")
	}
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		c.errorf(pos, "kernel BTF is unavailable (/sys/kernel/btf/vmlinux): %v", err)
		return nil, fmt.Errorf("no BTF: %w", err)
	}
	return spec, nil
}

func (c *checker) field(e *ast.Field) *types.Type {
	xt := c.expr(e.X)
	if xt == nil {
		return nil
	}
	switch xt.Kind {
	case types.Record, types.Tuple:
		for i, f := range xt.Fields {
			if f.Name == e.Name {
				c.info.Members[e] = f
				c.foldMember(e, i)
				return f.Type
			}
		}
		var names []string
		for _, f := range xt.Fields {
			names = append(names, f.Name)
		}
		if why := c.argsUnplaced(e.Name); xt.Args && why != "" {
			c.errorf(e, "%s", why)
		} else if xt.Args {
			what := "argument"
			if c.probe.Def().ArgsInCtx {
				what = "field"
			}
			c.errorf(e, "%s has no %s %q (%ss: %s)", c.probe.Points[0].Name, what, e.Name, what, strings.Join(names, ", "))
		} else {
			c.errorf(e, "%s has no field %q", xt, e.Name)
		}
		return nil
	case types.Pointer:
		if xt.Elem.Kind != types.Struct {
			c.errorf(e, "cannot access field %q of %s", e.Name, xt)
			return nil
		}
		return c.member(e, xt.Elem)
	case types.Struct:
		if xt.BTF == nil {
			// a struct value copied into BPF memory
			f, ok := fieldOf(xt, e.Name)
			if !ok {
				c.errorf(e, "%s has no member %q", xt, e.Name)
				return nil
			}
			if f.Type.Kind == types.Void {
				c.errorf(e, "member %s of %s has an unsupported type (%s)", e.Name, xt.Name, f.Type.Name)
				return nil
			}
			c.info.Members[e] = f
			return f.Type
		}
		return c.member(e, xt)
	}
	c.errorf(e, "cannot access field %q of %s", e.Name, xt)
	return nil
}

// member resolves a struct or union member through BTF, including members
// of anonymous structs and unions.
func (c *checker) member(e *ast.Field, st *types.Type) *types.Type {
	if st.BTF == nil {
		c.errorf(e, "%s has no type information", st)
		return nil
	}
	f, mt, err := findMember(st.BTF, e.Name)
	if err != nil {
		msg := fmt.Sprintf("%s has no member %q", st.Name, e.Name)
		if near := closeMatches(e.Name, memberNames(st.BTF, nil), 5); len(near) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(near, ", "))
		}
		c.errorf(e, "%s", msg)
		return nil
	}
	ft := btfToType(mt, st.AS)
	if ft == nil {
		c.errorf(e, "member %s of %s has an unsupported type (%s)", e.Name, st.Name, mt.TypeName())
		return nil
	}
	if f.BitSize > 0 && ft.Kind == types.Int {
		ft = types.NewInt(ft.Size, ft.Signed)
	}
	f.Type = ft
	c.info.Members[e] = f
	return ft
}

// sizeof is a compile-time constant: the size of a type or of an
// expression's type.
func (c *checker) sizeof(e *ast.SizeofExpr) *types.Type {
	var t *types.Type
	switch {
	case e.Type != nil:
		t = c.resolveType(e.Type)
	default:
		if id, ok := e.X.(*ast.Ident); ok && builtin.LookupVar(id.Name) == nil && !c.isConstName(id.Name) {
			// sizeof(name): a type name such as a typedef.
			t = c.resolveType(&ast.TypeExpr{Span: id.Span, Name: id.Name})
		} else {
			t = c.expr(e.X)
		}
	}
	if t == nil {
		return nil
	}
	if e.X != nil {
		// a value has the size of its own type: 1 for 1 and for $x = 1,
		// 4 for @m = (int32)1
		if own := c.ownType(e.X, t); own.Kind == t.Kind {
			t = own
		}
	}
	size := t.Size
	if t.Kind == types.Pointer {
		size = 8
	}
	if e.Type != nil && e.Type.IsArray {
		// sizeof(uint64[4]): 64-bit arithmetic, so no length wraps.
		if e.Type.ArrayLen <= 0 {
			c.errorf(e.Type, "sizeof needs the length of the array")
			return nil
		}
		size *= e.Type.ArrayLen
	}
	c.info.Consts[e] = builtin.Const{Int: uint64(size)}
	return types.Uint64
}

// offsetof is a compile-time constant: a member's offset, through nested
// and anonymous members.
func (c *checker) offsetof(e *ast.OffsetofExpr) *types.Type {
	var t *types.Type
	switch {
	case e.Type != nil:
		t = c.resolveType(e.Type)
	default:
		if id, ok := e.X.(*ast.Ident); ok {
			// offsetof(name, f): a typedef, or a struct or union named
			// without its keyword
			name := c.bareComposite(id.Name)
			t = c.resolveType(&ast.TypeExpr{Span: id.Span, Name: name})
		} else {
			t = c.expr(e.X)
		}
	}
	if t == nil {
		return nil
	}
	if t.Kind == types.Pointer {
		t = t.Elem
	}
	if t.Kind != types.Struct || t.BTF == nil {
		c.errorf(e, "offsetof() needs a struct or union, not %s", t)
		return nil
	}
	bt := t.BTF
	off := 0
	for _, name := range e.Field {
		f, mt, err := findMember(bt, name)
		if err != nil {
			c.errorf(e, "%s has no member %q", compositeName(btf.UnderlyingType(bt)), name)
			return nil
		}
		off += f.Offset
		bt = mt
	}
	c.info.Consts[e] = builtin.Const{Int: uint64(off)}
	return types.Uint64
}

// isConstName reports whether name is a #define constant or an
// enumerator (of the script or the kernel), a value rather than a type.
func (c *checker) isConstName(name string) bool {
	if _, ok := c.defines[name]; ok {
		return true
	}
	_, en := c.enumValue(name)
	return en != nil
}

// bareComposite returns "struct name" or "union name" when name is not a
// type name but a struct or union of the script or the kernel has it;
// otherwise name.
func (c *checker) bareComposite(name string) string {
	if _, ok := c.ctypes[name]; ok || strings.Contains(name, " ") {
		return name
	}
	for _, kind := range []string{"struct ", "union "} {
		if _, ok := c.ctypes[kind+name]; ok {
			return kind + name
		}
	}
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return name
	}
	if _, err := lookupKernelType(spec, name); err == nil {
		return name
	}
	for _, kind := range []string{"struct ", "union "} {
		if _, err := lookupKernelType(spec, kind+name); err == nil {
			return kind + name
		}
	}
	return name
}

// isArgsField reports whether x is args.name (a field of the probe's
// arguments, which live in kernel memory).
func isArgsField(x ast.Expr) bool {
	f, ok := x.(*ast.Field)
	if !ok {
		return false
	}
	return builtin.IsFields(f.X)
}
