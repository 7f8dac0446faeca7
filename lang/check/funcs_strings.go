package check

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func checkStr(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) {
		return nil
	}
	t, ok := c.positionalString(e.Args[0])
	if !ok {
		t = c.expr(e.Args[0])
	}
	if t == nil {
		return nil
	}
	size := c.opts.MaxStrlen
	if len(e.Args) == 2 {
		n, ok := c.constIntOrExpr(e, 1)
		if !ok {
			return nil
		}
		if n > 0 && int(n) < size {
			size = int(n) // n bytes with the NUL: n-1 characters
		}
	}
	switch {
	case t.Kind == types.String:
		if size > t.Size {
			size = t.Size
		}
		if cv, ok := c.info.Consts[e.Args[0]]; ok && cv.IsStr && len(e.Args) == 1 && len(cv.Str) < size {
			// str("lit"), str($1): the string, known at compile time
			c.info.Consts[e] = cv
		}
		return types.NewString(size)
	case t.Kind == types.Pointer, t.IsInt():
		return types.NewString(size)
	}
	c.errorf(e.Args[0], "str() needs a pointer or a string, not %s", t)
	return nil
}
