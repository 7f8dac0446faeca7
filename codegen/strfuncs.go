package codegen

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

// strlen counts the bytes before the NUL of a string buffer, unrolled over
// the buffer.
func (g *gen) strlen(e *ast.Call) {
	if at := g.info.TypeOf(e.Args[0]); at.Kind == types.Pointer {
		g.strlenPtr(e.Args[0], at)
		return
	}
	off := g.buffer(e.Args[0])
	size := g.info.TypeOf(e.Args[0]).Size
	done := g.newLabel("strlen")
	if size > strLoopMin {
		g.strlenHelper(off, size)
		return
	}
	g.emit(asm.Mov.Imm(asm.R0, 0))
	for i := 0; i < size; i++ {
		g.emit(
			g.ldx(asm.R1, off+int16(i), asm.Byte),
			asm.JEq.Imm(asm.R1, 0, done),
			asm.Mov.Imm(asm.R0, int32(i+1)),
		)
	}
	g.mark(done)
}

// strlenPtr is strlen of an int8 pointer, bpftrace's strnlen up to
// default_str_length() (max_strlen): the string is read into a scratch
// buffer one byte larger, so that the helper's length (with the
// terminator) is the string's plus one up to max_strlen bytes, and
// max_strlen + 1 beyond. A read that fails leaves its negative errno, as
// bpftrace's bpf_strnlen does.
func (g *gen) strlenPtr(p ast.Expr, at *types.Type) {
	size := g.c.prog.MaxStrlen + 1
	off := g.alloc(size, p.Pos())
	g.scalar(p)
	done := g.newLabel("strlenptr")
	g.emit(
		asm.Mov.Reg(asm.R3, asm.R0),
		asm.Mov.Reg(asm.R1, g.base(off)),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, int32(size)),
		g.readStrFn(at).Call(),
		asm.JSLE.Imm(asm.R0, 0, done),
		asm.Add.Imm(asm.R0, -1),
	)
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
	if n > maxCompareBytes {
		// two branches a byte: past about 4,000 bytes the verifier gives up
		g.fail(e.Pos(), fmt.Errorf("%w: strncmp() compares at most %d bytes, not %d", ErrVerifierLimit, maxCompareBytes, n))
		return
	}
	eq, ne, end := g.newLabel("streq"), g.newLabel("strne"), g.newLabel("strcmpend")
	for i := 0; i < n; i++ {
		g.emit(
			g.ldx(asm.R1, a+int16(i), asm.Byte),
			g.ldx(asm.R2, b+int16(i), asm.Byte),
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

// strstr finds needle in haystack, unrolled over both buffers: the index
// of the first occurrence or -1; strcontains turns it into a bool.
func (g *gen) strstr(e *ast.Call, contains bool) {
	h := g.buffer(e.Args[0])
	nd := g.buffer(e.Args[1])
	hs, ns := g.info.TypeOf(e.Args[0]).Size, g.info.TypeOf(e.Args[1]).Size
	if hs*ns > strstrUnrollMax {
		if ns > maxNeedleBytes {
			// three branches a needle byte in the loop the verifier walks
			g.fail(e.Pos(), fmt.Errorf("%w: %s() searches for a needle of at most %d bytes, not %d (str(p, n) reads a shorter one)", ErrVerifierLimit, e.Name, maxNeedleBytes, ns))
			return
		}
		g.strstrLoop(h, nd, hs, ns, e.Pos())
		g.containsResult(contains)
		return
	}
	found, end := g.newLabel("strfound"), g.newLabel("strstrend")
	for i := 0; i < hs; i++ {
		next := g.newLabel("strnext")
		for j := 0; j < ns && i+j <= hs; j++ {
			g.emit(g.ldx(asm.R2, nd+int16(j), asm.Byte))
			g.emit(asm.Mov.Imm(asm.R0, int32(i)), asm.JEq.Imm(asm.R2, 0, found))
			if i+j == hs {
				break
			}
			g.emit(
				g.ldx(asm.R1, h+int16(i+j), asm.Byte),
				asm.JNE.Reg(asm.R1, asm.R2, next),
			)
		}
		g.mark(next)
		// the haystack ends here: no later match
		g.emit(g.ldx(asm.R1, h+int16(i), asm.Byte), asm.JEq.Imm(asm.R1, 0, end))
	}
	g.mark(end)
	g.emit(asm.Mov.Imm(asm.R0, -1), asm.Ja.Label(found+"_out"))
	g.mark(found)
	g.mark(found + "_out")
	g.containsResult(contains)
}

// containsResult turns strstr's index in R0 into strcontains' bool.
func (g *gen) containsResult(contains bool) {
	if contains {
		t := g.newLabel("contains")
		g.emit(asm.JSGE.Imm(asm.R0, 0, t), asm.Mov.Imm(asm.R0, 0), asm.Ja.Label(t+"_end"))
		g.mark(t)
		g.emit(asm.Mov.Imm(asm.R0, 1))
		g.mark(t + "_end")
	}
}

// strLoopMin is the string size above which strlen is strlenHelper rather
// than unrolled; strstrUnrollMax bounds the haystack size times the needle
// size that strstr unrolls (past it, strstrLoop: a 1024-byte haystack and
// a 5-byte needle unrolled, 28,000 instructions, fail to load on Linux
// 6.18 with EFAULT).
const (
	strLoopMin      = 512
	strstrUnrollMax = 1024
)

// maxCompareBytes and maxNeedleBytes bound strncmp's length and the
// needle of strstrLoop: the verifier keeps at most 8,192 branches to
// explore, and their code leaves it two a byte compared and three a
// needle byte.
const (
	maxCompareBytes = 3072
	maxNeedleBytes  = 2048
)

// ErrVerifierLimit is returned (wrapped, with the script position) for
// code the kernel's verifier would refuse as too complex.
var ErrVerifierLimit = errors.New("too complex for the BPF verifier")

// strlenHelper is strlen of the size bytes at off in constant code: the
// string is copied onto itself with bpf_probe_read_kernel_str, which
// returns its length with the terminator. A string with no terminator
// before its last byte comes back with one there: the byte is saved
// first, put back, and counted when it is not a terminator. A loop over
// the bytes would leave the verifier one branch a byte to explore, more
// than the 8,192 it keeps for a max_strlen of 9999.
func (g *gen) strlenHelper(off int16, size int) {
	last := g.allocScalar(g.stmtPos)
	done := g.newLabel("strlen")
	g.emit(
		g.ldx(asm.R1, off+int16(size-1), asm.Byte),
		g.stx(last, asm.R1, asm.DWord),
		asm.Mov.Reg(asm.R1, g.base(off)),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Reg(asm.R3, asm.R1),
		asm.Mov.Imm(asm.R2, int32(size)),
		asm.FnProbeReadKernelStr.Call(),
		asm.Add.Imm(asm.R0, -1),
		asm.JSLT.Imm(asm.R0, int32(size-1), done),
		// the terminator is the last byte, or was written there
		g.ldx(asm.R1, last, asm.DWord),
		g.stx(off+int16(size-1), asm.R1, asm.Byte),
		asm.Mov.Imm(asm.R0, int32(size-1)),
		asm.JEq.Imm(asm.R1, 0, done),
		asm.Mov.Imm(asm.R0, int32(size)),
	)
	g.mark(done)
}

// strstrLoop is strstr over the haystack of hs bytes at h and the needle
// of ns bytes at nd with bpf_loop (Linux 5.17+): one call of a callback
// per haystack position i, which compares the needle from there in a loop
// the verifier walks, and stops the iteration at a match (storing i) or
// at the haystack's end. R0 is the index or -1, as the unrolled strstr
// leaves it.
func (g *gen) strstrLoop(h, nd int16, hs, ns int, pos srcpos.Pos) {
	res := g.alloc(8, pos)
	g.emit(g.st(res, -1))
	name := g.newLabel("strstr")
	g.emit(
		asm.Mov.Imm(asm.R1, int32(hs)),
		asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc, Constant: -1}.WithReference(name),
	)
	g.callbackCtx(asm.R3)
	g.emit(
		asm.Mov.Imm(asm.R4, 0),
		asm.FnLoop.Call(),
		g.ldx(asm.R0, res, asm.DWord),
	)
	g.rawCallback(name, loopProto, func() {
		// R1: i; R7: j; R2: the needle's byte; R4: i+j.
		g.callbackFrame(asm.R2)
		inner, next, found, stop := g.newLabel("strstrj"), g.newLabel("strstrnext"), g.newLabel("strstrfound"), g.newLabel("strstrstop")
		g.emit(
			asm.JGE.Imm(asm.R1, int32(hs), stop),
			asm.Mov.Imm(asm.R7, 0),
		)
		g.mark(inner)
		g.emit(
			asm.Mov.Reg(asm.R3, asm.R9),
			asm.Add.Imm(asm.R3, int32(nd)),
			asm.Add.Reg(asm.R3, asm.R7),
			asm.LoadMem(asm.R2, asm.R3, 0, asm.Byte),
			asm.JEq.Imm(asm.R2, 0, found),
			asm.Mov.Reg(asm.R4, asm.R1),
			asm.Add.Reg(asm.R4, asm.R7),
			asm.JGE.Imm(asm.R4, int32(hs), next),
			asm.Mov.Reg(asm.R3, asm.R9),
			asm.Add.Imm(asm.R3, int32(h)),
			asm.Add.Reg(asm.R3, asm.R4),
			asm.LoadMem(asm.R3, asm.R3, 0, asm.Byte),
			asm.JNE.Reg(asm.R3, asm.R2, next),
			asm.Add.Imm(asm.R7, 1),
			asm.JLT.Imm(asm.R7, int32(ns), inner),
		)
		// a needle without a terminator that matched all its bytes does
		// not count, as in the unrolled strstr
		g.mark(next)
		g.emit(
			asm.Mov.Reg(asm.R3, asm.R9),
			asm.Add.Imm(asm.R3, int32(h)),
			asm.Add.Reg(asm.R3, asm.R1),
			asm.LoadMem(asm.R3, asm.R3, 0, asm.Byte),
			asm.JEq.Imm(asm.R3, 0, stop), // the haystack ends: no later match
			asm.Mov.Imm(asm.R0, 0),
			asm.Return(),
		)
		g.mark(found)
		g.emit(asm.StoreMem(asm.R9, res, asm.R1, asm.DWord))
		g.mark(stop)
		g.emit(asm.Mov.Imm(asm.R0, 1), asm.Return())
	})
}
