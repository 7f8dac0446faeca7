package lang

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

// bufferType is the type of buf(): bytes printed with %r.
func bufferType(n int) *types.Type {
	return &types.Type{Kind: types.Array, Size: n, Len: n, Elem: types.Uint8, Name: types.BufferName}
}

// checkBuf types buf(data[, length]): length bytes read from data (a
// pointer, an array or a string). A constant length (or the array's
// size) is part of the type, at most max_strlen; a length known only at
// run time makes a Buf of max_strlen-4 bytes that carries the length, as
// bpftrace 0.26's buffers do (a larger or negative length reads
// max_strlen-4 bytes).
func checkBuf(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) {
		return nil
	}
	t := c.expr(e.Args[0])
	if t == nil {
		return nil
	}
	n := 0
	switch {
	case len(e.Args) == 2:
		if c.intArg(e, 1) == nil {
			return nil
		}
		cv, isConst := c.info.Consts[e.Args[1]]
		if !isConst {
			n = -1 // known at run time
			break
		}
		n = int(int64(cv.Int))
		if n <= 0 || n > c.opts.MaxStrlen {
			c.errorf(e, "buf() length must be between 1 and max_strlen (%d)", c.opts.MaxStrlen)
			return nil
		}
	case t.Kind == types.Array || t.Kind == types.String:
		n = t.Size
	default:
		c.errorf(e, "buf() of %s needs a length", t)
		return nil
	}
	if t.Kind != types.Pointer && !t.IsInt() && t.Kind != types.Array && t.Kind != types.String {
		c.errorf(e.Args[0], "buf() reads from a pointer or an array, not %s", t)
		return nil
	}
	if n < 0 {
		if c.opts.MaxStrlen <= types.BufHeader {
			c.errorf(e, "buf() of a run-time length needs max_strlen above %d", types.BufHeader)
			return nil
		}
		return types.NewBuf(c.opts.MaxStrlen - types.BufHeader)
	}
	if n > c.opts.MaxStrlen {
		c.errorf(e, "buf() length must be between 1 and max_strlen (%d)", c.opts.MaxStrlen)
		return nil
	}
	return bufferType(n)
}
