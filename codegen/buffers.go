package codegen

import (
	"fmt"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

// buffer evaluates a string expression into a zero-padded stack buffer of
// roundUp(size, 8) bytes and returns its offset.
func (g *gen) buffer(e ast.Expr) int16 {
	defer func(sp srcpos.Span) { g.exprSpan = sp }(g.enterExpr(e))
	t := g.info.TypeOf(e)
	if off, ok := g.syscallProbeName(e); ok {
		return off
	}
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
		if v := g.info.Idents[e]; v != nil && v.Buffer != nil {
			return v.Buffer(g, e)
		}
		if off, ok := g.argsRecordBuffer(e); ok {
			return off
		}
	case *ast.Call:
		if f := g.info.Calls[e]; f != nil && f.Buffer != nil {
			defer g.markHelperCalls(e, len(g.insns))
			return f.Buffer(g, e)
		}
	case *ast.Field:
		return g.fieldBuffer(e)
	case *ast.Index:
		return g.indexBuffer(e)
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
		if w, ok := g.info.CastWidths[e]; ok {
			// the integer's own bytes, then zeros (the slot is zeroed)
			g.emit(g.stx(off, asm.R0, sizeOf(&types.Type{Kind: types.Int, Size: w})))
			return off
		}
		g.emit(g.stx(off, asm.R0, sizeOf(&types.Type{Kind: types.Int, Size: t.Size})))
		return off
	case *ast.Tuple:
		off := g.alloc(t.Size, e.Pos())
		g.zero(off, t.Size)
		for i, x := range e.Elems {
			f := t.Fields[i]
			if f.Type.IsBuffer() {
				g.copyAs(off+int16(f.Offset), f.Type, x)
				continue
			}
			g.scalar(x)
			g.emit(g.stx(off+int16(f.Offset), asm.R0, sizeOf(f.Type)))
		}
		return off
	case *ast.Unary:
		if e.Op == "*" {
			return g.derefBuffer(e)
		}
	case *ast.Ternary:
		if then, ok := g.info.Comptime(e.Cond); ok {
			return g.buffer(map[bool]ast.Expr{true: e.Then, false: e.Else}[then])
		}
		off := g.alloc(t.Size, e.Pos())
		elseL, endL := g.newLabel("telse"), g.newLabel("tend")
		g.branch(e.Cond, elseL, false)
		g.copyAs(off, t, e.Then)
		g.emit(asm.Ja.Label(endL))
		g.mark(elseL)
		g.copyAs(off, t, e.Else)
		g.mark(endL)
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
	g.copyMem(g.base(dst), dst, g.base(src), src, n)
	g.zero(dst+int16(n), roundUp(size, 8)-n)
}

// copyAs evaluates the buffer expression e into the slot at dst that holds
// a value of type t. A tuple of another layout (its strings shorter: the
// slot's type was unified with a larger one) is converted field by field.
func (g *gen) copyAs(dst int16, t *types.Type, e ast.Expr) {
	et := g.info.TypeOf(e)
	x := e
	for {
		p, ok := x.(*ast.Paren)
		if !ok {
			break
		}
		x = p.X
	}
	if _, ok := x.(*ast.Tuple); ok && (t.Kind == types.Tuple || t.Kind == types.Record) {
		// a tuple literal is built in place, in the slot's layout
		et = nil
	}
	if et != nil && sameLayout(t, et) {
		if et.Size%8 == 0 && t.Size%8 == 0 && dst%8 == 0 {
			g.copyInto(dst, t.Size, e)
			return
		}
		// A field of a packed tuple, or a value of a size that is not a
		// multiple of 8 (the bytes after it in its buffer may be the next
		// field's): exactly its bytes, then zeros up to the end of the
		// slot (the padding up to 8 bytes too when dst is aligned: a
		// field after it is written later).
		if dst%8 == 0 && g.buildInto(dst, t.Size, e) {
			return
		}
		src := g.buffer(e)
		n := min(t.Size, et.Size)
		g.copyBytes(dst, src, n)
		end := t.Size
		if dst%8 == 0 {
			end = roundUp(t.Size, 8)
		}
		g.zeroBytes(dst+int16(n), end-n)
		return
	}
	for {
		p, ok := e.(*ast.Paren)
		if !ok {
			break
		}
		e = p.X
	}
	if dst%8 == 0 {
		// whole words: the slot's padding up to 8 bytes is zeroed too (a
		// field after it is written later)
		g.zero(dst, t.Size)
	} else {
		g.zeroBytes(dst, t.Size)
	}
	if tup, ok := e.(*ast.Tuple); ok {
		for i, x := range tup.Elems {
			f := t.Fields[i]
			if t.Kind == types.Record && i < len(tup.Names) {
				// a record's fields are matched by name, evaluated in
				// source order
				f = t.Fields[recordField(t, tup.Names[i], i)]
			}
			if f.Type.IsBuffer() {
				g.copyAs(dst+int16(f.Offset), f.Type, x)
				continue
			}
			g.scalar(x)
			g.emit(g.stx(dst+int16(f.Offset), asm.R0, sizeOf(f.Type)))
		}
		return
	}
	g.convertMem(dst, t, g.buffer(e), et)
}

// sameLayout reports whether values of types a and b have the same bytes:
// copying one into the other's slot needs no conversion. Only tuples and
// records are converted; other buffers are copied as bytes (a shorter
// string is zero-padded).
func sameLayout(a, b *types.Type) bool {
	if a.IsBuf() && b.IsBuf() {
		// a Buf starts with its length; a smaller Buf is a prefix of a
		// larger one
		return (a.Kind == types.Buf) == (b.Kind == types.Buf)
	}
	if a.Kind != types.Tuple && a.Kind != types.Record || b.Kind != a.Kind {
		return true
	}
	if a.Size != b.Size || len(a.Fields) != len(b.Fields) {
		return false
	}
	for i := range a.Fields {
		fa, fb := a.Fields[i], b.Fields[i]
		if fa.Name != fb.Name {
			return false // a record of another field order
		}
		if fa.Offset != fb.Offset || fa.Type.Size != fb.Type.Size || !sameLayout(fa.Type, fb.Type) {
			return false
		}
	}
	return true
}

// convertMem copies the tuple of type st at stack slot src into the zeroed
// slot at dst of type t, field by field; a constant-length buf() into a
// Buf gets its length and its bytes.
func (g *gen) convertMem(dst int16, t *types.Type, src int16, st *types.Type) {
	if t.Kind == types.Buf {
		n := min(st.Len, t.Len)
		g.emit(asm.StoreImm(g.base(dst), dst, int64(n), asm.Word))
		g.copyBytes(dst+types.BufHeader, src, n)
		return
	}
	for i, df := range t.Fields {
		if i >= len(st.Fields) {
			return
		}
		sf := st.Fields[i]
		if t.Kind == types.Record {
			sf = st.Fields[recordField(st, df.Name, i)]
		}
		d, s := dst+int16(df.Offset), src+int16(sf.Offset)
		switch {
		case df.Type.Kind == types.Tuple || df.Type.Kind == types.Record, !sameLayout(df.Type, sf.Type):
			g.convertMem(d, df.Type, s, sf.Type)
		case df.Type.IsBuffer():
			g.copyBytes(d, s, min(df.Type.Size, sf.Type.Size))
		default:
			g.emit(g.ldx(asm.R1, s, sizeOf(sf.Type)))
			if sf.Type.Kind == types.Int {
				g.extend(asm.R1, sf.Type.Size, sf.Type.Signed)
			}
			g.emit(g.stx(d, asm.R1, sizeOf(df.Type)))
		}
	}
}

// recordField returns the index of the field called name in the record t
// (the checker matched the fields of unified records by name), or i.
func recordField(t *types.Type, name string, i int) int {
	for j, f := range t.Fields {
		if f.Name == name {
			return j
		}
	}
	return i
}

// copyBytes copies n bytes between stack slots, in the widest accesses the
// offsets and the remaining length allow.
func (g *gen) copyBytes(dst, src int16, n int) {
	if n > copyHelperMin {
		g.copyHelper(g.base(dst), dst, g.base(src), src, n)
		return
	}
	for i := 0; i < n; {
		w := 8
		for w > 1 && ((int(dst)+i)%w != 0 || (int(src)+i)%w != 0 || n-i < w) {
			w /= 2
		}
		size := map[int]asm.Size{8: asm.DWord, 4: asm.Word, 2: asm.Half, 1: asm.Byte}[w]
		g.emit(
			g.ldx(asm.R1, src+int16(i), size),
			g.stx(dst+int16(i), asm.R1, size),
		)
		i += w
	}
}

// zeroBytes zeroes n bytes of the stack at dst, in the widest stores the
// offset and the remaining length allow.
func (g *gen) zeroBytes(dst int16, n int) {
	if n > zeroLoopMin && dst%8 == 0 {
		g.zeroLoop(dst, n&^7)
		dst, n = dst+int16(n&^7), n&7
	}
	for i := 0; i < n; {
		w := 8
		for w > 1 && ((int(dst)+i)%w != 0 || n-i < w) {
			w /= 2
		}
		if w == 8 {
			g.emit(g.st(dst+int16(i), 0))
		} else {
			g.emit(asm.StoreImm(g.base(dst+int16(i)), dst+int16(i), 0, map[int]asm.Size{4: asm.Word, 2: asm.Half, 1: asm.Byte}[w]))
		}
		i += w
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
	case *ast.Field, *ast.Unary, *ast.Index:
		// a struct or array in kernel or user memory: read straight into
		// the slot
		t := g.info.TypeOf(e)
		if !(t.Kind == types.Struct || t.Kind == types.Array) || t.BTF == nil || size < t.Size {
			return false
		}
		as := types.Kernel
		var p pending
		switch x := x.(type) {
		case *ast.Field:
			if isArgs(x.X) || g.isTupleField(x) {
				return false
			}
			p = g.memberChain(x)
			as = g.info.TypeOf(x.X).AS
		case *ast.Unary:
			if x.Op != "*" {
				return false
			}
			p = pending{root: x.X}
			as = g.info.TypeOf(x.X).AS
		case *ast.Index:
			if g.inBPF(x.X) || g.info.TypeOf(x.X).Kind == types.Tuple {
				return false
			}
			p = g.elemChain(x)
			if xt := g.info.TypeOf(x.X); !isTracepointField(x.X) && xt.AS != types.NoAS {
				as = xt.AS
			}
		}
		g.readAt(dst, t.Size, as, p)
		g.zero(dst+int16(roundUp(t.Size, 8)), roundUp(size, 8)-roundUp(t.Size, 8))
		return true
	case *ast.Call:
		// buf() of a run-time length: read straight into the slot
		if t := g.info.TypeOf(e); t.Kind == types.Buf && size >= t.Size && dst%8 == 0 {
			g.zero(dst, size)
			g.bufLenAt(dst, x, t)
			return true
		}
		if f := g.info.Calls[x]; f != nil && f.Into != nil {
			return f.Into(g, x, dst, size)
		}
	case *ast.Ident:
		if g.info.Idents[x] == builtin.Comm && size >= 16 {
			g.comm(dst)
			g.zero(dst+16, roundUp(size, 8)-16)
			return true
		}
	}
	return false
}

// fieldBuffer reads a string field of a tracepoint record.
func (g *gen) fieldBuffer(e *ast.Field) int16 {
	if g.isTupleField(e) {
		f := g.info.Members[e]
		return g.elemBuffer(g.place(e.X), g.info.TypeOf(e.X), f.Offset, f.Type, e.Pos())
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
	g.emit(asm.Mov.Reg(asm.R1, g.base(off)), asm.Add.Imm(asm.R1, int32(off)))
	switch t.Name {
	case check.DataLocString:
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

// place returns the stack slot of the buffer expression e where it lies:
// an element of a tuple, record, struct or array value in BPF memory is
// at its offset in its parent's slot, not padded (for reads of exactly
// its bytes); anything else is buffer(e).
func (g *gen) place(e ast.Expr) int16 {
	switch x := e.(type) {
	case *ast.Paren:
		return g.place(x.X)
	case *ast.Field:
		if g.isTupleField(x) {
			return g.place(x.X) + int16(g.info.Members[x].Offset)
		}
	case *ast.Index:
		xt := g.info.TypeOf(x.X)
		if cv, ok := g.info.Consts[x.Index]; ok && xt.Kind == types.Tuple {
			return g.place(x.X) + int16(xt.Fields[cv.Int].Offset)
		}
		if cv, ok := g.info.Consts[x.Index]; ok && g.inBPF(x.X) {
			return g.place(x.X) + int16(int(cv.Int)*xt.Elem.Size)
		}
	}
	return g.buffer(e)
}

// elemBuffer returns a buffer (zero-padded to a multiple of 8 bytes, as
// buffer promises) holding the element of type t at byte off of the
// tuple, record or struct value of type xt at stack slot base. An element
// that starts on 8 bytes and whose padding no other field shares is used
// in place; another (a packed tuple's string after a uint8, a string[6]
// followed by a field) is copied to its own slot, since reading or
// comparing its padded size would take the next field's bytes.
func (g *gen) elemBuffer(base int16, xt *types.Type, off int, t *types.Type, pos srcpos.Pos) int16 {
	end := roundUp(xt.Size, 8) // the value's own buffer is zero-padded
	if xt.Kind == types.Array {
		end = min(end, off+t.Size)
	}
	for _, f := range xt.Fields {
		if f.Offset > off && f.Offset < end {
			end = f.Offset
		}
	}
	if (int(base)+off)%8 == 0 && off+roundUp(t.Size, 8) <= end {
		return base + int16(off)
	}
	dst := g.alloc(t.Size, pos)
	g.copyBytes(dst, base+int16(off), t.Size)
	g.zeroBytes(dst+int16(t.Size), roundUp(t.Size, 8)-t.Size)
	return dst
}

// ustack records the user stack of the current task: {stack id, pid}; in
// build_id mode in the build id stack map.
func (g *gen) ustack(e ast.Expr) int16 {
	pos := e.Pos()
	m := stackMapName
	if g.info.TypeOf(e).StackMode == "build_id" {
		g.c.useBuildIDStacks()
		m = buildIDStackMapName
	} else {
		g.c.useStacks()
	}
	off := g.alloc(16, pos)
	g.emit(
		asm.Mov.Reg(asm.R1, rCtx),
		asm.LoadMapPtr(asm.R2, 0).WithReference(m),
		asm.Mov.Imm(asm.R3, 1<<8), // BPF_F_USER_STACK
		asm.FnGetStackid.Call(),
		g.stx(off, asm.R0, asm.DWord),
	)
	builtin.EmitPid(g, false, pos)
	g.emit(g.stx(off+8, asm.R0, asm.DWord))
	if g.c.prog.StackLens {
		// The id word: negative when the stack was not recorded.
		g.stackDepth(g.info.TypeOf(e), off, off+8)
	}
	return off
}
