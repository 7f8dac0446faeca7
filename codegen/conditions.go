package codegen

import (
	"encoding/binary"
	"math"
	"strings"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// Conditions. Predicates, if, while, the ternary, &&, || and ! do not
// materialise a boolean that only feeds a jump: branch evaluates a
// condition straight into a jump. A comparison used as a value (an
// assignment, a printf argument) still yields 0 or 1 in R0.

// branch jumps to target when the truth of e equals when, and falls
// through otherwise.
func (g *gen) branch(e ast.Expr, target string, when bool) {
	// A constant condition still jumps conditionally: the verifier rejects
	// code it cannot reach.
	switch x := e.(type) {
	case *ast.Paren:
		g.branch(x.X, target, when)
		return
	case *ast.Unary:
		if x.Op == "!" {
			g.branch(x.X, target, !when)
			return
		}
	case *ast.Binary:
		switch x.Op {
		case "&&", "||":
			g.branchLogical(x, target, when)
			return
		case "==", "!=", "<", "<=", ">", ">=":
			if g.branchCompare(x, target, when) {
				return
			}
		}
	}
	g.scalar(e)
	if when {
		g.emit(asm.JNE.Imm(asm.R0, 0, target))
	} else {
		g.emit(asm.JEq.Imm(asm.R0, 0, target))
	}
}

// branchLogical branches on a && b or a || b, short-circuiting.
func (g *gen) branchLogical(e *ast.Binary, target string, when bool) {
	// a && b is false as soon as a is; a || b is true as soon as a is.
	decides := e.Op == "||"
	if when == decides {
		g.branch(e.X, target, when)
		g.branch(e.Y, target, when)
		return
	}
	skip := g.newLabel("sc")
	g.branch(e.X, skip, decides)
	g.branch(e.Y, target, when)
	g.mark(skip)
}

// branchCompare branches on an integer comparison without materialising
// its value; it reports false for comparisons it leaves to scalar (strings,
// pointer arithmetic).
func (g *gen) branchCompare(e *ast.Binary, target string, when bool) bool {
	xt, yt := g.info.TypeOf(e.X), g.info.TypeOf(e.Y)
	if bytewise(xt) && bytewise(yt) && (e.Op == "==" || e.Op == "!=") {
		g.branchStrings(e, target, when)
		return true
	}
	if e.Op == "==" || e.Op == "!=" {
		// A pointer tested against 0 jumps on an immediate 0: only from
		// that does the verifier learn that a pointer which may be null
		// (bpf_per_cpu_ptr's) is not, in the branch that says so.
		p := e.X
		if g.isZero(e.X) {
			p = e.Y
		}
		if pt := g.info.TypeOf(p); pt != nil && pt.Kind == types.Pointer && (g.isZero(e.X) || g.isZero(e.Y)) {
			g.scalar(p)
			if (e.Op == "!=") == when {
				g.emit(asm.JNE.Imm(asm.R0, 0, target))
			} else {
				g.emit(asm.JEq.Imm(asm.R0, 0, target))
			}
			return true
		}
	}
	if xt.Kind == types.String || xt.Kind == types.Pointer && yt.IsInt() || yt.Kind == types.Pointer && xt.IsInt() {
		return false
	}
	op := e.Op
	if !when {
		op = negated[op]
	}
	jmp := compareJump(op, g.info.SignedCompare(e.X, e.Y))
	if cv, ok := g.info.Consts[e.Y]; ok && !cv.IsStr && int64(cv.Int) >= math.MinInt32 && int64(cv.Int) <= math.MaxInt32 {
		// The immediate is sign-extended to 64 bits, as loadImm's would be.
		g.scalar(e.X)
		g.emit(jmp.Imm(asm.R0, int32(int64(cv.Int)), target))
		return true
	}
	g.operands(e.X, e.Y)
	g.emit(jmp.Reg(asm.R0, asm.R1, target))
	return true
}

// branchStrings branches on the equality of two zero-padded strings,
// word by word; a constant right operand is compared as immediates,
// without building it on the stack.
func (g *gen) branchStrings(e *ast.Binary, target string, when bool) {
	xt, yt := g.info.TypeOf(e.X), g.info.TypeOf(e.Y)
	n := roundUp(min(xt.Size, yt.Size), 8)
	wantEqual := (e.Op == "==") == when
	if xt.IsBuf() && yt.IsBuf() && (xt.Kind == types.Buf) != (yt.Kind == types.Buf) {
		// a buf() of a run-time length and one of a constant length: the
		// length, then the bytes
		g.bufLenEqual(e, xt, yt)
		jmp := asm.JNE
		if !when {
			jmp = asm.JEq
		}
		g.emit(jmp.Imm(asm.R0, 0, target))
		return
	}
	if !sameLayout(xt, yt) {
		// tuples of different layouts: compared in their unified type
		a, b, n := g.compared(e)
		differ := target
		if wantEqual {
			differ = g.newLabel("tupne")
		}
		for i := 0; i < n; i += 8 {
			g.emit(
				g.ldx(asm.R1, a+int16(i), asm.DWord),
				g.ldx(asm.R2, b+int16(i), asm.DWord),
				asm.JNE.Reg(asm.R1, asm.R2, differ),
			)
		}
		if wantEqual {
			g.emit(asm.Ja.Label(target))
			g.mark(differ)
		}
		return
	}
	if differentBufs(xt, yt) {
		a := g.buffer(e.X)
		g.buffer(e.Y)
		if !wantEqual {
			// Always taken, but conditional: the code after it stays
			// reachable for the verifier's control flow check.
			g.emit(g.ldx(asm.R1, a, asm.DWord), asm.JGE.Imm(asm.R1, 0, target))
		}
		return
	}
	a := g.buffer(e.X)
	var words []int64
	var b int16
	if cv, ok := g.info.Consts[e.Y]; ok && cv.IsStr {
		str := cv.Str
		if i := strings.IndexByte(str, 0); i >= 0 {
			str = str[:i]
		}
		buf := make([]byte, roundUp(max(n, len(str)+1), 8))
		copy(buf, str)
		for i := 0; i < n; i += 8 {
			words = append(words, int64(binary.LittleEndian.Uint64(buf[i:])))
		}
	} else {
		b = g.buffer(e.Y)
	}
	differ := target
	if wantEqual {
		differ = g.newLabel("strne")
	}
	for i := 0; i < n; i += 8 {
		g.emit(g.ldx(asm.R1, a+int16(i), asm.DWord))
		switch {
		case words == nil:
			g.emit(g.ldx(asm.R2, b+int16(i), asm.DWord), asm.JNE.Reg(asm.R1, asm.R2, differ))
		case words[i/8] >= math.MinInt32 && words[i/8] <= math.MaxInt32:
			g.emit(asm.JNE.Imm(asm.R1, int32(words[i/8]), differ))
		default:
			g.emit(asm.LoadImm(asm.R2, words[i/8], asm.DWord), asm.JNE.Reg(asm.R1, asm.R2, differ))
		}
	}
	if wantEqual {
		g.emit(asm.Ja.Label(target))
		g.mark(differ)
	}
}

// negated maps a comparison to its negation.
var negated = map[string]string{"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}

// compareJump is the jump taken when a comparison holds.
func compareJump(op string, signed bool) asm.JumpOp {
	if signed {
		return map[string]asm.JumpOp{"==": asm.JEq, "!=": asm.JNE, "<": asm.JSLT, "<=": asm.JSLE, ">": asm.JSGT, ">=": asm.JSGE}[op]
	}
	return map[string]asm.JumpOp{"==": asm.JEq, "!=": asm.JNE, "<": asm.JLT, "<=": asm.JLE, ">": asm.JGT, ">=": asm.JGE}[op]
}

// boolValue materialises the truth of a condition as 0 or 1 in R0.
func (g *gen) boolValue(e ast.Expr) {
	yes, end := g.newLabel("true"), g.newLabel("bend")
	g.branch(e, yes, true)
	g.emit(asm.Mov.Imm(asm.R0, 0), asm.Ja.Label(end))
	g.mark(yes)
	g.emit(asm.Mov.Imm(asm.R0, 1))
	g.mark(end)
}

// isZero reports whether e is the constant integer 0.
func (g *gen) isZero(e ast.Expr) bool {
	cv, ok := g.info.Consts[e]
	return ok && !cv.IsStr && cv.Int == 0
}
