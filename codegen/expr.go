package codegen

import (
	"fmt"
	"math"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
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
	defer func(sp srcpos.Span) { g.exprSpan = sp }(g.enterExpr(e))
	switch e := e.(type) {
	case *ast.Paren:
		g.scalar(e.X)
	case *ast.Var:
		off, _ := g.varSlot(e)
		g.emit(g.ldx(asm.R0, off, asm.DWord))
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
		if then, ok := g.info.Comptime(e.Cond); ok {
			g.scalar(map[bool]ast.Expr{true: e.Then, false: e.Else}[then])
			return
		}
		elseL, endL := g.newLabel("telse"), g.newLabel("tend")
		g.branch(e.Cond, elseL, false)
		g.scalar(e.Then)
		g.emit(asm.Ja.Label(endL))
		g.mark(elseL)
		g.scalar(e.Else)
		g.mark(endL)
	case *ast.Field:
		g.fieldScalar(e)
	case *ast.BlockExpr:
		g.blockValue(e.Body, func(x ast.Expr) { g.scalar(x) })
	case *ast.Index:
		g.indexScalar(e)
	case *ast.Cast:
		t := g.info.TypeOf(e)
		if xt := g.info.TypeOf(e.X); xt.Kind == types.String && t.Kind == types.Bool {
			// (bool)"str": true unless the string is empty
			off := g.buffer(e.X)
			g.emit(g.ldx(asm.R0, off, asm.Byte))
			g.boolify()
			return
		}
		if xt := g.info.TypeOf(e.X); (xt.Kind == types.Array || xt.Kind == types.String) && t.Kind == types.Pointer {
			// (char *)p->comm: the member's address (the checker
			// allows only members reached through a pointer)
			g.arrayBase(e.X)
			return
		}
		if xt := g.info.TypeOf(e.X); xt.Kind == types.Array || xt.Kind == types.String {
			off := g.buffer(e.X)
			g.emit(g.ldx(asm.R0, off, sizeOf(t)))
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
}

func (g *gen) unary(e *ast.Unary) {
	switch e.Op {
	case "++", "--":
		g.incDecValue(e)
		return
	case "*":
		g.deref(e)
		return
	case "&":
		g.addrOf(e)
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
	if rt := g.info.TypeOf(e); rt.Kind == types.Int {
		// bpftrace computes ~ and - in the operand's own width: the
		// result's type (lang)
		g.extend(asm.R0, rt.Size, rt.Signed)
	}
}

// spill saves R0 in a fresh stack slot and returns its offset.
func (g *gen) spill(pos srcpos.Pos) int16 {
	off := g.allocScalar(pos)
	g.emit(g.stx(off, asm.R0, asm.DWord))
	return off
}

// builtinScalar loads an integer builtin variable into R0, as its
// definition says.
func (g *gen) builtinScalar(e *ast.Ident) {
	if v := g.info.Idents[e]; v != nil && v.Emit != nil {
		v.Emit(g, e)
		return
	}
	g.fail(e.Pos(), fmt.Errorf("builtin %s has no integer value", e.Name))
}

func (g *gen) argsField(e *ast.Field) *types.Field {
	at := g.info.ArgsType
	for i := range at.Fields {
		if at.Fields[i].Name == e.Name {
			return &at.Fields[i]
		}
	}
	return nil
}

// isArgs reports whether x is the args builtin (builtin.Var.Fields).
func isArgs(x ast.Expr) bool { return builtin.IsFields(x) }

// isTupleField reports whether e selects an element of a tuple or record
// value (rather than args or a kernel struct).
// isTupleField reports whether e is a field of a value in BPF memory: a
// tuple, a record, or a struct copied by value.
func (g *gen) isTupleField(e *ast.Field) bool {
	xt := g.info.TypeOf(e.X)
	k := xt.Kind
	return !isArgs(e.X) && (k == types.Tuple || k == types.Record || k == types.Struct && xt.BTF == nil)
}

func (g *gen) fieldScalar(e *ast.Field) {
	if g.isTupleField(e) {
		f := g.info.Members[e]
		off := g.place(e.X) + int16(f.Offset)
		if f.Type.Kind == types.Pointer {
			g.emit(g.ldx(asm.R0, off, asm.DWord))
			return
		}
		g.emit(g.ldx(asm.R0, off, sizeOf(f.Type)))
		if f.BitSize > 0 {
			g.bitfield(f)
			return
		}
		if f.Type.Kind == types.Int {
			g.extend(asm.R0, f.Type.Size, f.Type.Signed) // a narrow signed field (a uprobe's int8_t in args)
		}
		return
	}
	if !isArgs(e.X) {
		g.memberScalar(e)
		return
	}
	if !g.probe.Def().ArgsInCtx {
		f := g.info.Members[e]
		g.kfuncArg(f.Offset/8, f.Type, e.Pos())
		return
	}
	f := g.argsField(e)
	if f == nil {
		g.fail(e.Pos(), fmt.Errorf("field %s not found", e.Name))
		return
	}
	if g.ctx.SyscallRegs() {
		g.syscallArg(f, e.Pos())
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

// inBPF reports whether the array x is a value in BPF memory (a copy of a
// kernel array, a cast, pton(), buf()) rather than in kernel memory or the
// tracepoint record.
func (g *gen) inBPF(x ast.Expr) bool {
	xt := g.info.TypeOf(x)
	return xt.Kind == types.Array && xt.BTF == nil && !isTracepointField(x)
}

// indexBuffer returns the stack slot of x[i] for an element that is itself
// a buffer (a struct, an array, a string).
func (g *gen) indexBuffer(e *ast.Index) int16 {
	t := g.info.TypeOf(e)
	if cv, ok := g.info.Consts[e.Index]; ok && g.inBPF(e.X) {
		return g.elemBuffer(g.place(e.X), g.info.TypeOf(e.X), int(cv.Int)*t.Size, t, e.Pos())
	}
	if xt := g.info.TypeOf(e.X); xt.Kind == types.Tuple {
		return g.elemBuffer(g.place(e.X), xt, xt.Fields[g.info.Consts[e.Index].Int].Offset, t, e.Pos())
	}
	off := g.alloc(t.Size, e.Pos())
	as := g.info.TypeOf(e.X).AS
	if isTracepointField(e.X) || as == types.NoAS {
		as = types.Kernel
	}
	g.readAt(off, t.Size, as, g.elemChain(e))
	return off
}

// indexScalar reads x[i].
func (g *gen) indexScalar(e *ast.Index) {
	xt := g.info.TypeOf(e.X)
	t := g.info.TypeOf(e)
	if xt.Kind == types.String {
		off := g.place(e.X)
		if cv, ok := g.info.Consts[e.Index]; ok {
			g.emit(g.ldx(asm.R0, off+int16(cv.Int), asm.Byte))
			return
		}
		// an index known at run time: 0 past the end of the string
		g.scalar(e.Index)
		end := g.newLabel("stridx")
		g.emit(
			asm.Mov.Reg(asm.R1, asm.R0),
			asm.Mov.Imm(asm.R0, 0),
			asm.JGE.Imm(asm.R1, int32(xt.Size), end),
			asm.Add.Reg(asm.R1, g.base(off)),
			asm.LoadMem(asm.R0, asm.R1, off, asm.Byte),
		)
		g.mark(end)
		return
	}
	if xt.Kind == types.Tuple {
		// $t[i]: field i of a tuple
		off := g.place(e.X) + int16(xt.Fields[g.info.Consts[e.Index].Int].Offset)
		if t.Kind == types.Pointer {
			g.emit(g.ldx(asm.R0, off, asm.DWord))
			return
		}
		g.emit(g.ldx(asm.R0, off, sizeOf(t)))
		if t.Kind == types.Int {
			g.extend(asm.R0, t.Size, t.Signed)
		}
		return
	}
	if cv, ok := g.info.Consts[e.Index]; ok && g.inBPF(e.X) {
		// an array value in BPF memory (a cast, pton(), buf())
		off := g.place(e.X) + int16(int(cv.Int)*xt.Elem.Size)
		g.emit(g.ldx(asm.R0, off, sizeOf(t)))
		g.extend(asm.R0, t.Size, t.Signed)
		return
	}
	p := g.elemChain(e)
	if t.Kind == types.Struct || t.Kind == types.Array {
		g.addrInto0(p) // the address is the value
		return
	}
	size := t.Size
	if t.Kind == types.Pointer {
		size = 8
	}
	tmp := g.allocScalar(e.Pos())
	as := xt.AS
	if xt.Kind == types.Array && isTracepointField(e.X) {
		as = types.Kernel
	}
	g.readAt(tmp, size, as, p)
	g.loadSized(tmp, t)
}

func isTracepointField(x ast.Expr) bool {
	f, ok := x.(*ast.Field)
	return ok && isArgs(f.X)
}

// kstack records the kernel stack in the stack trace map; the value is its
// id (negative when the kernel could not record it), with the number of
// frames in the upper 32 bits when the program takes len() of stacks.
func (g *gen) kstack(e ast.Expr) {
	g.c.useStacks()
	g.emit(
		asm.Mov.Reg(asm.R1, rCtx),
		asm.LoadMapPtr(asm.R2, 0).WithReference(stackMapName),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnGetStackid.Call(),
	)
	if g.c.prog.StackLens {
		id := g.spill(e.Pos())
		g.stackDepth(g.info.TypeOf(e), id, id)
		g.emit(g.ldx(asm.R0, id, asm.DWord))
	}
}

// stackDepth puts the number of frames of the stack being recorded (of
// type t) in the upper 32 bits of the word at slot, unless the stack id at
// idSlot is negative (the stack could not be recorded). bpf_get_stack
// (Linux 4.18+) copies the frames into a sink nobody reads and returns
// their size, at most the stack's limit.
func (g *gen) stackDepth(t *types.Type, idSlot, slot int16) {
	g.c.useStackSink()
	elem, shift, flags := int32(8), int32(3), int32(0)
	if t.StackMode == "build_id" {
		elem, shift = object.BuildIDFrameSize, 5
		flags |= 1 << 11 // BPF_F_USER_BUILD_ID
	}
	if t.UserStack {
		flags |= 1 << 8 // BPF_F_USER_STACK
	}
	done := g.newLabel("depth")
	g.emit(
		asm.Mov.Reg(asm.R1, rCtx),
		asm.LoadMapValue(asm.R2, 0, 0).WithReference(stackSinkName),
		asm.Mov.Imm(asm.R3, elem*int32(t.Len)),
		asm.Mov.Imm(asm.R4, flags),
		asm.FnGetStack.Call(),
		asm.JSLT.Imm(asm.R0, 0, done),
		g.ldx(asm.R1, idSlot, asm.DWord),
		asm.JSLT.Imm(asm.R1, 0, done),
		g.ldx(asm.R1, slot, asm.DWord),
		asm.RSh.Imm(asm.R0, shift),
		asm.LSh.Imm(asm.R0, 32),
		asm.Or.Reg(asm.R1, asm.R0),
		g.stx(slot, asm.R1, asm.DWord),
	)
	g.mark(done)
}

// stackLen loads the number of frames of a stack value into R0 (see
// check.Program.StackLens).
func (g *gen) stackLen(x ast.Expr) {
	if g.info.TypeOf(x).UserStack {
		off := g.buffer(x)
		g.emit(g.ldx(asm.R0, off+12, asm.Word))
		return
	}
	g.scalar(x)
	recorded := g.newLabel("recorded")
	g.emit(
		asm.JSGE.Imm(asm.R0, 0, recorded),
		asm.Mov.Imm(asm.R0, 0), // not recorded: no frames
	)
	g.mark(recorded)
	g.emit(asm.RSh.Imm(asm.R0, 32))
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

// macaddr reads six bytes into R0.
func (g *gen) macaddr(e *ast.Call) {
	at := g.info.TypeOf(e.Args[0])
	tmp := g.allocScalar(e.Pos())
	switch {
	case at.Kind == types.String:
		off := g.buffer(e.Args[0])
		g.emit(g.ldx(asm.R0, off, asm.DWord))
		g.loadImm(asm.R1, 1<<48-1)
		g.emit(asm.And.Reg(asm.R0, asm.R1))
		return
	}
	p := pending{root: e.Args[0]}
	if at.Kind == types.Array {
		p = g.arrayChain(e.Args[0])
	}
	as := at.AS
	if as == types.NoAS {
		as = types.Kernel
	}
	g.readAt(tmp, 6, as, p)
	g.emit(g.ldx(asm.R0, tmp, asm.DWord))
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
