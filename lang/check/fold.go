package check

import (
	"math"
	"math/big"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// foldBinary computes a binary operation on constants that are not all
// literals (a cast is a constant), as the generated code computes it in 64
// bits, when it is one the checker folds (integer arithmetic and bitwise
// operations). Division and modulo by zero are left to run time, which
// warns.
//
// It restates lang/eval's integer operators on purpose: eval is the oracle
// the differential tests hold folding and the generated code against, and
// one shared table would check folding against itself.
func foldBinary(op string, x, y uint64, signed bool) (uint64, bool) {
	switch op {
	case "+":
		return x + y, true
	case "-":
		return x - y, true
	case "*":
		return x * y, true
	case "/", "%":
		if y == 0 {
			return 0, false
		}
		if signed {
			a, b := int64(x), int64(y)
			if op == "/" {
				return uint64(a / b), true
			}
			return uint64(a % b), true
		}
		if op == "/" {
			return x / y, true
		}
		return x % y, true
	case "&":
		return x & y, true
	case "|":
		return x | y, true
	case "^":
		return x ^ y, true
	case "<<":
		return x << (y & 63), true
	case ">>":
		if signed {
			return uint64(int64(x) >> (y & 63)), true
		}
		return x >> (y & 63), true
	}
	return 0, false
}

// Bounds of bpftrace's integer literals: a folded literal is a uint64 when
// it is non-negative, an int64 when it is negative.
var (
	minInt64  = big.NewInt(math.MinInt64)
	maxInt64  = big.NewInt(math.MaxInt64)
	maxUint64 = new(big.Int).SetUint64(math.MaxUint64)
)

// errFold is bpftrace's error for literal arithmetic out of range.
const errFold = "unable to fold literals due to overflow or underflow"

// isLiteral reports whether e is an integer literal for bpftrace's literal
// folding: a number, a positional parameter, a define or enum constant, or
// an operation on literals that was folded. A cast is not a literal: an
// operation on it is computed at run time in 64 bits and wraps.
func (c *checker) isLiteral(e ast.Expr) bool {
	cv, ok := c.info.Consts[e]
	if !ok || cv.IsStr {
		return false
	}
	switch e.(type) {
	case *ast.Paren, *ast.Unary, *ast.Binary:
		// The answer for an operation is kept: each operation of a chain
		// asks about its operands, which would make a long chain
		// (1 + 1 + ... + 1) quadratic.
		if c.literals.info != c.info {
			c.literals.info, c.literals.of = c.info, map[ast.Expr]bool{}
		}
		if lit, ok := c.literals.of[e]; ok {
			return lit
		}
		lit := c.isLiteralOp(e)
		c.literals.of[e] = lit
		return lit
	}
	return c.isLiteralOp(e)
}

// isLiteralOp is isLiteral for an expression with a constant value.
func (c *checker) isLiteralOp(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.IntLit, *ast.PosParam, *ast.Ident:
		return true
	case *ast.Paren:
		return c.isLiteral(e.X)
	case *ast.Unary:
		return (e.Op == "-" || e.Op == "~") && c.isLiteral(e.X)
	case *ast.Binary:
		return c.isLiteral(e.X) && c.isLiteral(e.Y)
	}
	return false
}

// literalValue is the exact value of a literal constant of type t: an
// unsigned 64-bit literal is above MaxInt64, any other is an int64.
func literalValue(cv builtin.Const, t *types.Type) *big.Int {
	if t.Kind == types.Int && !t.Signed && t.Size == 8 {
		return new(big.Int).SetUint64(cv.Int)
	}
	return big.NewInt(int64(cv.Int))
}

// literalConst returns the constant and type of the exact literal value v
// (in [MinInt64, MaxUint64]): int64 up to MaxInt64, uint64 above.
func literalConst(v *big.Int) (builtin.Const, *types.Type) {
	if v.Sign() < 0 {
		return builtin.Const{Int: uint64(v.Int64())}, types.Int64
	}
	if v.Cmp(maxInt64) > 0 {
		return builtin.Const{Int: v.Uint64()}, types.Uint64
	}
	return builtin.Const{Int: v.Uint64()}, types.Int64
}

// foldLiterals computes x op y on integer literals as bpftrace 0.26 folds
// them, exactly and without wrapping. Two non-negative literals are
// computed as uint64 (a difference may go negative), any other pair as
// int64 (a non-negative literal above MaxInt64 does not fit it). A result
// outside the domain, a division or modulo by zero and a shift by a
// negative count or by 64 or more report ok false, which is an error. A
// nil result with ok true is an operator that is not folded here.
func foldLiterals(op string, x, y *big.Int) (r *big.Int, ok bool) {
	unsigned := x.Sign() >= 0 && y.Sign() >= 0
	if !unsigned && (x.Cmp(maxInt64) > 0 || y.Cmp(maxInt64) > 0) {
		return nil, false
	}
	fitsS := func(v *big.Int) bool { return v.Cmp(minInt64) >= 0 && v.Cmp(maxInt64) <= 0 }
	fitsU := func(v *big.Int) bool { return v.Sign() >= 0 && v.Cmp(maxUint64) <= 0 }
	r = new(big.Int)
	switch op {
	case "+":
		r.Add(x, y)
		if unsigned {
			return r, fitsU(r)
		}
		return r, fitsS(r)
	case "-":
		r.Sub(x, y)
		if unsigned {
			return r, r.Cmp(minInt64) >= 0
		}
		return r, fitsS(r)
	case "*":
		r.Mul(x, y)
		if unsigned || x.Sign() < 0 && y.Sign() < 0 {
			return r, fitsU(r)
		}
		return r, fitsS(r)
	case "/", "%":
		if y.Sign() == 0 {
			return nil, false
		}
		if op == "/" {
			r.Quo(x, y)
		} else {
			r.Rem(x, y)
		}
		return r, fitsS(r) || fitsU(r)
	case "&", "|", "^", "<<", ">>":
		if (op == "<<" || op == ">>") && (y.Sign() < 0 || y.Cmp(big.NewInt(63)) > 0) {
			return nil, false
		}
		var a, b uint64
		if unsigned {
			a, b = x.Uint64(), y.Uint64()
		} else {
			a, b = uint64(x.Int64()), uint64(y.Int64())
		}
		var v uint64
		switch op {
		case "&":
			v = a & b
		case "|":
			v = a | b
		case "^":
			v = a ^ b
		case "<<":
			v = a << b
		case ">>":
			if unsigned {
				v = a >> b
			} else {
				v = uint64(int64(a) >> b)
			}
		}
		if unsigned {
			return r.SetUint64(v), true
		}
		return r.SetInt64(int64(v)), true
	}
	return nil, true
}
