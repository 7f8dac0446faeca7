package lang

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// storageType is the type a value has once stored in a map or variable:
// integers widen to 64 bits and string buffers to a multiple of 8 bytes.
func storageType(t *types.Type) *types.Type {
	switch {
	case t.Kind == types.Int && t.Size < 8:
		st := types.NewInt(8, t.Signed)
		st.Flexible = t.Flexible
		return st
	case t.Kind == types.String && t.Size%8 != 0:
		return types.NewString((t.Size + 7) / 8 * 8)
	}
	return t
}

// unify returns the type that can hold values of a and b.
func unify(a, b *types.Type) (*types.Type, bool) {
	switch {
	case a.Kind == types.Bool && b.Kind == types.Bool:
		return a, true
	case a.IsInt() && b.IsInt():
		return unifyInts(a, b), true
	case a.Kind == types.String && b.Kind == types.String:
		if b.Size > a.Size {
			return b, true
		}
		return a, true
	case types.Equal(a, b):
		return a, true
	}
	return nil, false
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
	cv, ok := c.info.Consts[e]
	if !ok || cv.IsStr || t.Kind != types.Int || !t.Signed || int64(cv.Int) < 0 {
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

// promote applies the usual arithmetic conversions: everything is computed
// in 64 bits, unsigned when an unsigned 64-bit operand is involved.
func promote(a, b *types.Type) *types.Type {
	if (!a.Signed && a.Kind == types.Int && a.Size == 8) || (!b.Signed && b.Kind == types.Int && b.Size == 8) {
		return types.Uint64
	}
	return types.Int64
}
