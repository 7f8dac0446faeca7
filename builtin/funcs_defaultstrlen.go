package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// default_str_length() is the size of a string that str() reads without a
// length: the script's max_strlen (config, BPFTRACE_MAX_STRLEN or 1024), a
// constant, as bpftrace 0.26's stdlib macro (sizeof(str((int8 *)0))).
func init() {
	defFuncs(&Func{Name: "default_str_length", Result: types.Int, Emit: constValue,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 0, 0) {
				return nil
			}
			c.SetConst(e, Const{Int: uint64(c.MaxStrlen())})
			return types.Uint64
		},
		Example: `config = { max_strlen = 200 } BEGIN { printf("%d\n", default_str_length()) }`})
}
