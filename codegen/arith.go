package codegen

import (
	"fmt"
	"math"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

func (g *gen) binary(e *ast.Binary) {
	xt, yt := g.info.TypeOf(e.X), g.info.TypeOf(e.Y)
	switch e.Op {
	case "&&", "||":
		g.boolValue(e)
		return
	case "==", "!=":
		if bytewise(xt) {
			g.stringEqual(e)
			return
		}
	}
	if (e.Op == "+" || e.Op == "-") && (xt.Kind == types.Pointer && yt.IsInt() || yt.Kind == types.Pointer && xt.IsInt()) {
		g.pointerArith(e, xt, yt)
		return
	}
	if op, ok := immOps[e.Op]; ok {
		if cv, ok := g.info.Consts[e.Y]; ok && !cv.IsStr && int64(cv.Int) >= math.MinInt32 && int64(cv.Int) <= math.MaxInt32 {
			// A constant operand that fits 32 bits is an immediate (sign
			// extended, as loadImm's would be).
			g.scalar(e.X)
			g.emit(op.Imm(asm.R0, int32(int64(cv.Int))))
			return
		}
	}
	g.operands(e.X, e.Y)
	switch e.Op {
	case "/", "%":
		cv, ok := g.info.Consts[e.Y]
		g.divide(e.Op == "%", g.info.SignedOperands(e.X, e.Y), !ok || cv.IsStr || cv.Int == 0, e.Pos())
		return
	case ">>":
		g.arith(e.Op, g.info.SignedOperands(e.X, e.Y), e.Pos())
		return
	case "==", "!=", "<", "<=", ">", ">=":
		g.arith(e.Op, g.info.SignedCompare(e.X, e.Y), e.Pos())
		return
	}
	g.arith(e.Op, signedOp(xt, yt), e.Pos())
}

// compoundSigned reports whether $v op= x, with $v of type t, is a signed
// operation: for /=, %= and >>= both sides signed (a non-negative constant
// takes $v's sign), as check.Info.SignedOperands; otherwise signedOp.
func (g *gen) compoundSigned(op string, t *types.Type, x ast.Expr) bool {
	xt := g.info.TypeOf(x)
	switch op {
	case "/=", "%=", ">>=":
		cv, ok := g.info.Consts[x]
		flex := ok && !cv.IsStr && xt.Kind == types.Int && xt.Signed && int64(cv.Int) >= 0
		return check.SignedPair(t, xt, false, flex)
	}
	return signedOp(t, xt)
}

// immOps are the operators whose BPF instruction has an immediate form with
// the same result as the register form.
var immOps = map[string]asm.ALUOp{"+": asm.Add, "-": asm.Sub, "*": asm.Mul, "&": asm.And, "|": asm.Or, "^": asm.Xor}

// pointerArith computes p + n or p - n, with n scaled by the size of *p.
func (g *gen) pointerArith(e *ast.Binary, xt, yt *types.Type) {
	pt := xt
	if yt.Kind == types.Pointer {
		pt = yt
	}
	scale := int32(1)
	if pt.Elem != nil && pt.Elem.Size > 0 {
		scale = int32(pt.Elem.Size)
		if pt.Elem.Kind == types.Pointer {
			scale = 8
		}
	}
	g.operands(e.X, e.Y)
	if yt.Kind == types.Pointer {
		// n + p: scale the left operand
		if scale != 1 {
			g.emit(asm.Mul.Imm(asm.R0, scale))
		}
		g.emit(asm.Add.Reg(asm.R0, asm.R1))
		return
	}
	if scale != 1 {
		g.emit(asm.Mul.Imm(asm.R1, scale))
	}
	if e.Op == "-" {
		g.emit(asm.Sub.Reg(asm.R0, asm.R1))
	} else {
		g.emit(asm.Add.Reg(asm.R0, asm.R1))
	}
}

// arith computes R0 = R0 op R1.
func (g *gen) arith(op string, signed bool, pos srcpos.Pos) {
	switch op {
	case "+":
		g.emit(asm.Add.Reg(asm.R0, asm.R1))
	case "-":
		g.emit(asm.Sub.Reg(asm.R0, asm.R1))
	case "*":
		g.emit(asm.Mul.Reg(asm.R0, asm.R1))
	case "/", "%":
		g.divide(op == "%", signed, true, pos)
	case "&":
		g.emit(asm.And.Reg(asm.R0, asm.R1))
	case "|":
		g.emit(asm.Or.Reg(asm.R0, asm.R1))
	case "^":
		g.emit(asm.Xor.Reg(asm.R0, asm.R1))
	case "<<":
		g.emit(asm.LSh.Reg(asm.R0, asm.R1))
	case ">>":
		if signed {
			g.emit(asm.ArSh.Reg(asm.R0, asm.R1))
		} else {
			g.emit(asm.RSh.Reg(asm.R0, asm.R1))
		}
	case "==", "!=", "<", "<=", ">", ">=":
		jmp := map[string]asm.JumpOp{"==": asm.JEq, "!=": asm.JNE, "<": asm.JLT, "<=": asm.JLE, ">": asm.JGT, ">=": asm.JGE}[op]
		if signed {
			jmp = map[string]asm.JumpOp{"==": asm.JEq, "!=": asm.JNE, "<": asm.JSLT, "<=": asm.JSLE, ">": asm.JSGT, ">=": asm.JSGE}[op]
		}
		t, end := g.newLabel("cmp"), g.newLabel("cmpend")
		g.emit(jmp.Reg(asm.R0, asm.R1, t), asm.Mov.Imm(asm.R0, 0), asm.Ja.Label(end))
		g.mark(t)
		g.emit(asm.Mov.Imm(asm.R0, 1))
		g.mark(end)
	default:
		g.fail(pos, fmt.Errorf("operator %s not supported by the code generator", op))
	}
}

// divZeroMsg is bpftrace's warning for a division or modulo by zero.
const divZeroMsg = "Divide or modulo by 0 detected. This can lead to unexpected results. 1 is being used as the result."

// divide computes R0 = R0 / R1 (or R0 % R1). BPF division is unsigned; for
// signed operands the signs are divided out and put back as C does
// (truncation toward zero, remainder takes the dividend's sign). When the
// divisor may be zero it is checked first: as in bpftrace, the result is
// then 1 and a run-time warning is sent (BPF itself would yield 0 for /
// and the dividend for %).
func (g *gen) divide(mod, signed, check bool, pos srcpos.Pos) {
	var done string
	if check {
		nz := g.newLabel("divnz")
		done = g.newLabel("divend")
		g.emit(asm.JNE.Imm(asm.R1, 0, nz))
		g.runtimeError(divZeroMsg, pos)
		g.emit(asm.Mov.Imm(asm.R0, 1), asm.Ja.Label(done))
		g.mark(nz)
	}
	g.divide1(mod, signed)
	if check {
		g.mark(done)
	}
}

func (g *gen) divide1(mod, signed bool) {
	if !signed {
		if mod {
			g.emit(asm.Mod.Reg(asm.R0, asm.R1))
		} else {
			g.emit(asm.Div.Reg(asm.R0, asm.R1))
		}
		return
	}
	l1, l2, l3 := g.newLabel("sdiv"), g.newLabel("sdiv"), g.newLabel("sdiv")
	g.emit(asm.Mov.Imm(asm.R2, 0), asm.JSGE.Imm(asm.R0, 0, l1), asm.Neg.Imm(asm.R0, 0), asm.Mov.Imm(asm.R2, 1))
	g.mark(l1)
	if mod {
		g.emit(asm.JSGE.Imm(asm.R1, 0, l2), asm.Neg.Imm(asm.R1, 0))
		g.mark(l2)
		g.emit(asm.Mod.Reg(asm.R0, asm.R1))
	} else {
		g.emit(asm.JSGE.Imm(asm.R1, 0, l2), asm.Neg.Imm(asm.R1, 0), asm.Xor.Imm(asm.R2, 1))
		g.mark(l2)
		g.emit(asm.Div.Reg(asm.R0, asm.R1))
	}
	g.emit(asm.JEq.Imm(asm.R2, 0, l3), asm.Neg.Imm(asm.R0, 0))
	g.mark(l3)
}

// runtimeError sends an EventRuntimeError carrying msg for the script
// position pos. It clobbers R0-R5.
func (g *gen) runtimeError(msg string, pos srcpos.Pos) {
	id := len(g.c.out.RuntimeErrors)
	g.c.out.RuntimeErrors = append(g.c.out.RuntimeErrors, object.RuntimeError{Msg: msg, Pos: pos})
	rec := g.alloc(object.EventHeaderSize, pos)
	g.emit(
		g.st(rec, int64(object.EventRuntimeError)),
		g.st(rec+8, int64(id)),
		asm.LoadMapPtr(asm.R1, 0).WithReference(eventsMapName),
		asm.Mov.Reg(asm.R2, g.base(rec)),
		asm.Add.Imm(asm.R2, int32(rec)),
		asm.Mov.Imm(asm.R3, object.EventHeaderSize),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
	)
}
