package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

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
