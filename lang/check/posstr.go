package check

import (
	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// positionalString types the argument of str() when it is a positional
// parameter, as bpftrace does: str($1) is the parameter's text even when
// it reads as a number, and str($1 + n) is that text from its n-th byte
// (pointer arithmetic on a string literal). It reports false for any
// other argument, which str() types as usual.
func (c *checker) positionalString(arg ast.Expr) (*types.Type, bool) {
	x := arg
	for {
		p, ok := x.(*ast.Paren)
		if !ok {
			break
		}
		x = p.X
	}
	skip := uint64(0)
	var pp *ast.PosParam
	switch v := x.(type) {
	case *ast.PosParam:
		pp = v
	case *ast.Binary:
		p, ok := v.X.(*ast.PosParam)
		if !ok || v.Op != "+" {
			return nil, false
		}
		pt := c.expr(p)
		nt := c.expr(v.Y)
		cv, isConst := c.info.Consts[v.Y]
		if pt == nil || nt == nil || pt.Kind != types.String || !isConst || cv.IsStr {
			return nil, false
		}
		pp, skip = p, cv.Int
	default:
		return nil, false
	}
	if pp.Index < 1 || pp.Index > len(c.opts.Params) {
		return nil, false
	}
	s := c.opts.Params[pp.Index-1]
	if skip > uint64(len(s)) {
		skip = uint64(len(s))
	}
	s = s[skip:]
	if pp != x {
		c.expr(pp)
	}
	t := types.NewString(len(s) + 1)
	for e := arg; ; {
		c.info.Types[e] = t
		c.info.Consts[e] = builtin.Const{IsStr: true, Str: s}
		p, ok := e.(*ast.Paren)
		if !ok {
			break
		}
		e = p.X
	}
	return t, true
}
