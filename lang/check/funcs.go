package check

import (
	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func (c *checker) call(e *ast.Call) *types.Type {
	f := builtin.LookupFunc(e.Name)
	if f == nil {
		if b := builtin.LookupVar(e.Name); b != nil && len(e.Args) == 0 {
			// bpftrace: pid() is the same as pid.
			id := &ast.Ident{Span: e.Span, Name: e.Name}
			t := c.ident(id)
			if t != nil {
				c.info.Types[id] = t
				c.info.Calls[e] = varCall(b, id)
				if cv, ok := c.info.Consts[id]; ok {
					c.info.Consts[e] = cv // cpid(), ncpus(), probe(): constants too
				}
			}
			return t
		}
		c.errorf(e, "unknown function %s()", e.Name)
		return nil
	}
	if f.Unsafe && !c.opts.Unsafe {
		c.errorf(e, "%s", f.UnsafeError())
		return nil
	}
	c.info.Calls[e] = f
	return f.Check(c, e)
}

// varCall is the function form of a builtin variable (pid()): its value
// is the variable's, emitted for id, the identifier checked in the call's
// place (its type is recorded: retval's width comes from it).
func varCall(b *builtin.Var, id *ast.Ident) *builtin.Func {
	f := &builtin.Func{Name: b.Name, Result: b.Result}
	if b.Emit != nil {
		f.Emit = func(g builtin.Emitter, _ *ast.Call) { b.Emit(g, id) }
	}
	if b.Buffer != nil {
		f.Buffer = func(g builtin.Emitter, _ *ast.Call) int16 { return b.Buffer(g, id) }
	}
	return f
}

func (c *checker) wantArgs(e *ast.Call, lo, hi int) bool {
	n := len(e.Args)
	if n >= lo && (hi < 0 || n <= hi) {
		return true
	}
	switch {
	case lo == hi:
		c.errorf(e, "%s() takes %d argument%s, got %d", e.Name, lo, plural(lo), n)
	case hi < 0:
		c.errorf(e, "%s() takes at least %d argument%s, got %d", e.Name, lo, plural(lo), n)
	default:
		c.errorf(e, "%s() takes %d to %d arguments, got %d", e.Name, lo, hi, n)
	}
	return false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// intArg checks that argument i is an integer expression.
func (c *checker) intArg(e *ast.Call, i int) *types.Type {
	t := c.expr(e.Args[i])
	if t == nil {
		return nil
	}
	if !t.IsInt() {
		c.errorf(e.Args[i], "%s() argument %d must be an integer, not %s", e.Name, i+1, t)
		return nil
	}
	return t
}

// constInt checks that argument i is an integer known at compile time.
func (c *checker) constInt(e *ast.Call, i int) (int64, bool) {
	if c.intArg(e, i) == nil {
		return 0, false
	}
	cv, ok := c.info.Consts[e.Args[i]]
	if !ok || cv.IsStr {
		c.errorf(e.Args[i], "%s() argument %d must be a constant integer", e.Name, i+1)
		return 0, false
	}
	return int64(cv.Int), true
}

// constIntOrExpr accepts an integer argument; it returns its value when
// constant and -1 otherwise.
func (c *checker) constIntOrExpr(e *ast.Call, i int) (int64, bool) {
	if c.intArg(e, i) == nil {
		return 0, false
	}
	if cv, ok := c.info.Consts[e.Args[i]]; ok && !cv.IsStr {
		return int64(cv.Int), true
	}
	return -1, true
}
