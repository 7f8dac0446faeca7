package codegen

import (
	"encoding/binary"
	"strings"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

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
func (g *gen) stringConst(s string, size int, pos srcpos.Pos) int16 {
	// A string ends at its first NUL; the bytes after it stay zero, which
	// word-wise comparison relies on.
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return g.bytesConst(s, max(size, len(s)+1), pos)
}

// bytesConst materialises constant bytes in a zero-padded stack buffer.
func (g *gen) bytesConst(s string, size int, pos srcpos.Pos) int16 {
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
		// n bytes with probe_read_str does; str(s, 0) is empty.
		if len(e.Args) == 2 {
			cv, ok := g.info.Consts[e.Args[1]]
			switch n := int64(cv.Int); {
			case !ok || cv.IsStr:
				g.cutStr(e.Args[1], off, t.Size)
			case n <= 0:
				g.emit(asm.StoreImm(g.base(off), off, 0, asm.Byte))
			case n-1 < int64(t.Size):
				g.emit(asm.StoreImm(g.base(off+int16(n-1)), off+int16(n-1), 0, asm.Byte))
			}
		}
		return off
	}
	// One byte more than the string: a string that fills t.Size bytes keeps
	// its terminator outside them, which marks it truncated when printed.
	off := g.alloc(t.Size+1, e.Pos())
	g.readStr(e, off, t.Size+1)
	return off
}

// cutStr ends the string in the size bytes at off after n-1 characters,
// n the run-time value of x clamped to size (str(s, n) of a string s):
// the string is read onto itself with that length, which writes the
// terminator; a length of 0 empties it.
func (g *gen) cutStr(x ast.Expr, off int16, size int) {
	g.scalar(x)
	clamped, read, done := g.newLabel("strcut"), g.newLabel("strcut"), g.newLabel("strcut")
	g.emit(
		asm.JLE.Imm(asm.R0, int32(size), clamped),
		asm.Mov.Imm(asm.R0, int32(size)),
	)
	g.mark(clamped)
	g.emit(
		asm.JNE.Imm(asm.R0, 0, read),
		asm.StoreImm(g.base(off), off, 0, asm.Byte),
		asm.Ja.Label(done),
	)
	g.mark(read)
	g.emit(
		asm.Mov.Reg(asm.R2, asm.R0),
		asm.Mov.Reg(asm.R1, g.base(off)),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Reg(asm.R3, asm.R1),
		asm.FnProbeReadKernelStr.Call(),
	)
	g.checkHelper(helperName(asm.FnProbeReadKernelStr))
	g.mark(done)
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
	fn := g.readStrFn(at)
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

// strConcat concatenates two strings: a is copied into the result, its
// length found by copying it onto itself with bpf_probe_read_kernel_str
// (which returns the length with the terminator), and b copied after it.
// When a fills its bytes (no terminator), b is not appended.
func (g *gen) strConcat(e *ast.Call) int16 {
	t := g.info.TypeOf(e)
	as, bs := g.info.TypeOf(e.Args[0]).Size, g.info.TypeOf(e.Args[1]).Size
	// The two are joined in a buffer that holds both, then cut to the
	// result's size (bpftrace's string[1024]): the verifier bounds the
	// copy of b by the buffer.
	size := max(t.Size, as+bs)
	off := g.alloc(size, e.Pos())
	g.copyInto(off, size, e.Args[0])
	b := g.buffer(e.Args[1])
	done := g.newLabel("concat")
	g.emit(
		asm.Mov.Reg(asm.R1, g.base(off)),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Reg(asm.R3, asm.R1),
		asm.Mov.Imm(asm.R2, int32(min(as+1, size))), // the byte after a is zero
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
	if size > t.Size {
		last := off + int16(t.Size) - 1
		g.emit(asm.StoreImm(g.base(last), last, 0, asm.Byte))
	}
	g.emit(asm.Mov.Imm(asm.R0, 0))
	return off
}

// readStrFn is the helper that reads a string through a pointer of type
// at: from user memory, kernel memory, or, when the address space is not
// known, either (the compat helper, x86).
func (g *gen) readStrFn(at *types.Type) asm.BuiltinFunc {
	switch {
	case at.AS == types.User || (at.AS == types.NoAS && g.info.UserArgs):
		return asm.FnProbeReadUserStr
	case at.AS == types.NoAS && g.ctx.Available():
		return asm.FnProbeReadStr
	}
	return asm.FnProbeReadKernelStr
}
