package codegen

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// loadImm puts a 64-bit constant in reg with the shortest encoding.
func (g *gen) loadImm(reg asm.Register, v int64) {
	if v >= math.MinInt32 && v <= math.MaxInt32 {
		g.emit(asm.Mov.Imm(reg, int32(v)))
		return
	}
	g.emit(asm.LoadImm(reg, v, asm.DWord))
}

// isUnsigned64 reports whether an operand forces unsigned arithmetic.
func isUnsigned(t *types.Type) bool {
	return t.Kind == types.Pointer || (t.Kind == types.Int && !t.Signed && t.Size == 8)
}

// signedOp reports whether a binary operation on a and b is signed.
func signedOp(a, b *types.Type) bool { return !isUnsigned(a) && !isUnsigned(b) }

// extend sign- or zero-extends the low size bytes of R0 to 64 bits.
func (g *gen) extend(reg asm.Register, size int, signed bool) {
	if size >= 8 {
		return
	}
	shift := int32(64 - size*8)
	if signed {
		g.emit(asm.LSh.Imm(reg, shift), asm.ArSh.Imm(reg, shift))
		return
	}
	if size == 4 {
		g.emit(asm.Mov.Reg32(reg, reg))
		return
	}
	g.emit(asm.And.Imm(reg, int32(1)<<(size*8)-1))
}

// scalar evaluates an integer, bool or pointer expression into R0.
func (g *gen) scalar(e ast.Expr) {
	if cv, ok := g.info.Consts[e]; ok && !cv.IsStr {
		g.loadImm(asm.R0, int64(cv.Int))
		return
	}
	switch e := e.(type) {
	case *ast.Paren:
		g.scalar(e.X)
	case *ast.Var:
		off, _ := g.varSlot(e)
		g.emit(asm.LoadMem(asm.R0, g.fp, off, asm.DWord))
	case *ast.MapRef:
		g.mapReadScalar(e)
	case *ast.Ident:
		g.builtinScalar(e)
	case *ast.Call:
		g.call(e)
	case *ast.Unary:
		g.unary(e)
	case *ast.Binary:
		g.binary(e)
	case *ast.Ternary:
		elseL, endL := g.newLabel("telse"), g.newLabel("tend")
		g.branch(e.Cond, elseL, false)
		g.scalar(e.Then)
		g.emit(asm.Ja.Label(endL))
		g.mark(elseL)
		g.scalar(e.Else)
		g.mark(endL)
		g.emit(asm.Mov.Reg(asm.R0, asm.R0))
	case *ast.Field:
		g.fieldScalar(e)
	case *ast.BlockExpr:
		g.blockValue(e.Body, func(x ast.Expr) { g.scalar(x) })
	case *ast.Index:
		g.indexScalar(e)
	case *ast.Cast:
		t := g.info.TypeOf(e)
		if xt := g.info.TypeOf(e.X); xt.Kind == types.Array {
			off := g.buffer(e.X)
			g.emit(asm.LoadMem(asm.R0, g.fp, off, sizeOf(t)))
			g.extend(asm.R0, t.Size, t.Signed)
			return
		}
		g.scalar(e.X)
		if t.Kind == types.Bool {
			g.boolify()
			return
		}
		g.extend(asm.R0, t.Size, t.Signed)
	default:
		g.fail(e.Pos(), fmt.Errorf("expression not supported by the code generator"))
	}
}

// boolify turns R0 into 0 or 1.
func (g *gen) boolify() {
	l := g.newLabel("bool")
	g.emit(asm.JEq.Imm(asm.R0, 0, l), asm.Mov.Imm(asm.R0, 1))
	g.mark(l)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

func (g *gen) unary(e *ast.Unary) {
	switch e.Op {
	case "++", "--":
		g.incDecValue(e)
		return
	case "*":
		g.deref(e)
		return
	}
	if e.Op == "!" {
		g.boolValue(e)
		return
	}
	g.scalar(e.X)
	switch e.Op {
	case "~":
		g.emit(asm.Xor.Imm(asm.R0, -1))
	case "*":
		// evaluated by deref, below
	case "-":
		g.emit(asm.Neg.Imm(asm.R0, 0))
	}
}

// spill saves R0 in a fresh stack slot and returns its offset.
func (g *gen) spill(pos ast.Pos) int16 {
	off := g.alloc(8, pos)
	g.emit(asm.StoreMem(g.fp, off, asm.R0, asm.DWord))
	return off
}

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
	if xt.Kind == types.Pointer && yt.IsInt() || yt.Kind == types.Pointer && xt.IsInt() {
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
		g.emit(asm.Mov.Reg(asm.R0, asm.R0))
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
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

// stringEqual compares two zero-padded string buffers word by word.
func (g *gen) stringEqual(e *ast.Binary) {
	a := g.buffer(e.X)
	b := g.buffer(e.Y)
	n := roundUp(min(g.info.TypeOf(e.X).Size, g.info.TypeOf(e.Y).Size), 8)
	ne, end := g.newLabel("strne"), g.newLabel("strend")
	for i := 0; i < n; i += 8 {
		g.emit(
			asm.LoadMem(asm.R1, g.fp, a+int16(i), asm.DWord),
			asm.LoadMem(asm.R2, g.fp, b+int16(i), asm.DWord),
			asm.JNE.Reg(asm.R1, asm.R2, ne),
		)
	}
	eq := int32(1)
	if e.Op == "!=" {
		eq = 0
	}
	g.emit(asm.Mov.Imm(asm.R0, eq), asm.Ja.Label(end))
	g.mark(ne)
	g.emit(asm.Mov.Imm(asm.R0, 1-eq))
	g.mark(end)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

// builtinScalar loads an integer builtin variable into R0.
func (g *gen) builtinScalar(e *ast.Ident) {
	switch e.Name {
	case "pid":
		g.emit(asm.FnGetCurrentPidTgid.Call(), asm.RSh.Imm(asm.R0, 32))
	case "tid":
		g.emit(asm.FnGetCurrentPidTgid.Call(), asm.Mov.Reg32(asm.R0, asm.R0))
	case "uid", "username":
		g.emit(asm.FnGetCurrentUidGid.Call(), asm.Mov.Reg32(asm.R0, asm.R0))
	case "gid":
		g.emit(asm.FnGetCurrentUidGid.Call(), asm.RSh.Imm(asm.R0, 32))
	case "nsecs":
		g.emit(asm.FnKtimeGetNs.Call())
	case "elapsed":
		g.c.useGlobals()
		key := g.alloc(8, e.Pos())
		none := g.newLabel("noglobals")
		g.emit(
			stImm(g.fp, key, 0),
			asm.LoadMapPtr(asm.R1, 0).WithReference(globalsMapName),
			asm.Mov.Reg(asm.R2, g.fp),
			asm.Add.Imm(asm.R2, int32(key)),
			asm.FnMapLookupElem.Call(),
			asm.Mov.Imm(asm.R1, 0),
			asm.JEq.Imm(asm.R0, 0, none),
			asm.LoadMem(asm.R1, asm.R0, int16(g.c.out.Globals.StartNsOffset), asm.DWord),
		)
		g.mark(none)
		g.emit(
			asm.StoreMem(g.fp, key, asm.R1, asm.DWord),
			asm.FnKtimeGetNs.Call(),
			asm.LoadMem(asm.R1, g.fp, key, asm.DWord),
			asm.Sub.Reg(asm.R0, asm.R1),
		)
	case "cpu":
		g.emit(asm.FnGetSmpProcessorId.Call())
	case "cgroup":
		g.emit(asm.FnGetCurrentCgroupId.Call())
	case "rand":
		g.emit(asm.FnGetPrandomU32.Call())
	case "curtask":
		g.emit(asm.FnGetCurrentTask.Call())
	case "jiffies":
		g.emit(asm.FnJiffies64.Call())
	case "ctx":
		g.emit(asm.Mov.Reg(asm.R0, rCtx))
	case "kstack":
		g.kstack()
	case "ppid":
		// curtask->real_parent->tgid
		l := g.c.prog.Task
		tmp := g.alloc(8, e.Pos())
		g.emit(asm.FnGetCurrentTask.Call(), asm.Add.Imm(asm.R0, int32(l.RealParent)))
		g.readKernel(tmp, 8, types.Kernel)
		g.emit(asm.LoadMem(asm.R0, g.fp, tmp, asm.DWord), asm.Add.Imm(asm.R0, int32(l.Tgid)))
		g.readKernel(tmp, 4, types.Kernel)
		g.emit(asm.LoadMem(asm.R0, g.fp, tmp, asm.Word))
	case "numaid":
		g.emit(asm.FnGetNumaNodeId.Call())
	case "retval":
		g.retval(e)
	case "func":
		g.emit(asm.Mov.Reg(asm.R1, rCtx), asm.FnGetFuncIp.Call())
	case "arg0", "arg1", "arg2", "arg3", "arg4", "arg5":
		if g.isKprobeCtx() {
			g.loadReg(argRegs[e.Name[3]-'0'], e.Pos())
		} else {
			// BTF raw tracepoints: the arguments are a u64 array
			g.emit(asm.LoadMem(asm.R0, rCtx, int16(8*(e.Name[3]-'0')), asm.DWord))
		}
	default:
		g.fail(e.Pos(), fmt.Errorf("builtin %s has no integer value", e.Name))
	}
}

// argsField returns the tracepoint field selected by e (args.name).
func (g *gen) argsField(e *ast.Field) *types.Field {
	at := g.info.ArgsType
	for i := range at.Fields {
		if at.Fields[i].Name == e.Name {
			return &at.Fields[i]
		}
	}
	return nil
}

// isArgs reports whether x is the args builtin.
func isArgs(x ast.Expr) bool {
	id, ok := x.(*ast.Ident)
	return ok && id.Name == "args"
}

// isTupleField reports whether e selects an element of a tuple or record
// value (rather than args or a kernel struct).
func (g *gen) isTupleField(e *ast.Field) bool {
	k := g.info.TypeOf(e.X).Kind
	return !isArgs(e.X) && (k == types.Tuple || k == types.Record)
}

func (g *gen) fieldScalar(e *ast.Field) {
	if g.isTupleField(e) {
		f := g.info.Members[e]
		off := g.buffer(e.X) + int16(f.Offset)
		g.emit(asm.LoadMem(asm.R0, g.fp, off, sizeOf(f.Type)))
		return
	}
	if !isArgs(e.X) {
		g.memberScalar(e)
		return
	}
	if g.probe.Provider() != "tracepoint" {
		f := g.info.Members[e]
		g.kfuncArg(f.Offset/8, f.Type, e.Pos())
		return
	}
	f := g.argsField(e)
	if f == nil {
		g.fail(e.Pos(), fmt.Errorf("field %s not found", e.Name))
		return
	}
	size := f.Type.Size
	if f.Type.Kind == types.Pointer {
		size = 8
	}
	sz := map[int]asm.Size{1: asm.Byte, 2: asm.Half, 4: asm.Word, 8: asm.DWord}[size]
	g.emit(asm.LoadMem(asm.R0, rCtx, int16(f.Offset), sz))
	if f.Type.Kind == types.Int {
		g.extend(asm.R0, size, f.Type.Signed)
	}
}

// buffer evaluates a string expression into a zero-padded stack buffer of
// roundUp(size, 8) bytes and returns its offset.
func (g *gen) buffer(e ast.Expr) int16 {
	t := g.info.TypeOf(e)
	if cv, ok := g.info.Consts[e]; ok && cv.IsStr {
		if t.Kind == types.Array {
			return g.bytesConst(cv.Str, t.Size, e.Pos())
		}
		return g.stringConst(cv.Str, t.Size, e.Pos())
	}
	switch e := e.(type) {
	case *ast.Paren:
		return g.buffer(e.X)
	case *ast.Var:
		off, _ := g.varSlot(e)
		return off
	case *ast.MapRef:
		return g.mapReadBuffer(e)
	case *ast.Ident:
		if e.Name == "ustack" {
			return g.ustack(e.Pos())
		}
		if e.Name == "pcomm" {
			// curtask->group_leader->comm
			l := g.c.prog.Task
			tmp := g.alloc(8, e.Pos())
			off := g.alloc(16, e.Pos())
			g.emit(asm.FnGetCurrentTask.Call(), asm.Add.Imm(asm.R0, int32(l.GroupLeader)))
			g.readKernel(tmp, 8, types.Kernel)
			g.emit(asm.LoadMem(asm.R0, g.fp, tmp, asm.DWord), asm.Add.Imm(asm.R0, int32(l.Comm)))
			g.readKernel(off, 16, types.Kernel)
			return off
		}
		if e.Name == "comm" {
			off := g.alloc(16, e.Pos())
			g.comm(off)
			return off
		}
	case *ast.Call:
		switch e.Name {
		case "str":
			return g.str(e)
		case "ntop":
			return g.ntop(e)
		case "usym":
			off := g.alloc(16, e.Pos())
			g.scalar(e.Args[0])
			g.emit(asm.StoreMem(g.fp, off, asm.R0, asm.DWord), asm.FnGetCurrentPidTgid.Call(), asm.RSh.Imm(asm.R0, 32), asm.StoreMem(g.fp, off+8, asm.R0, asm.DWord))
			return off
		case "ustack":
			return g.ustack(e.Pos())
		case "buf":
			return g.buf(e)
		case "str_concat":
			return g.strConcat(e)
		case "path":
			off := g.alloc(t.Size, e.Pos())
			g.zero(off, t.Size)
			g.scalar(e.Args[0])
			g.emit(
				asm.Mov.Reg(asm.R1, asm.R0),
				asm.Mov.Reg(asm.R2, g.fp),
				asm.Add.Imm(asm.R2, int32(off)),
				asm.Mov.Imm(asm.R3, int32(t.Size)),
				asm.FnDPath.Call(),
			)
			return off
		}
	case *ast.Field:
		return g.fieldBuffer(e)
	case *ast.BlockExpr:
		var off int16
		g.blockValue(e.Body, func(x ast.Expr) { off = g.buffer(x) })
		return off
	case *ast.Cast:
		// (T[N])x: the bytes of x
		off := g.alloc(t.Size, e.Pos())
		g.zero(off, t.Size)
		if xt := g.info.TypeOf(e.X); xt.IsBuffer() {
			g.copyInto(off, t.Size, e.X)
			return off
		}
		g.scalar(e.X)
		g.emit(asm.StoreMem(g.fp, off, asm.R0, sizeOf(&types.Type{Kind: types.Int, Size: t.Size})))
		return off
	case *ast.Tuple:
		off := g.alloc(t.Size, e.Pos())
		g.zero(off, t.Size)
		for i, x := range e.Elems {
			f := t.Fields[i]
			if f.Type.IsBuffer() {
				g.copyInto(off+int16(f.Offset), f.Type.Size, x)
				continue
			}
			g.scalar(x)
			g.emit(asm.StoreMem(g.fp, off+int16(f.Offset), asm.R0, sizeOf(f.Type)))
		}
		return off
	case *ast.Ternary:
		off := g.alloc(t.Size, e.Pos())
		elseL, endL := g.newLabel("telse"), g.newLabel("tend")
		g.branch(e.Cond, elseL, false)
		g.copyInto(off, t.Size, e.Then)
		g.emit(asm.Ja.Label(endL))
		g.mark(elseL)
		g.copyInto(off, t.Size, e.Else)
		g.mark(endL)
		g.emit(asm.Mov.Reg(asm.R0, asm.R0))
		return off
	}
	g.fail(e.Pos(), fmt.Errorf("%s value not supported by the code generator", t))
	return g.alloc(t.Size, e.Pos())
}

// copyInto evaluates the buffer expression e and copies it into the
// size-byte slot at dst, zero-filling the rest.
func (g *gen) copyInto(dst int16, size int, e ast.Expr) {
	if g.buildInto(dst, size, e) {
		return
	}
	src := g.buffer(e)
	n := roundUp(min(g.info.TypeOf(e).Size, size), 8)
	g.copyMem(g.fp, dst, g.fp, src, n)
	for i := n; i < roundUp(size, 8); i += 8 {
		g.emit(stImm(g.fp, dst+int16(i), 0))
	}
}

// buildInto evaluates the buffer expression e straight into the size-byte
// slot at dst, zero-filling the rest, when its value can be built in place
// (a map key, an event record): no temporary and no copy. It reports false
// for expressions it leaves to buffer and copyInto.
func (g *gen) buildInto(dst int16, size int, e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.Paren:
		return g.buildInto(dst, size, x.X)
	case *ast.Ident:
		if x.Name == "comm" && size >= 16 {
			g.comm(dst)
			for i := 16; i < roundUp(size, 8); i += 8 {
				g.emit(stImm(g.fp, dst+int16(i), 0))
			}
			return true
		}
	}
	return false
}

// comm writes the current task's name into the 16 bytes at off. The
// helper pads the name with zeros (and zeroes the buffer on failure), so
// the slot needs no clearing first.
func (g *gen) comm(off int16) {
	g.emit(
		asm.Mov.Reg(asm.R1, g.fp),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, 16),
		asm.FnGetCurrentComm.Call(),
	)
}

// stringConst materialises a string constant in a size-byte stack buffer.
func (g *gen) stringConst(s string, size int, pos ast.Pos) int16 {
	// A string ends at its first NUL; the bytes after it stay zero, which
	// word-wise comparison relies on.
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return g.bytesConst(s, max(size, len(s)+1), pos)
}

// bytesConst materialises constant bytes in a zero-padded stack buffer.
func (g *gen) bytesConst(s string, size int, pos ast.Pos) int16 {
	size = roundUp(max(size, len(s)), 8)
	off := g.alloc(size, pos)
	b := make([]byte, size)
	copy(b, s)
	for i := 0; i < size; i += 8 {
		v := int64(binary.LittleEndian.Uint64(b[i:]))
		if v == 0 {
			g.emit(stImm(g.fp, off+int16(i), 0))
			continue
		}
		g.emit(asm.LoadImm(asm.R1, v, asm.DWord), asm.StoreMem(g.fp, off+int16(i), asm.R1, asm.DWord))
	}
	return off
}

// str reads a NUL-terminated string through a pointer.
func (g *gen) str(e *ast.Call) int16 {
	t := g.info.TypeOf(e)
	arg := e.Args[0]
	at := g.info.TypeOf(arg)
	if at.Kind == types.String {
		off := g.alloc(t.Size, e.Pos())
		g.copyInto(off, t.Size, arg)
		// A truncated copy has no NUL in its t.Size bytes: bpftrace's sign of
		// truncation, printed with str_trunc_trailer.
		for i := roundUp(t.Size, 8) - 1; i >= t.Size; i-- {
			g.emit(asm.StoreImm(g.fp, off+int16(i), 0, asm.Byte))
		}
		return off
	}
	// One byte more than the string: a string that fills t.Size bytes keeps
	// its terminator outside them, which marks it truncated when printed.
	off := g.alloc(t.Size+1, e.Pos())
	g.scalar(arg)
	g.emit(asm.Mov.Reg(asm.R3, asm.R0))
	g.zero(off, t.Size+1)
	fn := asm.FnProbeReadKernelStr
	switch {
	case at.AS == types.User || (at.AS == types.NoAS && g.info.UserArgs):
		fn = asm.FnProbeReadUserStr
	case at.AS == types.NoAS && g.probe.Provider() != "begin" && g.probe.Provider() != "end":
		// Unknown address space: the compat helper reads either (x86).
		fn = asm.FnProbeReadStr
	}
	size := int32(t.Size + 1)
	if len(e.Args) == 2 {
		if cv, ok := g.info.Consts[e.Args[1]]; !ok || cv.IsStr {
			// A run-time length: clamp it to the buffer.
			g.emit(asm.StoreMem(g.fp, off, asm.R3, asm.DWord)) // park the pointer
			g.scalar(e.Args[1])
			ok := g.newLabel("strlen")
			g.emit(
				asm.Add.Imm(asm.R0, 1),
				asm.JLE.Imm(asm.R0, size, ok),
				asm.Mov.Imm(asm.R0, size),
			)
			g.mark(ok)
			g.emit(
				asm.Mov.Reg(asm.R2, asm.R0),
				asm.LoadMem(asm.R3, g.fp, off, asm.DWord),
				stImm(g.fp, off, 0),
				asm.Mov.Reg(asm.R1, g.fp),
				asm.Add.Imm(asm.R1, int32(off)),
				fn.Call(),
			)
			return off
		}
	}
	g.emit(
		asm.Mov.Reg(asm.R1, g.fp),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, size),
		fn.Call(),
	)
	g.checkHelper(helperName(fn))
	return off
}

// fieldBuffer reads a string field of a tracepoint record.
func (g *gen) fieldBuffer(e *ast.Field) int16 {
	if g.isTupleField(e) {
		return g.buffer(e.X) + int16(g.info.Members[e].Offset)
	}
	if !isArgs(e.X) {
		return g.memberBuffer(e)
	}
	f := g.argsField(e)
	if f == nil {
		g.fail(e.Pos(), fmt.Errorf("field %s not found", e.Name))
		return 0
	}
	t := f.Type
	off := g.alloc(t.Size, e.Pos())
	g.zero(off, t.Size)
	g.emit(asm.Mov.Reg(asm.R1, g.fp), asm.Add.Imm(asm.R1, int32(off)))
	switch t.Name {
	case lang.DataLocString:
		// The field holds offset (low 16 bits) and length of the string.
		g.emit(
			asm.LoadMem(asm.R3, rCtx, int16(f.Offset), asm.Word),
			asm.And.Imm(asm.R3, 0xffff),
			asm.Add.Reg(asm.R3, rCtx),
			asm.Mov.Imm(asm.R2, int32(t.Size)),
			asm.FnProbeReadKernelStr.Call(),
		)
	default: // inline char array
		g.emit(
			asm.Mov.Reg(asm.R3, rCtx),
			asm.Add.Imm(asm.R3, int32(f.Offset)),
			asm.Mov.Imm(asm.R2, int32(t.Size)),
			asm.FnProbeReadKernel.Call(),
		)
	}
	return off
}

// elemAddr leaves in R0 the address of element e.Index of a pointer or of a
// kernel/tracepoint array.
func (g *gen) elemAddr(e *ast.Index) {
	xt := g.info.TypeOf(e.X)
	et := xt.Elem
	size := et.Size
	if et.Kind == types.Pointer {
		size = 8
	}
	if cv, ok := g.info.Consts[e.Index]; ok && !cv.IsStr {
		g.arrayBase(e.X)
		if off := int64(cv.Int) * int64(size); off != 0 {
			g.loadImm(asm.R1, off)
			g.emit(asm.Add.Reg(asm.R0, asm.R1))
		}
		return
	}
	g.scalar(e.Index)
	tmp := g.spill(e.Pos())
	g.arrayBase(e.X)
	g.emit(asm.LoadMem(asm.R1, g.fp, tmp, asm.DWord))
	if size != 1 {
		g.loadImm(asm.R2, int64(size))
		g.emit(asm.Mul.Reg(asm.R1, asm.R2))
	}
	g.emit(asm.Add.Reg(asm.R0, asm.R1))
}

// arrayBase leaves in R0 the address of the first element of x.
func (g *gen) arrayBase(x ast.Expr) {
	xt := g.info.TypeOf(x)
	if xt.Kind == types.Pointer {
		g.scalar(x)
		return
	}
	switch x := x.(type) {
	case *ast.Paren:
		g.arrayBase(x.X)
	case *ast.Field:
		if isArgs(x.X) && g.probe.Provider() == "tracepoint" {
			// an array inside the tracepoint record: its address in ctx
			g.emit(asm.Mov.Reg(asm.R0, rCtx), asm.Add.Imm(asm.R0, int32(g.info.Members[x].Offset)))
			return
		}
		g.memberAddr(x)
	default:
		g.fail(x.Pos(), fmt.Errorf("cannot index this %s", xt))
	}
}

// indexScalar reads x[i].
func (g *gen) indexScalar(e *ast.Index) {
	xt := g.info.TypeOf(e.X)
	t := g.info.TypeOf(e)
	if xt.Kind == types.String {
		off := g.buffer(e.X)
		g.emit(asm.LoadMem(asm.R0, g.fp, off+int16(g.info.Consts[e.Index].Int), asm.Byte))
		return
	}
	if cv, ok := g.info.Consts[e.Index]; ok && xt.Kind == types.Array && xt.BTF == nil && !isTracepointField(e.X) {
		// an array value in BPF memory (a cast, pton(), buf())
		off := g.buffer(e.X) + int16(int(cv.Int)*xt.Elem.Size)
		g.emit(asm.LoadMem(asm.R0, g.fp, off, sizeOf(t)))
		g.extend(asm.R0, t.Size, t.Signed)
		return
	}
	g.elemAddr(e)
	if t.Kind == types.Struct || t.Kind == types.Array {
		return // the address is the value
	}
	size := t.Size
	if t.Kind == types.Pointer {
		size = 8
	}
	tmp := g.alloc(8, e.Pos())
	as := xt.AS
	if xt.Kind == types.Array && isTracepointField(e.X) {
		as = types.Kernel
	}
	g.readKernel(tmp, size, as)
	g.loadSized(tmp, t)
}

func isTracepointField(x ast.Expr) bool {
	f, ok := x.(*ast.Field)
	return ok && isArgs(f.X)
}

// kstack records the kernel stack in the stack trace map; the value is its
// id (negative when the kernel could not record it).
func (g *gen) kstack() {
	g.c.useStacks()
	g.emit(
		asm.Mov.Reg(asm.R1, rCtx),
		asm.LoadMapPtr(asm.R2, 0).WithReference(stackMapName),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnGetStackid.Call(),
	)
}

// sizeOf is the load/store size of a scalar value of type t in memory.
func sizeOf(t *types.Type) asm.Size {
	switch {
	case t.Kind == types.Bool, t.Kind == types.Int && t.Size == 1:
		return asm.Byte
	case t.Kind == types.Int && t.Size == 2:
		return asm.Half
	case t.Kind == types.Int && t.Size == 4:
		return asm.Word
	}
	return asm.DWord
}

// ntop builds an inet value {family, address} on the stack.
func (g *gen) ntop(e *ast.Call) int16 {
	off := g.alloc(24, e.Pos())
	g.zero(off, 24)
	addr := e.Args[len(e.Args)-1]
	at := g.info.TypeOf(addr)
	family := int64(2) // AF_INET
	if at.Size == 16 && !at.IsInt() {
		family = 10 // AF_INET6
	}
	if len(e.Args) == 2 {
		g.scalar(e.Args[0])
		g.emit(asm.StoreMem(g.fp, off, asm.R0, asm.DWord))
	} else {
		g.emit(stImm(g.fp, off, family))
	}
	switch {
	case at.IsInt():
		g.scalar(addr)
		g.emit(asm.StoreMem(g.fp, off+8, asm.R0, asm.Word))
	case at.Kind == types.String:
		src := g.buffer(addr)
		g.copyMem(g.fp, off+8, g.fp, src, roundUp(at.Size, 8))
	default: // an array in kernel memory or the tracepoint record
		g.arrayBase(addr)
		tmp := g.alloc(16, e.Pos())
		g.readKernel(tmp, at.Size, types.Kernel)
		g.copyMem(g.fp, off+8, g.fp, tmp, 16)
	}
	return off
}

// buf reads a fixed number of bytes for %r.
func (g *gen) buf(e *ast.Call) int16 {
	t := g.info.TypeOf(e)
	at := g.info.TypeOf(e.Args[0])
	off := g.alloc(t.Size, e.Pos())
	switch {
	case at.Kind == types.String, at.Kind == types.Array && at.BTF == nil && !isTracepointField(e.Args[0]):
		// a value in BPF memory (a string, pton(), another buffer)
		g.copyInto(off, t.Size, e.Args[0])
		return off
	case at.Kind == types.Array:
		g.arrayBase(e.Args[0])
		as := at.AS
		if isTracepointField(e.Args[0]) || as == types.NoAS {
			as = types.Kernel
		}
		g.readKernel(off, t.Size, as)
	default:
		g.scalar(e.Args[0])
		as := at.AS
		if as == types.NoAS && g.info.UserArgs {
			as = types.User
		}
		g.readKernel(off, t.Size, as)
	}
	return off
}

// strConcat concatenates two strings: a is copied, then b after a's
// length, unrolled over the positions where a can end.
func (g *gen) strConcat(e *ast.Call) int16 {
	t := g.info.TypeOf(e)
	as, bs := g.info.TypeOf(e.Args[0]).Size, g.info.TypeOf(e.Args[1]).Size
	off := g.alloc(t.Size, e.Pos())
	g.copyInto(off, t.Size, e.Args[0])
	b := g.buffer(e.Args[1])
	done := g.newLabel("concat")
	for k := 0; k < as; k++ {
		next := g.newLabel("concatnext")
		g.emit(
			asm.LoadMem(asm.R1, g.fp, off+int16(k), asm.Byte),
			asm.JNE.Imm(asm.R1, 0, next),
		)
		for j := 0; j < bs && k+j < t.Size; j++ {
			g.emit(
				asm.LoadMem(asm.R1, g.fp, b+int16(j), asm.Byte),
				asm.StoreMem(g.fp, off+int16(k+j), asm.R1, asm.Byte),
			)
		}
		g.emit(asm.Ja.Label(done))
		g.mark(next)
	}
	g.mark(done)
	g.emit(asm.Mov.Imm(asm.R0, 0))
	return off
}

// macaddr reads six bytes into R0.
func (g *gen) macaddr(e *ast.Call) {
	at := g.info.TypeOf(e.Args[0])
	tmp := g.alloc(8, e.Pos())
	switch {
	case at.Kind == types.String:
		off := g.buffer(e.Args[0])
		g.emit(asm.LoadMem(asm.R0, g.fp, off, asm.DWord))
		g.loadImm(asm.R1, 1<<48-1)
		g.emit(asm.And.Reg(asm.R0, asm.R1))
		return
	case at.Kind == types.Array:
		g.arrayBase(e.Args[0])
	default:
		g.scalar(e.Args[0])
	}
	as := at.AS
	if as == types.NoAS {
		as = types.Kernel
	}
	g.readKernel(tmp, 6, as)
	g.emit(asm.LoadMem(asm.R0, g.fp, tmp, asm.DWord))
}

// ustack records the user stack of the current task: {stack id, pid}.
func (g *gen) ustack(pos ast.Pos) int16 {
	g.c.useStacks()
	off := g.alloc(16, pos)
	g.emit(
		asm.Mov.Reg(asm.R1, rCtx),
		asm.LoadMapPtr(asm.R2, 0).WithReference(stackMapName),
		asm.Mov.Imm(asm.R3, 1<<8), // BPF_F_USER_STACK
		asm.FnGetStackid.Call(),
		asm.StoreMem(g.fp, off, asm.R0, asm.DWord),
		asm.FnGetCurrentPidTgid.Call(),
		asm.RSh.Imm(asm.R0, 32),
		asm.StoreMem(g.fp, off+8, asm.R0, asm.DWord),
	)
	return off
}

// blockValue runs a block expression's statements, then value on its last
// one (an expression). Temporaries of the statements stay allocated: the
// enclosing statement frees them.
func (g *gen) blockValue(b *ast.Block, value func(ast.Expr)) {
	n := len(b.Stmts)
	for _, s := range b.Stmts[:n-1] {
		g.stmt(s)
	}
	value(b.Stmts[n-1].(*ast.ExprStmt).X)
}
