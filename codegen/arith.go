package codegen

import (
	"fmt"
	"math"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func (g *gen) binary(e *ast.Binary) {
	xt, yt := g.info.TypeOf(e.X), g.info.TypeOf(e.Y)
	switch e.Op {
	case "&&", "||":
		g.boolValue(e)
		return
	case "==", "!=":
		if xt.Kind == types.String {
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
	signed := signedOp(xt, yt)
	g.arith(e.Op, signed, e.Pos())
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
func (g *gen) arith(op string, signed bool, pos ast.Pos) {
	switch op {
	case "+":
		g.emit(asm.Add.Reg(asm.R0, asm.R1))
	case "-":
		g.emit(asm.Sub.Reg(asm.R0, asm.R1))
	case "*":
		g.emit(asm.Mul.Reg(asm.R0, asm.R1))
	case "/", "%":
		g.divide(op == "%", signed)
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

// divide computes R0 = R0 / R1 (or R0 % R1). BPF division is unsigned; for
// signed operands the signs are divided out and put back as C does
// (truncation toward zero, remainder takes the dividend's sign). Division by
// zero yields 0 for / and the dividend for %, as in BPF.
func (g *gen) divide(mod, signed bool) {
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
