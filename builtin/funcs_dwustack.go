package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// dwUstackRefusal is why dw_ustack is refused: bpftrace 0.27 copies the
// user stack and registers and unwinds them in user space with the
// binaries' DWARF call frame information, which gotrace does not do.
const dwUstackRefusal = "dw_ustack (DWARF stack unwinding) is not supported by gotrace: use ustack, which unwinds through frame pointers (build the traced program with -fno-omit-frame-pointer)"

// dw_ustack and dw_ustack(...) are refused at their position, rather than
// named an unknown function.
func init() {
	defFuncs(&Func{Name: "dw_ustack", Result: types.Stack,
		Check: func(c Checker, e *ast.Call) *types.Type {
			c.Errorf(e, "%s", dwUstackRefusal)
			return nil
		},
		Buffer:  func(g Emitter, e *ast.Call) int16 { return g.Ustack(e) },
		Example: `tracepoint:syscalls:sys_enter_getppid { print(dw_ustack(3)) }`,
		Doc:     Doc{Sig: "dw_ustack([mode] [, limit: int]): ustack", Text: "bpftrace's user stack unwound with DWARF: not supported by gotrace (use ustack)."}})
	defVars(&Var{Name: "dw_ustack", Result: types.Stack,
		Type:    func(Checker) (*types.Type, string) { return nil, dwUstackRefusal },
		Buffer:  func(g Emitter, e *ast.Ident) int16 { return g.Ustack(e) },
		Example: `tracepoint:syscalls:sys_enter_getppid { print(dw_ustack) }`})
}
