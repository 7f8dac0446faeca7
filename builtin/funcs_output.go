package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func checkExit(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 0, 1) {
		return nil
	}
	if len(e.Args) == 1 && c.IntArg(e, 0) == nil {
		return nil
	}
	return types.VoidT
}

func checkTime(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 0, 1) {
		return nil
	}
	if len(e.Args) == 1 {
		if _, ok := e.Args[0].(*ast.StrLit); !ok {
			c.Errorf(e.Args[0], "time() format must be a string literal")
			return nil
		}
		c.Expr(e.Args[0])
	}
	return types.VoidT
}

// checkStrftime types strftime(fmt, nsecs): a timestamp rendered in user
// space with the format.
func checkStrftime(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 2, 2) {
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.Errorf(e.Args[0], "strftime() format must be a string literal")
		return nil
	}
	c.Expr(lit)
	if c.IntArg(e, 1) == nil {
		return nil
	}
	return &types.Type{Kind: types.Timestamp, Size: 8, Strftime: lit.Value}
}

func checkJoin(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 2) {
		return nil
	}
	t := c.Expr(e.Args[0])
	if t == nil {
		return nil
	}
	if t.Kind != types.Pointer && !t.IsInt() {
		c.Errorf(e.Args[0], "join() needs an array of strings (char **), not %s", t)
		return nil
	}
	if len(e.Args) == 2 {
		if _, ok := e.Args[1].(*ast.StrLit); !ok {
			c.Errorf(e.Args[1], "join() separator must be a string literal")
			return nil
		}
		c.Expr(e.Args[1])
	}
	return types.VoidT
}

// emitExit sends the exit event, with the code argument or 0, and ends the
// probe, as in current bpftrace.
func emitExit(g Emitter, e *ast.Call) {
	var code ast.Expr
	if len(e.Args) == 1 {
		code = e.Args[0]
	}
	g.Exit(code, 0, e.Pos())
}
