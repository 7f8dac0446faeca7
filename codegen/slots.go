package codegen

import (
	"fmt"
	"slices"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
)

// Frame slots in the scratch modes. The verifier tracks what a program
// stores on its stack, not what it stores in a map value: a loop counter
// kept in the scratch value is an unknown scalar on every iteration, and
// a bounded loop (for ($i : 0..3), while) is refused as infinite. So the
// scratch modes (but bigFlat) split the frame in two regions that never
// overlap:
//
//   - the real stack, R10's offsets -512 to -1: 8-byte scalar slots
//     (integer variables, spilled temporaries), allocScalar;
//   - the scratch value, R9's offsets below -512 (and, in bigScratch, from
//     0 up): strings, tuples, keys, records, everything alloc reserves.
//
// An offset thus names its region, and base gives the register that
// addresses it. On the stack (onStack) there is one region and base is
// always fp.
//
// Callbacks (bpf_loop, bpf_for_each_map_elem) run on a stack of their own.
// Their context argument points into their caller's stack (at its saved
// R9, spillR9Slot): they load R9 from it, and reach the caller's real
// stack through it, kept at ctxPtrSlot (the verifier tracks what a
// caller's stack holds as it does its own). A callback body is a context
// of its own (numbered from 1; the probe is 0), with its scalars on its
// own stack. An integer variable lives on the real stack of its home,
// the context that declares it (that context holds every other use:
// scopes end with their block, so nothing of a callback's variable
// outlives one call of the callback either). A callback using a variable
// of an outer context (or calling a callback that does) has a copy of
// it, copied in from its caller's slot when it starts and back when it
// returns (cbCopyIn, cbReturn); so the verifier still knows a loop bound
// of the probe's in a callback. The slots a caller shares with its
// callback (its context pointer, the return flag, forLoop's low bound)
// are on the caller's real stack too.
//
// The kernel limits the stack of a chain of calls to 512 bytes in all,
// each frame rounded up to 32 bytes: every context gets realBudget bytes,
// a share of what is left after 32 bytes for a callback with no stack of
// its own (strstr's, bpf_find_vma's) at the end of the chain. A scalar
// that does not fit its context's share goes to the scratch value.

// realReserved is the size of the reserved slots at the top of every
// context's real stack: spillR9Slot, cpuKeySlot.
const realReserved = 16

// leafFrame is what a callback with no stack of its own counts for in the
// kernel's limit on a chain of calls (a frame is rounded up to 32 bytes,
// and counts at least that much before Linux 6.x's JIT rounding).
const leafFrame = 32

// base is the register addressing the frame slot at off.
func (g *gen) base(off int16) asm.Register {
	if g.onReal(off) {
		return asm.RFP
	}
	return g.fp
}

// onReal reports whether the slot at off is on the real stack (of the
// context that reserved it), in a split mode.
func (g *gen) onReal(off int16) bool {
	return g.mode.split() && off < 0 && off >= -stackLimit
}

// ldx, stx and st load and store the frame slot at off.
func (g *gen) ldx(dst asm.Register, off int16, size asm.Size) asm.Instruction {
	return asm.LoadMem(dst, g.base(off), off, size)
}

func (g *gen) stx(off int16, src asm.Register, size asm.Size) asm.Instruction {
	return asm.StoreMem(g.base(off), off, src, size)
}

func (g *gen) st(off int16, v int64) asm.Instruction {
	return stImm(g.base(off), off, v)
}

// allocScalar reserves an 8-byte slot for an integer (or a pointer): on
// the real stack of the current context in a scratch mode while its
// share lasts, else in the frame as alloc does.
func (g *gen) allocScalar(pos srcpos.Pos) int16 {
	if !g.mode.split() || g.real+8 > g.realLimit {
		return g.alloc(8, pos)
	}
	g.real += 8
	return int16(-g.real)
}

// realBudget is each context's share of the real stack.
func (g *gen) realBudget() int {
	share := (stackLimit - leafFrame) / (g.cbDepth + 1) / 32 * 32
	return max(share, 32)
}

// frameMark is the allocation state of the frame, saved before
// temporaries are allocated and restored when they die.
type frameMark struct{ frame, real int }

func (g *gen) markFrame() frameMark { return frameMark{g.frame, g.real} }

func (g *gen) release(m frameMark) { g.frame, g.real = m.frame, m.real }

// ctxPtrSlot is the slot of a callback's real stack that keeps its
// context argument, a pointer to its caller's spillR9Slot.
const ctxPtrSlot = cpuKeySlot

// Homes of variables, as planVars finds them.
const (
	ctxUnseen = -2 // no use in the probe's tree: in the frame
	ctxShared = -1 // no context holds every use (never, by scoping): in the frame
)

// ctxInfo describes a callback body, a context.
type ctxInfo struct {
	parent int
	depth  int
	// copies are the variables of outer contexts the callback copies in
	// from its caller and back: those used in the callback or below it.
	copies []int
}

// planVars numbers the callback bodies of the probe (ctxOf, ctxs), finds
// the deepest nesting of callbacks (cbDepth) and the home of each
// variable (varHome).
func (g *gen) planVars() {
	g.ctxOf = map[*ast.Block]int{}
	g.ctxs = []ctxInfo{{parent: -1}}
	uses := make([][]int, len(g.info.VarTypes)) // the contexts using each variable
	var walk func(n ast.Node, ctx int)
	enter := func(body *ast.Block, v *ast.Var, parent int) {
		c := len(g.ctxs)
		g.ctxOf[body] = c
		g.ctxs = append(g.ctxs, ctxInfo{parent: parent, depth: g.ctxs[parent].depth + 1})
		walk(v, c)
		walk(body, c)
	}
	walk = func(n ast.Node, ctx int) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Var:
				if id, ok := g.info.VarIDs[n]; ok && id < len(uses) && !slices.Contains(uses[id], ctx) {
					uses[id] = append(uses[id], ctx)
				}
			case *ast.ForMapStmt:
				walk(n.Map, ctx)
				enter(n.Body, n.Var, ctx)
				return false
			case *ast.ForRangeStmt:
				if g.constRange(n) {
					return true
				}
				walk(n.Lo, ctx)
				walk(n.Hi, ctx)
				enter(n.Body, n.Var, ctx)
				return false
			}
			return true
		})
	}
	walk(g.probe.AST, 0)
	g.cbDepth = 0
	for _, c := range g.ctxs {
		g.cbDepth = max(g.cbDepth, c.depth)
	}
	g.varHome = make([]int, len(uses))
	for id, cs := range uses {
		home := g.homeOf(cs)
		g.varHome[id] = home
		if home < 0 {
			continue
		}
		// every callback between the home and a use carries a copy
		for _, c := range cs {
			for ; c != home; c = g.ctxs[c].parent {
				if !slices.Contains(g.ctxs[c].copies, id) {
					g.ctxs[c].copies = append(g.ctxs[c].copies, id)
				}
			}
		}
	}
}

// homeOf is the context among cs that holds all the others, ctxUnseen
// for none, or ctxShared when none does.
func (g *gen) homeOf(cs []int) int {
	if len(cs) == 0 {
		return ctxUnseen
	}
	home := cs[0]
	for _, c := range cs {
		if g.ctxs[c].depth < g.ctxs[home].depth {
			home = c
		}
	}
	for _, c := range cs {
		for c != home && c > 0 {
			c = g.ctxs[c].parent
		}
		if c != home {
			return ctxShared
		}
	}
	return home
}

// constRange reports whether a for-range loop has constant bounds (an
// ordinary loop; otherwise a bpf_loop callback, forLoop).
func (g *gen) constRange(s *ast.ForRangeStmt) bool {
	_, lok := g.info.Consts[s.Lo]
	_, hok := g.info.Consts[s.Hi]
	return lok && hok
}

// allocVars reserves the slots of the probe's variables when it starts:
// on its real stack those at home there, in the frame those of no
// context (buffers, and every variable on the stack, where there are no
// homes). A callback's are reserved when it starts (cbAllocVars).
func (g *gen) allocVars() {
	pos := g.probe.AST.Pos()
	for id, t := range g.info.VarTypes {
		switch {
		case t == nil:
		case !g.mode.split() || t.IsBuffer() || g.varHome[id] < 0:
			g.vars[id], g.varOwner[id] = g.alloc(slotSize(t), pos), ctxShared
		case g.varHome[id] == 0:
			g.vars[id], g.varOwner[id] = g.allocScalar(pos), 0
		}
	}
}

// cbAllocVars reserves, when callback ctx starts, the slots of its own
// variables and of its copies, and returns its copies.
func (g *gen) cbAllocVars(ctx int) (c cbCopies) {
	if !g.mode.split() {
		return c
	}
	pos := g.probe.AST.Pos()
	for id, t := range g.info.VarTypes {
		if t != nil && g.varHome[id] == ctx && !t.IsBuffer() {
			g.vars[id], g.varOwner[id] = g.allocScalar(pos), ctx
		}
	}
	for _, id := range g.ctxs[ctx].copies {
		if t := g.info.VarTypes[id]; t == nil || t.IsBuffer() {
			continue // one slot, in the frame
		}
		c.ids, c.from = append(c.ids, id), append(c.from, g.vars[id])
		g.vars[id], g.varOwner[id] = g.allocScalar(pos), ctx
	}
	return c
}

// varOffset is the slot of variable id in the current context.
func (g *gen) varOffset(id int, pos srcpos.Pos) int16 {
	off := g.vars[id]
	if g.onReal(off) && g.varOwner[id] != g.cbCtx {
		g.fail(pos, fmt.Errorf("internal error: variable %d of context %d used in context %d", id, g.varOwner[id], g.cbCtx))
	}
	return off
}

// callerLdx and callerStx load and store, in a callback, the slot at off
// of its caller's frame, through the context pointer when it is on the
// caller's real stack (they clobber R5).
func (g *gen) callerLdx(dst asm.Register, off int16) {
	if !g.onReal(off) {
		g.emit(g.ldx(dst, off, asm.DWord))
		return
	}
	g.emit(
		asm.LoadMem(asm.R5, asm.RFP, ctxPtrSlot, asm.DWord),
		asm.LoadMem(dst, asm.R5, off-spillR9Slot, asm.DWord),
	)
}

func (g *gen) callerSt(off int16, v int64) {
	if !g.onReal(off) {
		g.emit(g.st(off, v))
		return
	}
	g.emit(
		asm.LoadMem(asm.R5, asm.RFP, ctxPtrSlot, asm.DWord),
		stImm(asm.R5, off-spillR9Slot, v),
	)
}

// cbCopies are the copies of the callback being compiled: the variables
// and their slots in the caller.
type cbCopies struct {
	ids  []int
	from []int16
}

// cbCopyIn starts a callback in a split mode: it keeps its context
// argument ctx at ctxPtrSlot and copies the variables of its caller it
// uses (R0 and R5 are clobbered, the arguments kept).
func (g *gen) cbCopyIn(ctx asm.Register) {
	if !g.mode.split() {
		return
	}
	g.emit(asm.StoreMem(asm.RFP, ctxPtrSlot, ctx, asm.DWord))
	g.copyCaller(true)
}

// copyCaller copies the callback's copies from the caller's slots, or
// back.
func (g *gen) copyCaller(in bool) {
	for i, id := range g.cbCopy.ids {
		from := g.cbCopy.from[i]
		if in {
			g.callerLdx(asm.R0, from)
			g.emit(g.stx(g.vars[id], asm.R0, asm.DWord))
			continue
		}
		g.emit(g.ldx(asm.R0, g.vars[id], asm.DWord))
		if !g.onReal(from) {
			g.emit(g.stx(from, asm.R0, asm.DWord))
			continue
		}
		g.emit(
			asm.LoadMem(asm.R5, asm.RFP, ctxPtrSlot, asm.DWord),
			asm.StoreMem(asm.R5, from-spillR9Slot, asm.R0, asm.DWord),
		)
	}
}

// cbReturn returns ret from a callback, after copying its copies back.
func (g *gen) cbReturn(ret int32) {
	g.copyCaller(false)
	g.emit(asm.Mov.Imm(asm.R0, ret), asm.Return())
}
