package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func init() {
	// strcap(s) is the capacity of a string-like value (bpftrace 0.26
	// strings.bt): a string's buffer size, an array's element count,
	// known at compile time. (bpftrace gives a char pointer's strlen;
	// gotrace's strlen does not read through pointers yet.)
	defFuncs(&Func{Name: "strcap", Result: types.Int, Emit: constValue,
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
				c.Errorf(e.Args[0].Pos(), "strcap() of a pointer is not supported yet")
				return nil
			default:
				c.Errorf(e.Args[0].Pos(), "string-like values must be either strings, arrays or pointers")
				return nil
			}
			return types.Int64
		},
		Example: `BEGIN { printf("%d %d\n", strcap(comm), strcap("abc")) }`})
}
