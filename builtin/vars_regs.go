package builtin

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// Variables read from the interrupted registers.

func init() {
	defVars(
		// usermode is 1 when the probe interrupted user code: the privilege
		// level in the low bits of CS is 3 (x86-64). Probes without
		// registers have a fixed value, as in bpftrace: 1 in BEGIN and END,
		// 0 elsewhere (tracepoints, fentry, raw tracepoints).
		&Var{Name: "usermode", Type: fixed(types.Uint8), Result: types.Int,
			Const: func(c Checker, _ *types.Type) (Const, bool) {
				switch ctx := c.Provider().Ctx; {
				case ctx.HasRegs():
					return Const{}, false
				case !ctx.Available():
					return Const{Int: 1}, true
				}
				return Const{Int: 0}, true
			},
			Emit: func(g Emitter, e *ast.Ident) {
				g.LoadReg("cs", e.Pos())
				// (cs&3 + 1) >> 2 is 1 for ring 3, 0 for rings 0-2
				g.Emit(asm.And.Imm(asm.R0, 3), asm.Add.Imm(asm.R0, 1), asm.RSh.Imm(asm.R0, 2))
			},
			Example: `profile:hz:99 { printf("%d\n", usermode); exit() }`},
	)
}
