package codegen

import (
	"fmt"
	"math"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// A pending address is the value model's BTF access chain: the address of
// a member, an embedded struct or an array element in kernel or user
// memory, held as a root (code that leaves an address in R0) plus a
// constant byte offset that no instruction has added yet. Selecting a
// member, an embedded member or a constant index only adds to the offset;
// a run-time index keeps the offset pending across it. The offset is
// spent once, by what consumes the chain: the offset field of a direct
// load, or the source address of one probe read. So
// p->f_path.dentry costs the code of p plus one read, however deep the
// chain of embedded members and constant indexes.
type pending struct {
	root ast.Expr   // a pointer-valued expression, evaluated by scalar
	elem *ast.Index // or an element at a run-time index (elemRoot)
	ctx  bool       // or the tracepoint record, rCtx
	off  int64
}

// memberChain is the pending address of the member e selects.
func (g *gen) memberChain(e *ast.Field) pending {
	p := g.structChain(e.X)
	p.off += int64(g.info.Members[e].Offset)
	return p
}

// structChain is the pending address of the struct that x is: a pointer
// to a struct, or a struct reached through members, *p or an index.
func (g *gen) structChain(x ast.Expr) pending {
	if g.info.TypeOf(x).Kind == types.Pointer {
		return pending{root: x}
	}
	switch x := x.(type) {
	case *ast.Paren:
		return g.structChain(x.X)
	case *ast.Field:
		return g.memberChain(x)
	case *ast.Unary:
		return pending{root: x.X}
	case *ast.Index:
		return g.elemChain(x) // an element of an array of structs
	}
	g.fail(x.Pos(), fmt.Errorf("cannot take the address of this %s", g.info.TypeOf(x)))
	return pending{ctx: true}
}

// elemSize is the size of an element of the pointer or array x indexes.
func (g *gen) elemSize(x ast.Expr) int64 {
	et := g.info.TypeOf(x).Elem
	if et.Kind == types.Pointer {
		return 8
	}
	return int64(et.Size)
}

// elemChain is the pending address of element e.Index of a pointer or of
// a kernel or tracepoint array.
func (g *gen) elemChain(e *ast.Index) pending {
	if cv, ok := g.info.Consts[e.Index]; ok && !cv.IsStr {
		p := g.arrayChain(e.X)
		p.off += int64(cv.Int) * g.elemSize(e.X)
		return p
	}
	return pending{elem: e, off: g.arrayChain(e.X).off}
}

// arrayChain is the pending address of the first element of x.
func (g *gen) arrayChain(x ast.Expr) pending {
	if g.info.TypeOf(x).Kind == types.Pointer {
		return pending{root: x}
	}
	switch x := x.(type) {
	case *ast.Paren:
		return g.arrayChain(x.X)
	case *ast.Field:
		if isArgs(x.X) && g.probe.Def().ArgsInCtx {
			// an array inside the tracepoint record
			return pending{ctx: true, off: int64(g.info.Members[x].Offset)}
		}
		return g.memberChain(x)
	case *ast.Index:
		return g.elemChain(x) // an array of arrays
	}
	g.fail(x.Pos(), fmt.Errorf("cannot index this %s", g.info.TypeOf(x)))
	return pending{ctx: true}
}

// rootInto0 emits p's root, leaving in R0 the address p.off is relative to.
func (g *gen) rootInto0(p pending) {
	switch {
	case p.ctx:
		g.emit(asm.Mov.Reg(asm.R0, rCtx))
	case p.elem != nil:
		g.elemRoot(p.elem)
	default:
		g.scalar(p.root)
	}
}

// addOff adds the constant off to reg.
func (g *gen) addOff(reg asm.Register, off int64) {
	switch {
	case off == 0:
	case off >= math.MinInt32 && off <= math.MaxInt32:
		g.emit(asm.Add.Imm(reg, int32(off)))
	default:
		scratch := asm.R1
		if reg == asm.R1 {
			scratch = asm.R2
		}
		g.loadImm(scratch, off)
		g.emit(asm.Add.Reg(reg, scratch))
	}
}

// addrInto0 materialises p: its address in R0.
func (g *gen) addrInto0(p pending) {
	g.rootInto0(p)
	g.addOff(asm.R0, p.off)
}

// memberAddr leaves the kernel address of the member selected by e in R0.
func (g *gen) memberAddr(e *ast.Field) { g.addrInto0(g.memberChain(e)) }

// elemAddr leaves in R0 the address of element e.Index of a pointer or of
// a kernel/tracepoint array.
func (g *gen) elemAddr(e *ast.Index) { g.addrInto0(g.elemChain(e)) }

// arrayBase leaves in R0 the address of the first element of x.
func (g *gen) arrayBase(x ast.Expr) { g.addrInto0(g.arrayChain(x)) }

// arrayOOBMsg is bpftrace's warning for an array index out of bounds.
const arrayOOBMsg = "Array access out of bounds. This can lead to unexpected results."

// elemRoot leaves in R0 the address of element e.Index, a run-time index,
// less the offset still pending in the chain of the array it indexes.
func (g *gen) elemRoot(e *ast.Index) {
	xt := g.info.TypeOf(e.X)
	size := g.elemSize(e.X)
	g.scalar(e.Index)
	tmp := g.spill(e.Pos())
	if xt.Kind == types.Array && xt.Len > 0 {
		// as bpftrace: a run-time warning, and the read goes ahead
		ok := g.newLabel("inbounds")
		g.emit(asm.JLT.Imm(asm.R0, int32(xt.Len), ok))
		g.runtimeError(arrayOOBMsg, e.Pos())
		g.mark(ok)
	}
	g.rootInto0(g.arrayChain(e.X))
	g.emit(g.ldx(asm.R1, tmp, asm.DWord))
	if size != 1 {
		g.loadImm(asm.R2, size)
		g.emit(asm.Mul.Reg(asm.R1, asm.R2))
	}
	g.emit(asm.Add.Reg(asm.R0, asm.R1))
}

// readAt reads size bytes at the pending address p into the slot at dst,
// as readKernel does: p's offset is added to the read's source address,
// the one place the chain is materialised.
func (g *gen) readAt(dst int16, size int, as types.AddrSpace, p pending) {
	g.rootInto0(p)
	g.readKernelOff(dst, size, as, p.off)
}
