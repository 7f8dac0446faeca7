package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
)

// strlen counts the bytes before the NUL of a string buffer, unrolled over
// the buffer.
func (g *gen) strlen(e *ast.Call) {
	off := g.buffer(e.Args[0])
	size := g.info.TypeOf(e.Args[0]).Size
	done := g.newLabel("strlen")
	g.emit(asm.Mov.Imm(asm.R0, 0))
	for i := 0; i < size; i++ {
		g.emit(
			asm.LoadMem(asm.R1, g.fp, off+int16(i), asm.Byte),
			asm.JEq.Imm(asm.R1, 0, done),
			asm.Mov.Imm(asm.R0, int32(i+1)),
		)
	}
	g.mark(done)
}

// strncmp compares at most n bytes of two strings: 0 when equal.
func (g *gen) strncmp(e *ast.Call) {
	a := g.buffer(e.Args[0])
	b := g.buffer(e.Args[1])
	n := int(g.info.Consts[e.Args[2]].Int)
	n = min(n, g.info.TypeOf(e.Args[0]).Size, g.info.TypeOf(e.Args[1]).Size)
	if n == 0 {
		g.emit(asm.Mov.Imm(asm.R0, 0)) // no bytes to compare: equal
		return
	}
	eq, ne, end := g.newLabel("streq"), g.newLabel("strne"), g.newLabel("strcmpend")
	for i := 0; i < n; i++ {
		g.emit(
			asm.LoadMem(asm.R1, g.fp, a+int16(i), asm.Byte),
			asm.LoadMem(asm.R2, g.fp, b+int16(i), asm.Byte),
			asm.JNE.Reg(asm.R1, asm.R2, ne),
			asm.JEq.Imm(asm.R1, 0, eq),
		)
	}
	g.emit(asm.Ja.Label(eq))
	g.mark(ne)
	g.emit(asm.Mov.Imm(asm.R0, 1), asm.Ja.Label(end))
	g.mark(eq)
	g.emit(asm.Mov.Imm(asm.R0, 0))
	g.mark(end)
}

// memcmp compares count bytes: 0 when equal, else the difference of the
// first differing bytes.
func (g *gen) memcmp(e *ast.Call) {
	a := g.buffer(e.Args[0])
	b := g.buffer(e.Args[1])
	n := int(g.info.Consts[e.Args[2]].Int)
	end := g.newLabel("memcmpend")
	g.emit(asm.Mov.Imm(asm.R0, 0))
	for i := 0; i < n; i++ {
		g.emit(
			asm.LoadMem(asm.R1, g.fp, a+int16(i), asm.Byte),
			asm.LoadMem(asm.R2, g.fp, b+int16(i), asm.Byte),
			asm.Mov.Reg(asm.R0, asm.R1),
			asm.Sub.Reg(asm.R0, asm.R2),
			asm.JNE.Imm(asm.R0, 0, end),
		)
	}
	g.mark(end)
}

// strstr finds needle in haystack, unrolled over both buffers: the index
// of the first occurrence or -1; strcontains turns it into a bool.
func (g *gen) strstr(e *ast.Call, contains bool) {
	h := g.buffer(e.Args[0])
	nd := g.buffer(e.Args[1])
	hs, ns := g.info.TypeOf(e.Args[0]).Size, g.info.TypeOf(e.Args[1]).Size
	found, end := g.newLabel("strfound"), g.newLabel("strstrend")
	for i := 0; i < hs; i++ {
		next := g.newLabel("strnext")
		for j := 0; j < ns && i+j <= hs; j++ {
			g.emit(asm.LoadMem(asm.R2, g.fp, nd+int16(j), asm.Byte))
			g.emit(asm.Mov.Imm(asm.R0, int32(i)), asm.JEq.Imm(asm.R2, 0, found))
			if i+j == hs {
				break
			}
			g.emit(
				asm.LoadMem(asm.R1, g.fp, h+int16(i+j), asm.Byte),
				asm.JNE.Reg(asm.R1, asm.R2, next),
			)
		}
		g.mark(next)
		// the haystack ends here: no later match
		g.emit(asm.LoadMem(asm.R1, g.fp, h+int16(i), asm.Byte), asm.JEq.Imm(asm.R1, 0, end))
	}
	g.mark(end)
	g.emit(asm.Mov.Imm(asm.R0, -1), asm.Ja.Label(found+"_out"))
	g.mark(found)
	g.mark(found + "_out")
	if contains {
		t := g.newLabel("contains")
		g.emit(asm.JSGE.Imm(asm.R0, 0, t), asm.Mov.Imm(asm.R0, 0), asm.Ja.Label(t+"_end"))
		g.mark(t)
		g.emit(asm.Mov.Imm(asm.R0, 1))
		g.mark(t + "_end")
	}
}
