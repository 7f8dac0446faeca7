package check

import (
	"strings"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
)

// foldCondition records the compile-time value of a comparison, a logical
// operator or ! on constant operands, as bpftrace 0.26 folds them, so that
// `if comptime ($# > 1)` and static_assert(sizeof(x) == 8, ...) are
// decided at compile time.
func (c *checker) foldCondition(e ast.Expr) {
	truth := func(cv builtin.Const) bool { return cv.Int != 0 || cv.IsStr && cv.Str != "" }
	set := func(b bool) { c.info.Consts[e] = builtin.Const{Int: map[bool]uint64{true: 1}[b]} }
	switch e := e.(type) {
	case *ast.Unary:
		if x, ok := c.info.Consts[e.X]; ok && e.Op == "!" {
			set(!truth(x))
		}
	case *ast.Binary:
		x, xok := c.info.Consts[e.X]
		y, yok := c.info.Consts[e.Y]
		switch e.Op {
		case "&&":
			if xok && !truth(x) || xok && yok {
				set(truth(x) && truth(y))
			}
			return
		case "||":
			if xok && truth(x) || xok && yok {
				set(truth(x) || truth(y))
			}
			return
		}
		if !xok || !yok || x.IsStr != y.IsStr {
			return
		}
		if x.IsStr {
			// strings compare as C strings, up to their first NUL
			xs, ys := cString(x.Str), cString(y.Str)
			switch e.Op {
			case "==":
				set(xs == ys)
			case "!=":
				set(xs != ys)
			}
			return
		}
		less := x.Int < y.Int
		if c.info.SignedCompare(e.X, e.Y) {
			less = int64(x.Int) < int64(y.Int)
		}
		switch e.Op {
		case "==":
			set(x.Int == y.Int)
		case "!=":
			set(x.Int != y.Int)
		case "<":
			set(less)
		case ">=":
			set(!less)
		case ">":
			set(!less && x.Int != y.Int)
		case "<=":
			set(less || x.Int == y.Int)
		}
	}
}

// cString is s up to its first NUL.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
