package check

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

func (c *checker) cast(e *ast.Cast) *types.Type {
	t := c.expr(e.X)
	if t == nil {
		return nil
	}
	te := e.Type
	if te.IsArray {
		return c.arrayCast(e, t)
	}
	nt := c.resolveType(te)
	if nt == nil {
		return nil
	}
	if cv, ok := c.info.Consts[e.X]; ok && !cv.IsStr && nt.IsInt() {
		c.info.Consts[e] = builtin.Const{Int: types.Truncate(cv.Int, nt)}
	}
	switch {
	case nt.Kind == types.Pointer && (t.Kind == types.Array || t.Kind == types.String):
		// (char *)p->comm: the address of an array member in memory, as
		// bpftrace allows; in the address space of the pointer it hangs
		// from
		as, ok := c.memberAddrSpace(e.X)
		if !ok {
			c.errorf(e, "cannot cast %s to %s: only an array member reached through a pointer (e.g. (char *)curtask->comm) has an address", t, nt)
			return nil
		}
		nt = types.WithAS(nt, as)
	case nt.Kind == types.Pointer:
		if !t.IsInt() && t.Kind != types.Pointer {
			c.errorf(e, "cannot cast %s to %s", t, nt)
			return nil
		}
		// The pointer keeps the address space of the value cast (a user
		// pointer stays one); an integer from nowhere in particular
		// points into the probe's own address space, user memory in a
		// uprobe, as bpftrace decides.
		as := t.AS
		if as == types.NoAS {
			as = c.probeAddrSpace()
		}
		nt = types.WithAS(nt, as)
	case nt.Kind == types.Bool && t.Kind == types.String:
		// true unless the string is empty
		if cv, ok := c.info.Consts[e.X]; ok && cv.IsStr {
			c.info.Consts[e] = builtin.Const{Int: map[bool]uint64{true: 1}[cv.Str != ""]}
		}
	case nt.IsInt() && (t.Kind == types.Array || t.Kind == types.String) && t.Size == nt.Size:
		// reinterpret the bytes of an array (e.g. (uint32)pton("1.2.3.4"),
		// or a uint8_t[4] member, which reads as a string)
	case nt.IsInt():
		if !t.IsInt() && t.Kind != types.Pointer {
			c.errorf(e, "cannot cast %s to %s", t, nt)
			return nil
		}
		c.unnecessaryCast(e, t, nt)
	default:
		c.errorf(e, "cannot cast to %s: only integer and pointer casts are supported", nt)
		return nil
	}
	return nt
}

// memberAddrSpace reports whether x is a member reached through a pointer
// (p->f, p->s.f), whose address codegen can take, and the address space
// of that pointer.
func (c *checker) memberAddrSpace(x ast.Expr) (types.AddrSpace, bool) {
	f, ok := ast.Unparen(x).(*ast.Field)
	if !ok {
		return types.NoAS, false
	}
	switch pt := c.info.Types[f.X]; {
	case pt == nil:
		return types.NoAS, false
	case pt.Kind == types.Pointer:
		as := pt.AS
		if as == types.NoAS {
			as = c.probeAddrSpace()
		}
		return as, true
	case pt.Kind == types.Struct:
		return c.memberAddrSpace(f.X)
	}
	return types.NoAS, false
}

// probeAddrSpace is the address space a pointer made from a plain integer
// reads in the current probe: user memory in probes of user programs
// (uprobe, uretprobe), kernel memory in probes of kernel functions and
// events (kprobe, fentry, tracepoint, rawtracepoint), and either (NoAS)
// in probes with no context of their own (begin, interval, profile).
func (c *checker) probeAddrSpace() types.AddrSpace {
	if c.probe == nil {
		return types.Kernel
	}
	def := c.probe.Def()
	switch {
	case def.UserBinary:
		return types.User
	case def.Func || def.ArgN || def.ArgsType != nil:
		return types.Kernel
	}
	return types.NoAS
}

// resolveType turns a written type into a type: bpftrace's integer names,
// C integer names, or kernel types found in BTF, with pointers applied.
func (c *checker) resolveType(te *ast.TypeExpr) *types.Type {
	if te.Of != nil {
		// typeof(expr): the expression is typed, never evaluated
		t := c.typeofExpr(te.Of)
		if t == nil {
			return nil
		}
		for i := 0; i < te.Pointers; i++ {
			t = &types.Type{Kind: types.Pointer, Size: 8, Elem: t, AS: types.Kernel}
		}
		return t
	}
	t := intTypeByName(te.Name)
	if t == nil {
		t = c.cIntType(te.Name)
	}
	if t == nil && te.Name == "void" {
		t = types.VoidT
	}
	if ct, ok := c.ctypes[te.Name]; ok && t == nil {
		t = btfToType(ct, types.Kernel)
	}
	if t == nil {
		spec, err := c.kernelBTF(te.Pos())
		if err != nil {
			return nil
		}
		bt, err := lookupKernelType(spec, te.Name)
		if err != nil {
			bt = c.dwarfType(te.Name)
		}
		if bt == nil {
			c.errorf(te, "unknown type %q: not found in the kernel's BTF", te.Name)
			return nil
		}
		t = btfToType(bt, types.Kernel)
		if t == nil {
			c.errorf(te, "type %q is not supported", te.Name)
			return nil
		}
	}
	for i := 0; i < te.Pointers; i++ {
		t = &types.Type{Kind: types.Pointer, Size: 8, Elem: t, AS: types.Kernel}
	}
	return t
}

// typeofExpr is the type typeof(x) names, as bpftrace 0.26 gives it: the
// key type of a map with keys (the one key's, or the tuple of its keys),
// else the type of the value before storage widens it (uint16 for a
// variable assigned (uint16)1, int16 for 1000).
func (c *checker) typeofExpr(x ast.Expr) *types.Type {
	if m, ok := x.(*ast.MapRef); ok && m.Keys == nil {
		mt := c.prog.Maps[m.Name]
		if mt == nil || !mt.keysSet {
			// not typed yet: the first pass leaves the map to its uses
			if !c.quiet {
				c.errorf(m, "undefined map %s", m.Name)
			}
			return nil
		}
		if mt.Keys != nil {
			keys := mt.ownKeys
			if len(keys) != len(mt.Keys) {
				keys = mt.Keys
			}
			if len(keys) == 1 {
				return keys[0]
			}
			return types.NewTuple(keys, nil)
		}
	}
	t := c.expr(x)
	if t == nil {
		return nil
	}
	for {
		// a block's value is its last expression's
		b, ok := x.(*ast.BlockExpr)
		if !ok || len(b.Body.Stmts) == 0 {
			break
		}
		last, ok := b.Body.Stmts[len(b.Body.Stmts)-1].(*ast.ExprStmt)
		if !ok {
			break
		}
		x = last.X
	}
	return c.ownType(x, t)
}

// plainChar is the type of C's plain char: the kernel BTF's "char", as
// bpftrace takes it. Kernels since 6.2 build with -funsigned-char, so
// their char is uint8 ((char)200 prints 200, and a tracepoint's char *
// points to uint8); older kernels' is int8, and so is char without BTF.
func (c *checker) plainChar() *types.Type {
	if c.charType != nil {
		return c.charType
	}
	c.charType = types.Int8
	if c.env != nil {
		if spec, err := c.env.BTF(); err == nil && spec != nil {
			var ch *btf.Int
			if spec.TypeByName("char", &ch) == nil && ch.Size == 1 && ch.Encoding&btf.Signed == 0 {
				c.charType = types.Uint8
			}
		}
	}
	return c.charType
}

// cIntType resolves C integer type names (plain char as plainChar).
func (c *checker) cIntType(name string) *types.Type {
	switch name {
	case "char":
		return c.plainChar()
	case "signed char", "s8", "__s8":
		return types.Int8
	case "unsigned char", "u8", "__u8":
		return types.Uint8
	case "short", "signed short", "short int", "s16", "__s16":
		return types.Int16
	case "unsigned short", "unsigned short int", "u16", "__u16":
		return types.Uint16
	case "int", "signed", "signed int", "s32", "__s32":
		return types.Int32
	case "unsigned", "unsigned int", "u32", "__u32":
		return types.Uint32
	case "long", "long int", "signed long", "long long", "long long int", "s64", "__s64", "ssize_t":
		return types.Int64
	case "unsigned long", "unsigned long int", "unsigned long long", "unsigned long long int", "u64", "__u64", "size_t":
		return types.Uint64
	}
	return nil
}

func typeExprString(t *ast.TypeExpr) string {
	s := t.Name + strings.Repeat("*", t.Pointers)
	if t.IsArray {
		s += fmt.Sprintf("[%d]", t.ArrayLen)
	}
	return s
}

// intTypeByName resolves bpftrace's integer type names.
func intTypeByName(name string) *types.Type {
	switch name {
	case "int8":
		return types.Int8
	case "int16":
		return types.Int16
	case "int32":
		return types.Int32
	case "int64":
		return types.Int64
	case "uint8":
		return types.Uint8
	case "uint16":
		return types.Uint16
	case "uint32":
		return types.Uint32
	case "uint64":
		return types.Uint64
	case "bool":
		return types.BoolT
	}
	return nil
}

// unnecessaryCast warns, as bpftrace 0.27 does, about a cast of a value
// to the integer type it already has (its own type: int8 for 1 and for
// $a = (int8)1), under the parenthesised type.
func (c *checker) unnecessaryCast(e *ast.Cast, t, nt *types.Type) {
	own := c.ownType(e.X, t)
	if nt.Kind != types.Int || own.Kind != types.Int || own.Size != nt.Size || own.Signed != nt.Signed || nt.Enum() != nil || e.Type.Typeof {
		return
	}
	c.warnOnceSpan(bpfSpan(e), fmt.Sprintf("Unnecessary cast: expression is already of type %s", nt))
}

// bpfSpan is the span bpftrace gives e in its messages: without the
// parentheses around it, only the parenthesised type of a cast, and a
// binary operation from its innermost left operand (bpftrace's parser
// drops the parentheses before it, not those after).
func bpfSpan(e ast.Expr) srcpos.Span {
	switch x := ast.Unparen(e).(type) {
	case *ast.Cast:
		sp := srcpos.Span{Start: x.Span.Start, End: x.Type.Span.End}
		sp.End.Column++ // the closing parenthesis
		sp.End.Offset++
		return sp
	case *ast.Binary:
		return srcpos.Span{Start: bpfStart(x), End: x.Span.End}
	default:
		return x.GetSpan()
	}
}

// bpfStart is where bpftrace's location of e starts: inside its
// parentheses, at its left operand's for a binary operation.
func bpfStart(e ast.Expr) srcpos.Pos {
	if b, ok := ast.Unparen(e).(*ast.Binary); ok {
		return bpfStart(b.X)
	}
	return ast.Unparen(e).GetSpan().Start
}

// arrayCast types (T[N])x: the bytes of an integer (or of another array or
// string of the same size) seen as an array, e.g. (uint8[4])$addr; an
// integer whose own type is smaller than an array of at most 8 bytes
// fills its first bytes.
func (c *checker) arrayCast(e *ast.Cast, t *types.Type) *types.Type {
	te := e.Type
	elem := c.resolveType(&ast.TypeExpr{Span: te.Span, Name: te.Name, Pointers: te.Pointers})
	if elem == nil {
		return nil
	}
	if !elem.IsInt() || te.ArrayLen < 0 {
		c.errorf(e, "cannot cast to %s: only arrays of integers are supported", typeExprString(te))
		return nil
	}
	src := t.Size
	if t.Kind == types.Pointer {
		src = 8
	}
	n := te.ArrayLen
	if n == 0 {
		// (int8[])x: as many elements as x has bytes (an integer literal
		// has its smallest type, as in bpftrace)
		src = c.tupleElem(e.X, t).Size
		if src%elem.Size != 0 {
			c.errorf(e, "cannot cast %s (%d bytes) to an array of %s: the size is not a multiple of %d", t, src, elem, elem.Size)
			return nil
		}
		n = src / elem.Size
		t = c.tupleElem(e.X, t)
	}
	size := elem.Size * n
	if own := c.ownType(e.X, t); t.IsInt() && own.IsInt() && own.Size < size && size <= 8 {
		// (int8[4])1: the integer's own bytes (int8 for 1), then zeros
		c.info.CastWidths[e] = own.Size
		src = size
	}
	if !(t.IsInt() || t.Kind == types.Array || t.Kind == types.String) || src != size {
		if own := c.ownType(e.X, t); t.IsInt() && own.IsInt() {
			t, src = own, own.Size // bpftrace names the literal's own type: int32 for 1000000
		}
		c.errorf(e, "cannot cast %s (%d bytes) to %s (%d bytes): the sizes must match", t, src, typeExprString(te), size)
		return nil
	}
	return &types.Type{Kind: types.Array, Size: size, Len: n, Elem: elem}
}
