package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/internal/usdt"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

// usdtArg loads an argument of a USDT probe location into R0, as its note
// specifies: a constant, a register of pt_regs, or user memory at a
// register plus a displacement (plus an index register times a scale),
// truncated to the argument's size and extended by its sign.
func (g *gen) usdtArg(a usdt.Arg, pos srcpos.Pos) {
	switch a.Kind {
	case usdt.ArgConst:
		g.loadImm(asm.R0, a.Value)
	case usdt.ArgReg:
		g.loadReg(a.Reg, pos)
	case usdt.ArgMem:
		if a.Index != "" {
			g.loadReg(a.Index, pos)
			if a.Scale > 1 {
				g.emit(asm.Mul.Imm(asm.R0, int32(a.Scale)))
			}
			tmp := g.allocScalar(pos)
			g.emit(g.stx(tmp, asm.R0, asm.DWord))
			g.loadReg(a.Reg, pos)
			g.emit(g.ldx(asm.R1, tmp, asm.DWord), asm.Add.Reg(asm.R0, asm.R1))
		} else {
			g.loadReg(a.Reg, pos)
		}
		if a.Value != 0 {
			g.loadImm(asm.R1, a.Value)
			g.emit(asm.Add.Reg(asm.R0, asm.R1))
		}
		dst := g.allocScalar(pos)
		g.readKernel(dst, a.Size, types.User)
		g.emit(g.ldx(asm.R0, dst, asm.DWord))
	}
	g.extend(asm.R0, a.Size, a.Signed)
}
