package codegen

import (
	"fmt"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// rPtr holds a map value pointer between a lookup and the code that uses it;
// it is callee-saved, so it survives helper calls.
const rPtr = asm.R7

func (g *gen) mapInfo(name string) *object.Map { return g.c.out.Maps[g.c.mapIndex[name]] }

// mapKey builds the BPF key of map name from keys on the stack and returns
// its offset. For histograms the trailing bucket field is left zero.
func (g *gen) mapKey(name string, keys []ast.Expr, pos srcpos.Pos) (int16, *object.Map) {
	mi := g.mapInfo(name)
	off := g.alloc(mi.Key.Size, pos)
	g.mapKeyAt(off, mi, keys, false)
	return off, mi
}

// mapKeyAt builds the key of mi in place at off. Every key component is
// evaluated straight into its field; only the bytes no component writes
// (padding, and the bucket unless bucketSet) are zeroed.
func (g *gen) mapKeyAt(off int16, mi *object.Map, keys []ast.Expr, bucketSet bool) {
	if len(keys) == 1 && len(mi.Keys) > 1 {
		// @m[$t]: a tuple holding all the keys, laid out like the key.
		g.zero(off, mi.Key.Size)
		g.copyAs(off, types.NewTuple(mi.Keys, nil), keys[0])
		return
	}
	written := make([]bool, roundUp(mi.Key.Size, 8)/8)
	cover := func(at, n int) {
		for i := at / 8; i < (at+n)/8 && i < len(written); i++ {
			written[i] = true
		}
	}
	if bucketSet {
		cover(int(bucketOffset(mi)), 8)
	}
	for i := range keys {
		f := mi.Key.Fields[i]
		kt := mi.Keys[i]
		if f.Offset%8 != 0 {
			// not word aligned: build it over zeroed words
			g.zero(off, mi.Key.Size)
			g.keyFields(off, mi, keys)
			return
		}
		if kt.IsBuffer() {
			cover(f.Offset, roundUp(kt.Size, 8))
		} else {
			cover(f.Offset, 8)
		}
	}
	for i, w := range written {
		if !w {
			g.emit(g.st(off+int16(8*i), 0))
		}
	}
	g.keyFields(off, mi, keys)
}

// keyFields evaluates the key components into their fields of the key at
// off.
func (g *gen) keyFields(off int16, mi *object.Map, keys []ast.Expr) {
	for i, k := range keys {
		f := mi.Key.Fields[i]
		kt := mi.Keys[i]
		if kt.IsBuffer() {
			g.copyAs(off+int16(f.Offset), kt, k)
			continue
		}
		g.scalar(k)
		g.emit(g.stx(off+int16(f.Offset), asm.R0, asm.DWord))
	}
}

// bucketOffset is the offset of a histogram key's bucket field.
func bucketOffset(mi *object.Map) int16 {
	return int16(mi.Key.Fields[len(mi.Key.Fields)-1].Offset)
}

func (g *gen) mapPtr(reg asm.Register, mi *object.Map) {
	g.emit(asm.LoadMapPtr(reg, 0).WithReference(mi.BPFName))
}

// lookup leaves a pointer to the value (or NULL) in R0.
func (g *gen) lookup(mi *object.Map, key int16) { g.lookupRef(mi.BPFName, key) }

// lookupRef is lookup in the map the program references as name (a map
// of the runtime's own, such as the globals).
func (g *gen) lookupRef(name string, key int16) {
	g.emit(
		asm.LoadMapPtr(asm.R1, 0).WithReference(name),
		asm.Mov.Reg(asm.R2, g.base(key)),
		asm.Add.Imm(asm.R2, int32(key)),
		asm.FnMapLookupElem.Call(),
	)
}

// update stores the value at val under key (BPF_ANY).
func (g *gen) update(mi *object.Map, key, val int16) {
	g.emit(asm.Mov.Reg(asm.R3, g.base(val)), asm.Add.Imm(asm.R3, int32(val)))
	g.updateR3(mi, key)
}

// updateOne stores the value 1 under key: the first event of a count or a
// histogram bucket.
func (g *gen) updateOne(mi *object.Map, key int16) {
	g.emit(g.constPtr(asm.R3, 1))
	g.updateR3(mi, key)
}

// updateR3 stores the value R3 points at under key (BPF_ANY). A full map
// (-E2BIG) drops the update; the failure branch counts it for the warning
// at exit.
func (g *gen) updateR3(mi *object.Map, key int16) {
	g.mapPtr(asm.R1, mi)
	g.emit(
		asm.Mov.Reg(asm.R2, g.base(key)),
		asm.Add.Imm(asm.R2, int32(key)),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnMapUpdateElem.Call(),
	)
	if g.c.opts.HelperWarnings {
		failed := g.newLabel("updfail")
		g.emit(asm.JNE.Imm(asm.R0, -7, failed+"_other"), asm.Ja.Label(failed))
		g.mark(failed + "_other")
		g.checkHelper("map_update_elem")
		g.emit(asm.Ja.Label(failed + "_end"))
		g.mark(failed)
		g.emit(asm.Mov.Imm(asm.R0, -7))
		g.mark(failed + "_end")
	}
	ok := g.newLabel("updated")
	g.c.useFullMap()
	g.emit(asm.JNE.Imm(asm.R0, -7, ok))
	g.bumpCounter(fullMapName, g.c.mapIndex[mi.Name], ok)
	g.mark(ok)
}

func (g *gen) mapReadScalar(m *ast.MapRef) {
	key, mi := g.mapKey(m.Name, m.Keys, m.Pos())
	g.lookup(mi, key)
	none := g.newLabel("nokey")
	g.emit(asm.JEq.Imm(asm.R0, 0, none))
	if mi.Value.Kind == types.Avg {
		// this CPU's average
		g.emit(
			asm.LoadMem(asm.R1, asm.R0, 8, asm.DWord),
			asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord),
		)
		g.divide1(false, true) // the count is at least 1
	} else {
		g.emit(asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord))
	}
	if g.c.opts.HelperWarnings {
		end := g.newLabel("readend")
		g.emit(asm.Ja.Label(end))
		g.mark(none)
		g.warnLookupMiss(m)
		g.emit(asm.Mov.Imm(asm.R0, 0))
		g.mark(end)
		return
	}
	g.mark(none)
}

func (g *gen) mapReadBuffer(m *ast.MapRef) int16 {
	key, mi := g.mapKey(m.Name, m.Keys, m.Pos())
	size := valueSize(mi.Value)
	dst := g.alloc(size, m.Pos())
	g.lookup(mi, key)
	none, end := g.newLabel("nokey"), g.newLabel("readend")
	g.emit(asm.JEq.Imm(asm.R0, 0, none))
	g.copyMem(g.base(dst), dst, asm.R0, 0, size)
	g.emit(asm.Ja.Label(end))
	g.mark(none)
	g.warnLookupMiss(m)
	g.zero(dst, size)
	g.mark(end)
	return dst
}

func (g *gen) assign(s *ast.AssignStmt) {
	if call, ok := s.Rhs.(*ast.Call); ok {
		if t := g.info.TypeOf(s.Lhs); t != nil && t.IsAggregation() {
			g.aggregate(s.Lhs.(*ast.MapRef), call, t)
			return
		}
	}
	switch l := s.Lhs.(type) {
	case *ast.Discard:
		g.exprStmt(s.Rhs)
	case *ast.Var:
		off, t := g.varSlot(l)
		if t.IsBuffer() {
			g.copyAs(off, t, s.Rhs)
			return
		}
		switch {
		case s.Op == "=":
			g.scalar(s.Rhs)
		case t.Kind == types.Pointer:
			// p += n, p -= n: n elements of *p
			g.operands(l, s.Rhs)
			if scale := ptrScale(t); scale != 1 {
				g.emit(asm.Mul.Imm(asm.R1, int32(scale)))
			}
			g.arith(s.Op[:len(s.Op)-1], false, s.Pos())
		default:
			g.operands(l, s.Rhs)
			g.arith(s.Op[:len(s.Op)-1], g.compoundSigned(s.Op, t, s.Rhs), s.Pos())
		}
		if t.Kind == types.Int {
			g.extend(asm.R0, t.Size, t.Signed) // a declared narrow type wraps
		}
		g.emit(g.stx(off, asm.R0, asm.DWord))
	case *ast.MapRef:
		if s.Op == "=" {
			g.mapStore(l, s.Rhs)
			return
		}
		g.mapCompound(l, s.Op[:len(s.Op)-1], s.Rhs, 0, false)
	}
}

// mapStore implements @m[k] = v.
func (g *gen) mapStore(m *ast.MapRef, v ast.Expr) {
	mi := g.mapInfo(m.Name)
	size := valueSize(mi.Value)
	val := g.alloc(size, v.Pos())
	if mi.Value.IsBuffer() {
		g.copyAs(val, mi.Value, v)
	} else {
		g.scalar(v)
		g.emit(g.stx(val, asm.R0, asm.DWord))
	}
	key, _ := g.mapKey(m.Name, m.Keys, m.Pos())
	g.update(mi, key, val)
}

// mapCompound implements @m[k] op= v (v nil: the constant delta). Missing
// keys start at zero. + and - on an existing key are one atomic add. When
// result is set, R0 holds the new value afterwards (or the old one for
// postfix ++/--, which the caller fixes up).
func (g *gen) mapCompound(m *ast.MapRef, op string, v ast.Expr, delta int64, result bool) {
	mt := g.mapInfo(m.Name)
	// A pointer steps by the size of what it points to.
	scale := ptrScale(mt.Value)
	var operand int16
	if cv, ok := g.info.Consts[v]; ok && v != nil && !cv.IsStr && scale != 1 {
		v, delta = nil, int64(cv.Int) // @p += 2: the constant 2 * sizeof(*p)
	}
	if v != nil {
		g.scalar(v)
		if scale != 1 {
			g.emit(asm.Mul.Imm(asm.R0, int32(scale)))
		}
		operand = g.spill(v.Pos())
	} else {
		delta *= scale
		operand = g.allocScalar(m.Pos())
		g.loadImm(asm.R0, delta)
		g.emit(g.stx(operand, asm.R0, asm.DWord))
	}
	key, mi := g.mapKey(m.Name, m.Keys, m.Pos())
	g.lookup(mi, key)
	g.emit(asm.Mov.Reg(rPtr, asm.R0))
	missing, end := g.newLabel("missing"), g.newLabel("compend")
	g.emit(asm.JEq.Imm(rPtr, 0, missing))
	if (op == "+" || op == "-") && !result {
		g.emit(g.ldx(asm.R1, operand, asm.DWord))
		if op == "-" {
			g.emit(asm.Neg.Imm(asm.R1, 0))
		}
		g.emit(asm.StoreXAdd(rPtr, asm.R1, asm.DWord), asm.Ja.Label(end))
	} else {
		g.emit(
			asm.LoadMem(asm.R0, rPtr, 0, asm.DWord),
			g.ldx(asm.R1, operand, asm.DWord),
		)
		g.arith(op, mt.Value.Signed, m.Pos())
		g.emit(asm.StoreMem(rPtr, 0, asm.R0, asm.DWord), asm.Ja.Label(end))
	}
	g.mark(missing)
	g.emit(
		asm.Mov.Imm(asm.R0, 0),
		g.ldx(asm.R1, operand, asm.DWord),
	)
	g.arith(op, mt.Value.Signed, m.Pos())
	val := g.allocScalar(m.Pos())
	g.emit(g.stx(val, asm.R0, asm.DWord))
	g.update(mi, key, val)
	if result {
		g.emit(g.ldx(asm.R0, val, asm.DWord))
	}
	g.mark(end)
}

// ptrScale is the step of pointer arithmetic on a value of type t: the
// size of what a pointer points to (1 for void *), 1 for an integer.
func ptrScale(t *types.Type) int64 {
	if t == nil || t.Kind != types.Pointer || t.Elem == nil {
		return 1
	}
	switch {
	case t.Elem.Kind == types.Pointer:
		return 8
	case t.Elem.Size > 0:
		return int64(t.Elem.Size)
	}
	return 1
}

// incDec implements x++ / x-- as a statement.
func (g *gen) incDec(x ast.Expr, op string) {
	delta := int64(1)
	if op == "--" {
		delta = -1
	}
	switch x := x.(type) {
	case *ast.MapRef:
		g.mapCompound(x, "+", nil, delta, false)
	case *ast.Var:
		off, t := g.varSlot(x)
		delta *= ptrScale(t)
		g.emit(
			g.ldx(asm.R0, off, asm.DWord),
			asm.Add.Imm(asm.R0, int32(delta)),
			g.stx(off, asm.R0, asm.DWord),
		)
	}
}

// incDecValue implements ++x, x++, --x, x-- inside an expression.
func (g *gen) incDecValue(e *ast.Unary) {
	delta := int32(1)
	if e.Op == "--" {
		delta = -1
	}
	switch x := e.X.(type) {
	case *ast.MapRef:
		g.mapCompound(x, "+", nil, int64(delta), true)
		if e.Postfix {
			g.emit(asm.Add.Imm(asm.R0, -delta*int32(ptrScale(g.mapInfo(x.Name).Value))))
		}
	case *ast.Var:
		off, t := g.varSlot(x)
		delta *= int32(ptrScale(t))
		g.emit(
			g.ldx(asm.R0, off, asm.DWord),
			asm.Add.Imm(asm.R0, delta),
			g.stx(off, asm.R0, asm.DWord),
		)
		if e.Postfix {
			g.emit(asm.Add.Imm(asm.R0, -delta))
		}
	default:
		g.fail(e.Pos(), fmt.Errorf("%s needs a map or a variable", e.Op))
	}
}

// tupleSize is the size of the tuple of the given element types.
func tupleSize(elems []*types.Type) int { return types.NewTuple(elems, nil).Size }
