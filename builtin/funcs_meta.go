package builtin

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// Functions about the script itself (bpftrace 0.26 stdlib, meta.bt and
// base.bt): type predicates known at compile time, and assertions.

// typePredicate is a compile-time test of its argument's type.
func typePredicate(pred func(t *types.Type) bool) func(Checker, *ast.Call) *types.Type {
	return func(c Checker, e *ast.Call) *types.Type {
		t := oneArg(c, e)
		if t == nil {
			return nil
		}
		c.SetConst(e, boolConst(pred(t)))
		return types.BoolT
	}
}

func boolConst(b bool) Const {
	if b {
		return Const{Int: 1}
	}
	return Const{}
}

func init() {
	defFuncs(
		&Func{Name: "is_str", Result: types.Bool, Emit: constValue,
			Check:   typePredicate(func(t *types.Type) bool { return t.Kind == types.String }),
			Example: `BEGIN { printf("%d %d\n", is_str(comm), is_str(1)) }`},
		&Func{Name: "is_ptr", Result: types.Bool, Emit: constValue,
			Check:   typePredicate(func(t *types.Type) bool { return t.Kind == types.Pointer }),
			Example: `BEGIN { printf("%d %d\n", is_ptr(curtask), is_ptr(1)) }`},
		&Func{Name: "is_array", Result: types.Bool, Emit: constValue,
			Check:   typePredicate(func(t *types.Type) bool { return t.Kind == types.Array }),
			Example: `BEGIN { printf("%d %d\n", is_array(pton("127.0.0.1")), is_array(1)) }`},
		&Func{Name: "is_integer", Result: types.Bool, Emit: constValue,
			Check:   typePredicate(func(t *types.Type) bool { return t.Kind == types.Int }),
			Example: `BEGIN { printf("%d %d\n", is_integer(pid), is_integer(comm)) }`},
		&Func{Name: "is_unsigned_integer", Result: types.Bool, Emit: constValue,
			Check:   typePredicate(func(t *types.Type) bool { return t.Kind == types.Int && !t.Signed }),
			Example: `BEGIN { printf("%d %d\n", is_unsigned_integer(pid), is_unsigned_integer(-1)) }`},
		// is_literal: the argument is written as a literal (1, "a", true).
		&Func{Name: "is_literal", Result: types.Bool, Emit: constValue,
			Check: func(c Checker, e *ast.Call) *types.Type {
				if oneArg(c, e) == nil {
					return nil
				}
				switch e.Args[0].(type) {
				case *ast.IntLit, *ast.StrLit, *ast.BoolLit:
					c.SetConst(e, boolConst(true))
				default:
					c.SetConst(e, boolConst(false))
				}
				return types.BoolT
			},
			Example: `BEGIN { printf("%d %d\n", is_literal(1), is_literal(pid)) }`},
		// is_err(ptr): ptr is an ERR_PTR, in [-4095, -1] (the kernel's
		// IS_ERR).
		&Func{Name: "is_err", Result: types.Bool,
			Check: func(c Checker, e *ast.Call) *types.Type {
				t := oneArg(c, e)
				if t == nil {
					return nil
				}
				if t.Kind != types.Pointer && !t.IsInt() {
					c.Errorf(e.Args[0].Pos(), "is_err() needs a pointer, not %s", t)
					return nil
				}
				return types.BoolT
			},
			Emit: func(g Emitter, e *ast.Call) {
				g.Scalar(e.Args[0])
				end := g.NewLabel("iserr")
				// ptr + 4095 < 4095 (unsigned) exactly when ptr is in [-4095, -1]
				g.Emit(asm.Add.Imm(asm.R0, 4095), asm.Mov.Reg(asm.R1, asm.R0), asm.Mov.Imm(asm.R0, 0),
					asm.JGE.Imm(asm.R1, 4095, end), asm.Mov.Imm(asm.R0, 1))
				g.Mark(end)
			},
			Example: `BEGIN { printf("%d %d %d\n", is_err((int64)-2), is_err((int64)-4096), is_err(curtask)) }`},
		// comptime x (also comptime(x)) is x, which must be known at
		// compile time; as the condition of an if (bpftrace 0.26's `if
		// comptime x`) it decides which branch is checked and compiled,
		// so that the other may call fail().
		&Func{Name: "comptime", Result: types.Bool, Emit: constValue, Decides: true,
			Check: func(c Checker, e *ast.Call) *types.Type {
				t := oneArg(c, e)
				if t == nil {
					return nil
				}
				cv, ok := c.ConstOf(e.Args[0])
				if !ok {
					c.Errorf(e, "Unable to resolve comptime expression")
					return nil
				}
				c.SetConst(e, cv)
				return t
			},
			Example: `BEGIN { if comptime (sizeof(int32) == 4) { print(1) } else { fail("int32 is not 4 bytes") } }`},
		// static_assert(cond, msg) fails the compilation when cond, known
		// at compile time, is false.
		&Func{Name: "static_assert", Result: types.Void,
			Check: func(c Checker, e *ast.Call) *types.Type {
				if !c.WantArgs(e, 2, 2) || c.Expr(e.Args[0]) == nil || c.Expr(e.Args[1]) == nil {
					return nil
				}
				msg, ok := e.Args[1].(*ast.StrLit)
				if !ok {
					c.Errorf(e.Args[1].Pos(), "static_assert() needs a string literal message")
					return nil
				}
				cv, ok := c.ConstOf(e.Args[0])
				if !ok || cv.IsStr {
					c.Errorf(e.Args[0].Pos(), "static_assert() needs a condition known at compile time")
					return nil
				}
				if cv.Int == 0 {
					c.Errorf(e, "%s", msg.Value)
					return nil
				}
				return types.VoidT
			},
			Emit:    func(Emitter, *ast.Call) {},
			Example: `BEGIN { static_assert(sizeof(int32) & 4, "int32 is 4 bytes") }`},
		// assert(cond, msg): when cond is false, the error "assert failed:
		// msg" and exit(1), as bpftrace's stdlib macro.
		&Func{Name: "assert", Result: types.Void,
			Check: func(c Checker, e *ast.Call) *types.Type {
				if !c.WantArgs(e, 2, 2) {
					return nil
				}
				ct, mt := c.Expr(e.Args[0]), c.Expr(e.Args[1])
				if ct == nil || mt == nil {
					return nil
				}
				if !ct.IsInt() && ct.Kind != types.Bool && ct.Kind != types.Pointer {
					c.Errorf(e.Args[0].Pos(), "assert() needs a condition, not %s", ct)
					return nil
				}
				if mt.Kind != types.String {
					c.Errorf(e.Args[1].Pos(), "assert() needs a string message, not %s", mt)
					return nil
				}
				return types.VoidT
			},
			Emit: func(g Emitter, e *ast.Call) {
				g.Scalar(e.Args[0])
				ok := g.NewLabel("assertok")
				g.Emit(asm.JNE.Imm(asm.R0, 0, ok))
				g.Message(object.EventErrorf, "assert failed: %s", e.Args[1:], e.Pos())
				g.Exit(nil, 1, e.Pos())
				g.Mark(ok)
			},
			Example: `BEGIN { assert(pid > 0, "pid is positive") }`},
	)
}
