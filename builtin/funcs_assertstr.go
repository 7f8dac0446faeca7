package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// assert_str(x) checks at compile time that x is string-like, as bpftrace
// 0.26's stdlib macro does: a string, an array of int8 or a pointer to
// int8. It emits no code: x is not evaluated.
func init() {
	defFuncs(&Func{Name: "assert_str", Result: types.Void,
		Check: func(c Checker, e *ast.Call) *types.Type {
			t := oneArg(c, e)
			if t == nil {
				return nil
			}
			charLike := func(t *types.Type) bool { return t != nil && t.Kind == types.Int && t.Size == 1 && t.Signed }
			switch {
			case t.Kind == types.String:
			case t.Kind == types.Array && !t.IsBuf():
				if !charLike(t.Elem) {
					c.Errorf(e, "string-like arrays must contain a char-like type")
					return nil
				}
			case t.Kind == types.Pointer:
				if !charLike(t.Elem) {
					c.Errorf(e, "string-like pointers must point to a char-like type")
					return nil
				}
			default:
				c.Errorf(e, "string-like values must be either strings, arrays or pointers")
				return nil
			}
			return types.VoidT
		},
		Emit:    func(Emitter, *ast.Call) {},
		Example: `BEGIN { assert_str(comm); assert_str("a"); printf("ok\n") }`})
}
