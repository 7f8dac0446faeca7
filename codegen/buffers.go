package codegen

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// buffer evaluates a string expression into a zero-padded stack buffer of
// roundUp(size, 8) bytes and returns its offset.
func (g *gen) buffer(e ast.Expr) int16 {
	defer func(sp ast.Span) { g.exprSpan = sp }(g.enterExpr(e))
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

// comm writes the current task's name into the 16 bytes at off, cleared
// first: the helper pads the name with zeros only on newer kernels (6.1
// copies it with strscpy and leaves the bytes after the NUL as they were:
// one name then made several map keys, and comm == "x" failed at random),
// and map keys and comparisons read all 16 bytes.
func (g *gen) comm(off int16) {
	g.zero(off, 16)
	g.emit(
		asm.Mov.Reg(asm.R1, g.base(off)),
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
			g.emit(g.st(off+int16(i), 0))
			continue
		}
		g.emit(asm.LoadImm(asm.R1, v, asm.DWord), g.stx(off+int16(i), asm.R1, asm.DWord))
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
			g.emit(asm.StoreImm(g.base(off+int16(i)), off+int16(i), 0, asm.Byte))
		}
		// str(s, n) keeps n-1 characters and the terminator, as reading
		// n bytes with probe_read_str does.
		if n, ok := strLenArg(g, e); ok && n-1 < int64(t.Size) {
			g.emit(asm.StoreImm(g.base(off+int16(n-1)), off+int16(n-1), 0, asm.Byte))
		}
		return off
	}
	// One byte more than the string: a string that fills t.Size bytes keeps
	// its terminator outside them, which marks it truncated when printed.
	off := g.alloc(t.Size+1, e.Pos())
	g.readStr(e, off, t.Size+1)
	return off
}

// strInto reads str(p) straight into the size-byte slot at dst when the
// read fits in it (max_strlen of 1024 or more, where str reads max_strlen
// bytes; or a larger slot): no temporary and no copy.
func (g *gen) strInto(e *ast.Call, dst int16, size int) bool {
	if g.info.TypeOf(e.Args[0]).Kind == types.String || dst%8 != 0 {
		return false
	}
	if len(e.Args) == 2 {
		if cv, ok := g.info.Consts[e.Args[1]]; !ok || cv.IsStr {
			return false // a run-time length: str parks the pointer in its buffer
		}
	}
	if g.strReadSize(e) > size {
		return false
	}
	g.readStr(e, dst, size)
	return true
}

// strReadSize is the number of bytes str(p) reads (with a constant length
// or none).
func (g *gen) strReadSize(e *ast.Call) int {
	t := g.info.TypeOf(e)
	size := t.Size + 1
	if g.c.prog.MaxStrlen >= noTruncByteStrlen {
		// bpftrace 0.26 reads one byte more only below 1024: from there a
		// string that fills the buffer ends with its terminator inside
		// it, and prints without the trailer.
		size = t.Size
	}
	if n, ok := strLenArg(g, e); ok && n <= int64(t.Size) {
		// str(p, n) reads n bytes: n-1 characters and the terminator.
		size = int(n)
	}
	return size
}

// readStr zeroes the slot of slotSize bytes at off and reads str(p) into
// it.
func (g *gen) readStr(e *ast.Call, off int16, slotSize int) {
	arg := e.Args[0]
	at := g.info.TypeOf(arg)
	g.scalar(arg)
	g.emit(asm.Mov.Reg(asm.R3, asm.R0))
	g.zero(off, slotSize)
	fn := asm.FnProbeReadKernelStr
	switch {
	case at.AS == types.User || (at.AS == types.NoAS && g.info.UserArgs):
		fn = asm.FnProbeReadUserStr
	case at.AS == types.NoAS && g.ctx != provider.CtxNone:
		// Unknown address space: the compat helper reads either (x86).
		fn = asm.FnProbeReadStr
	}
	size := int32(g.strReadSize(e))
	if len(e.Args) == 2 {
		if cv, ok := g.info.Consts[e.Args[1]]; !ok || cv.IsStr {
			// A run-time length: clamp it to the buffer.
			g.emit(g.stx(off, asm.R3, asm.DWord)) // park the pointer
			g.scalar(e.Args[1])
			ok := g.newLabel("strlen")
			g.emit(
				asm.JLE.Imm(asm.R0, size, ok),
				asm.Mov.Imm(asm.R0, size),
			)
			g.mark(ok)
			g.emit(
				asm.Mov.Reg(asm.R2, asm.R0),
				g.ldx(asm.R3, off, asm.DWord),
				g.st(off, 0),
				asm.Mov.Reg(asm.R1, g.base(off)),
				asm.Add.Imm(asm.R1, int32(off)),
				fn.Call(),
			)
			return
		}
	}
	g.emit(
		asm.Mov.Reg(asm.R1, g.base(off)),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, size),
		fn.Call(),
	)
	g.checkHelper(helperName(fn))
}

// noTruncByteStrlen is the max_strlen from which str() reads max_strlen
// bytes instead of max_strlen+1 (bpftrace's codegen of str).
const noTruncByteStrlen = 1024

// strLenArg returns the constant length n of str(p, n), when it has one
// and it is positive.
func strLenArg(g *gen, e *ast.Call) (int64, bool) {
	if len(e.Args) != 2 {
		return 0, false
	}
	cv, ok := g.info.Consts[e.Args[1]]
	if !ok || cv.IsStr || int64(cv.Int) <= 0 {
		return 0, false
	}
	return int64(cv.Int), true
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
	g.emit(asm.Mov.Reg(asm.R1, g.base(off)), asm.Add.Imm(asm.R1, int32(off)))
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

// bytewise reports whether == and != compare values of type t word by
// word in memory: strings, and arrays, tuples and records of one type.
func bytewise(t *types.Type) bool {
	switch t.Kind {
	case types.String, types.Array, types.Tuple, types.Record, types.Buf:
		return true
	}
	return false
}

// compared evaluates the operands of x == y on buffers and returns their
// slots and the number of bytes to compare (a multiple of 8). Tuples of
// different layouts (strings of different sizes) are both converted to
// their unified type first.
func (g *gen) compared(e *ast.Binary) (a, b int16, n int) {
	xt, yt := g.info.TypeOf(e.X), g.info.TypeOf(e.Y)
	if !sameLayout(xt, yt) {
		if u, ok := lang.UnifyTypes(xt, yt); ok {
			a, b = g.alloc(u.Size, e.Pos()), g.alloc(u.Size, e.Pos())
			g.zero(a, u.Size)
			g.copyAs(a, u, e.X)
			g.zero(b, u.Size)
			g.copyAs(b, u, e.Y)
			return a, b, roundUp(u.Size, 8)
		}
	}
	return g.buffer(e.X), g.buffer(e.Y), roundUp(min(xt.Size, yt.Size), 8)
}

// differentBufs reports whether x and y are buf() values of different
// lengths, which are never equal.
func differentBufs(x, y *types.Type) bool {
	return x.Kind == types.Array && y.Kind == types.Array && x.IsBuf() && y.IsBuf() && x.Len != y.Len
}

// stringEqual compares two zero-padded string buffers word by word.
func (g *gen) stringEqual(e *ast.Binary) {
	if xt, yt := g.info.TypeOf(e.X), g.info.TypeOf(e.Y); xt.IsBuf() && yt.IsBuf() && (xt.Kind == types.Buf) != (yt.Kind == types.Buf) {
		g.bufLenEqual(e, xt, yt)
		return
	}
	if differentBufs(g.info.TypeOf(e.X), g.info.TypeOf(e.Y)) {
		g.buffer(e.X)
		g.buffer(e.Y)
		g.loadImm(asm.R0, map[bool]int64{true: 1}[e.Op == "!="])
		return
	}
	a, b, n := g.compared(e)
	if n == 0 {
		// empty tuples are equal
		g.loadImm(asm.R0, map[bool]int64{true: 1}[e.Op == "=="])
		return
	}
	ne, end := g.newLabel("strne"), g.newLabel("strend")
	for i := 0; i < n; i += 8 {
		g.emit(
			g.ldx(asm.R1, a+int16(i), asm.DWord),
			g.ldx(asm.R2, b+int16(i), asm.DWord),
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
}

// bufLenEqual compares a buf() of a run-time length with one of a
// constant length n: they are equal when the length is n and the first n
// bytes match.
func (g *gen) bufLenEqual(e *ast.Binary, xt, yt *types.Type) {
	a, b := g.buffer(e.X), g.buffer(e.Y)
	v, f, vt, n := a, b, xt, yt.Len
	if yt.Kind == types.Buf {
		v, f, vt, n = b, a, yt, xt.Len
	}
	eq := int32(1)
	if e.Op == "!=" {
		eq = 0
	}
	if n > vt.Len {
		g.emit(asm.Mov.Imm(asm.R0, 1-eq))
		return
	}
	ne, end := g.newLabel("bufne"), g.newLabel("bufend")
	g.emit(
		g.ldx(asm.R1, v, asm.Word),
		asm.JNE.Imm(asm.R1, int32(n), ne),
	)
	data := v + types.BufHeader
	for i := 0; i < n; {
		w, size := 1, asm.Byte
		if n-i >= 4 && (f+int16(i))%4 == 0 && (data+int16(i))%4 == 0 {
			w, size = 4, asm.Word
		}
		g.emit(
			g.ldx(asm.R1, data+int16(i), size),
			g.ldx(asm.R2, f+int16(i), size),
			asm.JNE.Reg(asm.R1, asm.R2, ne),
		)
		i += w
	}
	g.emit(asm.Mov.Imm(asm.R0, eq), asm.Ja.Label(end))
	g.mark(ne)
	g.emit(asm.Mov.Imm(asm.R0, 1-eq))
	g.mark(end)
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
		g.emit(g.stx(off, asm.R0, asm.DWord))
	} else {
		g.emit(g.st(off, family))
	}
	switch {
	case at.IsInt():
		g.scalar(addr)
		g.emit(g.stx(off+8, asm.R0, asm.Word))
	case at.Kind == types.String:
		src := g.buffer(addr)
		g.copyMem(g.base(off+8), off+8, g.base(src), src, roundUp(at.Size, 8))
	case g.inBPF(addr): // pton(), a copied array
		src := g.buffer(addr)
		g.copyBytes(off+8, src, min(at.Size, 16))
	default: // an array in kernel memory or the tracepoint record
		tmp := g.alloc(16, e.Pos())
		g.readAt(tmp, at.Size, types.Kernel, g.arrayChain(addr))
		g.copyMem(g.base(off+8), off+8, g.base(tmp), tmp, 16)
	}
	return off
}

// buf reads a fixed number of bytes for %r.
func (g *gen) buf(e *ast.Call) int16 {
	t := g.info.TypeOf(e)
	if t.Kind == types.Buf {
		return g.bufLen(e, t)
	}
	at := g.info.TypeOf(e.Args[0])
	off := g.alloc(t.Size, e.Pos())
	switch {
	case at.Kind == types.String, at.Kind == types.Array && at.BTF == nil && !isTracepointField(e.Args[0]):
		// a value in BPF memory (a string, pton(), another buffer)
		g.copyInto(off, t.Size, e.Args[0])
		return off
	case at.Kind == types.Array:
		as := at.AS
		if isTracepointField(e.Args[0]) || as == types.NoAS {
			as = types.Kernel
		}
		g.readAt(off, t.Size, as, g.arrayChain(e.Args[0]))
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

// bufLen reads buf(data, length) of a run-time length into a zeroed Buf:
// the length, clamped unsigned to the capacity (a negative length reads
// the capacity, as bpftrace's does) and to the size of a source in BPF
// memory, then that many bytes.
func (g *gen) bufLen(e *ast.Call, t *types.Type) int16 {
	off := g.alloc(t.Size, e.Pos())
	g.zero(off, t.Size)
	g.bufLenAt(off, e, t)
	return off
}

// bufLenAt reads buf(data, length) into the zeroed Buf at off.
func (g *gen) bufLenAt(off int16, e *ast.Call, t *types.Type) {
	at := g.info.TypeOf(e.Args[0])
	limit := t.Len
	inBPF := at.Kind == types.String || at.Kind == types.Array && at.BTF == nil && !isTracepointField(e.Args[0])
	if inBPF {
		limit = min(limit, at.Size)
	}
	clamp := func(r asm.Register) {
		ok := g.newLabel("buflen")
		g.emit(asm.JLE.Imm(r, int32(limit), ok), asm.Mov.Imm(r, int32(limit)))
		g.mark(ok)
	}
	g.scalar(e.Args[1])
	clamp(asm.R0)
	g.emit(g.stx(off, asm.R0, asm.Word))
	fn := asm.FnProbeReadKernel
	switch {
	case inBPF:
		// a string, pton(), another buffer: bytes on the stack
		src := g.buffer(e.Args[0])
		g.emit(asm.Mov.Reg(asm.R0, g.base(src)), asm.Add.Imm(asm.R0, int32(src)))
	case at.Kind == types.Array:
		g.arrayBase(e.Args[0])
		if as := at.AS; as == types.User && !isTracepointField(e.Args[0]) {
			fn = asm.FnProbeReadUser
		}
	default:
		g.scalar(e.Args[0])
		switch as := at.AS; {
		case as == types.User, as == types.NoAS && g.info.UserArgs:
			fn = asm.FnProbeReadUser
		case as == types.NoAS:
			fn = asm.FnProbeRead
		}
	}
	// The length is reloaded and clamped again: the verifier bounds the
	// size from the branch, whatever it tracks of the stack.
	g.emit(
		asm.Mov.Reg(asm.R3, asm.R0),
		g.ldx(asm.R2, off, asm.Word),
	)
	clamp(asm.R2)
	g.emit(
		asm.Mov.Reg(asm.R1, g.base(off)),
		asm.Add.Imm(asm.R1, int32(off)+types.BufHeader),
		fn.Call(),
	)
	g.checkHelper(helperName(fn))
}

// strConcat concatenates two strings: a is copied into the result, its
// length found by copying it onto itself with bpf_probe_read_kernel_str
// (which returns the length with the terminator), and b copied after it.
// When a fills its bytes (no terminator), b is not appended.
func (g *gen) strConcat(e *ast.Call) int16 {
	t := g.info.TypeOf(e)
	as, bs := g.info.TypeOf(e.Args[0]).Size, g.info.TypeOf(e.Args[1]).Size
	off := g.alloc(t.Size, e.Pos())
	g.copyInto(off, t.Size, e.Args[0])
	b := g.buffer(e.Args[1])
	done := g.newLabel("concat")
	g.emit(
		asm.Mov.Reg(asm.R1, g.base(off)),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Reg(asm.R3, asm.R1),
		asm.Mov.Imm(asm.R2, int32(min(as+1, t.Size))), // the byte after a is zero
		asm.FnProbeReadKernelStr.Call(),
		asm.JSLT.Imm(asm.R0, 1, done),
		asm.JGT.Imm(asm.R0, int32(as), done),
		asm.Mov.Reg(asm.R1, g.base(off)),
		asm.Add.Imm(asm.R1, int32(off)-1),
		asm.Add.Reg(asm.R1, asm.R0),
		asm.Mov.Imm(asm.R2, int32(bs)),
		asm.Mov.Reg(asm.R3, g.base(b)),
		asm.Add.Imm(asm.R3, int32(b)),
		asm.FnProbeReadKernel.Call(),
	)
	g.mark(done)
	g.emit(asm.Mov.Imm(asm.R0, 0))
	return off
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
