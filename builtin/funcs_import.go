package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// __always_true() is the C function of bpftrace 0.26's stdlib/test/test.bpf.c
// (a check of its C interop): an int, 1. A script calls it after
// import "stdlib/test".
func init() {
	defFuncs(&Func{Name: "__always_true", Result: types.Int, Emit: constValue,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 0, 0) {
				return nil
			}
			if !c.Imported(testBPFC) {
				c.Errorf(e.Pos(), "unknown function __always_true(): it is defined by import \"stdlib/test\"")
				return nil
			}
			c.SetConst(e, Const{Int: 1})
			return types.Int32
		},
		Example: `import "stdlib/test"; BEGIN { print(__always_true()) }`})
}

const testBPFC = "stdlib/test/test.bpf.c"
