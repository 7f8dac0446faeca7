package check

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// unify returns the type that can hold values of a and b.
func unify(a, b *types.Type) (*types.Type, bool) {
	switch {
	case a.Kind == types.Bool && b.Kind == types.Bool:
		return a, true
	case a.IsInt() && b.IsInt():
		u := unifyInts(a, b)
		if a.Enum() != b.Enum() && u.Enum() != nil {
			// an enum and another integer: no longer printed as the enum
			u = types.NewInt(u.Size, u.Signed)
		}
		return u, true
	case a.Kind == types.String && b.Kind == types.String:
		if b.Size > a.Size {
			return b, true
		}
		return a, true
	case a.IsBuf() && b.IsBuf():
		// bufs of different lengths, or of a constant and a run-time
		// length: a buffer of the larger capacity that carries each
		// value's length, as bpftrace's buffers do
		if a.Kind == b.Kind && a.Len == b.Len {
			return a, true
		}
		return types.NewBuf(max(a.Len, b.Len)), true
	case types.Equal(a, b):
		return a, true
	case (a.Kind == types.Tuple || a.Kind == types.Record) && a.Kind == b.Kind:
		return unifyTuples(a, b)
	}
	return nil, false
}

// fieldIndex returns the index of the field called name in the record t,
// or -1.
func fieldIndex(t *types.Type, name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// unifyTuples unifies tuples (or records, whose fields are matched by name
// and keep a's order) field by field: strings take the
// larger size, as bpftrace resizes them, and the layout follows.
func unifyTuples(a, b *types.Type) (*types.Type, bool) {
	if len(a.Fields) != len(b.Fields) {
		return nil, false
	}
	elems := make([]*types.Type, len(a.Fields))
	var names []string
	if a.Kind == types.Record {
		names = make([]string, len(a.Fields))
	}
	for i, fa := range a.Fields {
		fb := b.Fields[i]
		if a.Kind == types.Record && fa.Name != fb.Name {
			// records match fields by name, in a's order
			j := fieldIndex(b, fa.Name)
			if j < 0 {
				return nil, false
			}
			fb = b.Fields[j]
		}
		if fa.Name != fb.Name {
			return nil, false
		}
		u, ok := unify(fa.Type, fb.Type)
		if !ok {
			return nil, false
		}
		if n := max(fa.Type.Size, fb.Type.Size); u.Kind == types.Int && u.Size < n {
			// a literal adopting a narrower type keeps the bytes it needs
			u = types.NewInt(n, u.Signed)
		}
		elems[i] = u
		if names != nil {
			names[i] = fa.Name
		}
	}
	return types.NewTuple(elems, names), true
}

// unifyInts is bpftrace's upcast of a variable or map value assigned
// integers of two types: a non-negative literal adopts the other type; the
// same signedness takes the larger size; an unsigned type that fits in the
// larger signed one becomes it; otherwise the result is int64.
func unifyInts(a, b *types.Type) *types.Type {
	switch {
	case a.Kind == types.Bool:
		return b
	case b.Kind == types.Bool:
		return a
	case a.Flexible:
		return b
	case b.Flexible:
		return a
	case a.Signed == b.Signed:
		if b.Size > a.Size {
			return b
		}
		return a
	case a.Signed && a.Size > b.Size:
		return a
	case b.Signed && b.Size > a.Size:
		return b
	}
	return types.Int64
}

// flexible marks the type of a non-negative integer constant: like
// bpftrace's integer literals, it takes the type of what it is unified with.
func (c *checker) flexible(e ast.Expr, t *types.Type) *types.Type {
	cv := c.info.Consts[e]
	if !c.isLiteral(e) || t.Kind != types.Int || !t.Signed || int64(cv.Int) < 0 {
		return t
	}
	ft := *t
	ft.Flexible = true
	return &ft
}

// flexibleInt64 is an int64 that takes the type it is unified with (the
// value of @x++ or x += n on a map that may already hold another type).
func flexibleInt64() *types.Type {
	t := types.NewInt(8, true)
	t.Flexible = true
	return t
}

// ternaryType is the type of a ternary whose branches are integers of
// types a and b (aflex, bflex: the branch is a non-negative literal, which
// takes the other branch's sign), held in 64 bits: bpftrace promotes the
// branches to a type that is signed as soon as one of them is (a uint64
// and an int64 branch make an int64), unsigned otherwise.
func ternaryType(a, b *types.Type, aflex, bflex bool) *types.Type {
	as, bs := a.Kind == types.Int && a.Signed, b.Kind == types.Int && b.Signed
	switch {
	case aflex && !bflex:
		as = bs
	case bflex && !aflex:
		bs = as
	}
	if as || bs {
		return types.Int64
	}
	return types.Uint64
}

// arithType is bpftrace's type of an integer binary operation x op y whose
// operands have types a and b (xflex, yflex: the operand is a non-negative
// literal, which takes the other operand's sign). The result is always 64
// bits: signed when an operand is signed, and always for -, which is
// addition of a negative number; otherwise unsigned. bools are unsigned.
func arithType(op string, a, b *types.Type, xflex, yflex bool) *types.Type {
	as, bs := a.Kind == types.Int && a.Signed, b.Kind == types.Int && b.Signed
	switch {
	case xflex && !yflex:
		as = bs
	case yflex && !xflex:
		bs = as
	}
	if as || bs || op == "-" {
		return types.Int64
	}
	return types.Uint64
}

// signedDivWarning reports whether bpftrace 0.27 warns about x op y (x,
// y checked as a, b): a division or modulo of operands whose own types
// differ once a sign-flexible one (a non-negative literal, or a variable
// that only held such) took the other's sign, one of them signed (BPF has
// no signed division). (int64)$x / 2 warns: 2 is an int8.
func (c *checker) signedDivWarning(op string, x, y ast.Expr, a, b *types.Type) bool {
	if op != "/" && op != "%" {
		return false
	}
	if a.Kind != types.Int || b.Kind != types.Int {
		// a bool operand: unsigned
		return a.Kind == types.Int && a.Signed || b.Kind == types.Int && b.Signed
	}
	xo, yo := c.ownType(x, a), c.ownType(y, b)
	xs, ys := xo.Signed, yo.Signed
	xf, yf := xo.Flexible || c.flexLiteral(x, a), yo.Flexible || c.flexLiteral(y, b)
	switch {
	case xf && !yf:
		xs = ys
	case yf && !xf:
		ys = xs
	}
	if xo.Size == yo.Size && xs == ys {
		return false
	}
	return xs || ys
}

// SignedOperands reports whether x op y is computed on signed operands,
// for the operators whose result depends on it: / and % divide signed
// operands as C does (truncating toward zero) and unsigned or mixed ones
// as unsigned 64-bit numbers, as bpftrace does; >> is arithmetic on signed
// operands. A non-negative integer constant takes the other operand's
// sign, as bpftrace's literals do.
func (in *Info) SignedOperands(x, y ast.Expr) bool {
	xt, yt := in.TypeOf(x), in.TypeOf(y)
	if xt == nil || yt == nil {
		return false
	}
	return SignedPair(xt, yt, in.nonNegConst(x, xt), in.nonNegConst(y, yt))
}

// SignedPair is SignedOperands on types: xflex and yflex mark an operand
// that is a non-negative constant.
func SignedPair(xt, yt *types.Type, xflex, yflex bool) bool {
	xs, ys := xt.Kind == types.Int && xt.Signed, yt.Kind == types.Int && yt.Signed
	switch {
	case xflex && !yflex:
		xs = ys
	case yflex && !xflex:
		ys = xs
	}
	return xs && ys
}

// nonNegConst reports whether the operand e of a binary operation takes
// the other operand's sign: a non-negative integer literal, or a variable
// or map that only held such literals (Info.FlexVals). A cast is not one:
// (uint64)x > (int32)5 compares signed, as in bpftrace 0.27.
func (in *Info) nonNegConst(e ast.Expr, _ *types.Type) bool {
	return in.FlexVals[e]
}

// SignedCompare reports whether the comparison x op y is signed, as
// bpftrace 0.26 promotes its operands: signed when either integer operand
// is signed once a non-negative constant took the other operand's sign (an
// unsigned 64-bit and a signed operand compare as int64); unsigned for
// pointers and for unsigned operands.
func (in *Info) SignedCompare(x, y ast.Expr) bool {
	xt, yt := in.TypeOf(x), in.TypeOf(y)
	if xt == nil || yt == nil || xt.Kind == types.Pointer || yt.Kind == types.Pointer {
		return false
	}
	xs, ys := xt.Kind == types.Int && xt.Signed, yt.Kind == types.Int && yt.Signed
	xf, yf := in.nonNegConst(x, xt), in.nonNegConst(y, yt)
	switch {
	case xf && !yf:
		xs = ys
	case yf && !xf:
		ys = xs
	}
	return xs || ys
}

// promoteInt is bpftrace's promotion of a variable's integer type a when
// it is assigned an integer of type b, sizes kept: a flexible
// (non-negative literal) side takes the other's sign; the same sign takes
// the larger size; an unsigned type that fits in the larger signed one
// becomes it; otherwise a signed type of twice the larger size, int64 at
// most.
func promoteInt(a, b *types.Type) *types.Type {
	size := max(a.Size, b.Size)
	var t *types.Type
	switch {
	case a.Signed == b.Signed:
		t = types.NewInt(size, a.Signed)
	case a.Flexible || b.Flexible:
		t = types.NewInt(size, (!a.Flexible && a.Signed) || (!b.Flexible && b.Signed))
	case a.Signed && a.Size > b.Size:
		return types.NewInt(a.Size, true)
	case b.Signed && b.Size > a.Size:
		return types.NewInt(b.Size, true)
	default:
		return types.NewInt(min(2*size, 8), true)
	}
	t.Flexible = a.Flexible && b.Flexible
	return t
}
