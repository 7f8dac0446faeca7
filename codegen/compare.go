package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/types"
)

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
		if u, ok := check.UnifyTypes(xt, yt); ok {
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
