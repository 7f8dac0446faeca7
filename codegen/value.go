package codegen

import (
	"math"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
)

// The value model. An integer operand is, before any code is emitted for
// it, a constant (locImm), a word on the stack (locStack: a scratch
// variable), or something to compute (locReg: evaluated into R0 by
// scalar). Binary operators and comparisons locate their right operand
// first: a constant or a variable is then read straight into R1 (or used
// as an immediate) after the left operand is in R0, with no spill and no
// register shuffle. Buffer values are built in place instead (buildInto,
// mapKeyAt): the slot they land in is the "location" of a string. An
// address in kernel or user memory reached through members and indexes
// is a pending access chain (addr.go): a root and an offset that only
// the read consuming it adds.

type locKind uint8

const (
	locReg   locKind = iota // computed by scalar into R0
	locImm                  // the constant imm
	locStack                // the 64-bit word at off from the frame pointer
)

// value is where an integer operand lives.
type value struct {
	loc locKind
	imm int64
	off int16
}

// locate returns where e's value is without emitting code, or locReg when
// it has to be computed.
func (g *gen) locate(e ast.Expr) value {
	if cv, ok := g.info.Consts[e]; ok && !cv.IsStr {
		return value{loc: locImm, imm: int64(cv.Int)}
	}
	switch x := e.(type) {
	case *ast.Paren:
		return g.locate(x.X)
	case *ast.Var:
		if off, t := g.varSlot(x); t != nil && !t.IsBuffer() {
			return value{loc: locStack, off: off}
		}
	}
	return value{loc: locReg}
}

// fitsImm reports whether v is a constant usable as a sign-extended
// 32-bit immediate.
func (v value) fitsImm() bool {
	return v.loc == locImm && v.imm >= math.MinInt32 && v.imm <= math.MaxInt32
}

// load puts a located value (not locReg) into reg.
func (g *gen) load(reg asm.Register, v value) {
	switch v.loc {
	case locImm:
		g.loadImm(reg, v.imm)
	case locStack:
		g.emit(g.ldx(reg, v.off, asm.DWord))
	}
}

// operands evaluates x into R0 and y into R1, left to right.
func (g *gen) operands(x, y ast.Expr) {
	if vy := g.locate(y); vy.loc != locReg {
		// y has no code and no side effect: read it after x.
		g.scalar(x)
		g.load(asm.R1, vy)
		return
	}
	if vx := g.locate(x); vx.loc != locReg {
		// x has no code, but y may change it ($x + $x++): read x first.
		if vx.loc == locStack {
			g.scalar(x)
			tmp := g.spill(x.Pos())
			g.scalar(y)
			g.emit(asm.Mov.Reg(asm.R1, asm.R0), g.ldx(asm.R0, tmp, asm.DWord))
			return
		}
		g.scalar(y)
		g.emit(asm.Mov.Reg(asm.R1, asm.R0))
		g.load(asm.R0, vx)
		return
	}
	g.scalar(x)
	tmp := g.spill(x.Pos())
	g.scalar(y)
	g.emit(
		asm.Mov.Reg(asm.R1, asm.R0),
		g.ldx(asm.R0, tmp, asm.DWord),
	)
}
