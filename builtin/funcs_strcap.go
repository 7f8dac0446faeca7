package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func init() {
	// strcap(s) is the capacity of a string-like value (bpftrace 0.26
	// strings.bt): a string's buffer size, an array's element count,
	// known at compile time; an int8 pointer's is the length of the
	// string it points to, strlen(p).
	defFuncs(&Func{Name: "strcap", Result: types.Int,
		Emit: func(g Emitter, e *ast.Call) {
			if _, ok := g.ConstOf(e); ok {
				constValue(g, e)
				return
			}
			g.Strlen(e)
		},
		Check: func(c Checker, e *ast.Call) *types.Type {
			t := oneArg(c, e)
			if t == nil {
				return nil
			}
			t = c.OwnType(e.Args[0], t) // string[4] for $s = "abc", not its 8-byte slot
			switch t.Kind {
			case types.String:
				c.SetConst(e, Const{Int: uint64(t.Size)})
			case types.Array:
				if t.Elem == nil || t.Elem.Size != 1 {
					c.Errorf(e.Args[0].Pos(), "string-like arrays must contain a char-like type")
					return nil
				}
				c.SetConst(e, Const{Int: uint64(t.Len)})
			case types.Pointer:
				if !charPointer(c, e.Args[0], t) {
					return nil
				}
			default:
				c.Errorf(e.Args[0].Pos(), "string-like values must be either strings, arrays or pointers")
				return nil
			}
			return types.Int64
		},
		Example: `BEGIN { printf("%d %d\n", strcap(comm), strcap("abc")) }`})
}
