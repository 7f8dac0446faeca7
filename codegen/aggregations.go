package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// rArg holds the argument of an aggregation across the map lookup; it is
// callee-saved, so it survives helper calls.
const rArg = asm.R8

// aggregate implements @m[k] = count()/sum()/... on a per-CPU map: one
// lookup, then an in-place update of this CPU's slot. In a hash, the first
// event for a key inserts it (the cold path, with the map-full
// accounting); a keyless map held in a per-CPU array (see arrayMap) always
// has its slots and never takes that path.
func (g *gen) aggregate(m *ast.MapRef, call *ast.Call, t *types.Type) {
	mi := g.mapInfo(m.Name)
	if t.Kind == types.Tseries {
		g.scalar(call.Args[0])
		arg := g.spill(call.Pos())
		key, _ := g.mapKey(m.Name, m.Keys, m.Pos())
		g.tseries(mi, key, arg, t, m.Pos())
		return
	}
	array := g.c.isArray(mi)
	key := g.alloc(mi.Key.Size, m.Pos())
	// The argument first: it may call helpers. A histogram needs only its
	// bucket, stored straight into the key (and, keeping its sum, the
	// value in rArg); the others keep it in rArg.
	switch t.Kind {
	case types.Hist, types.Lhist:
		g.scalar(call.Args[0])
		g.emit(asm.Mov.Reg(asm.R1, asm.R0))
		if mi.HistSum {
			g.emit(asm.Mov.Reg(rArg, asm.R0))
		}
		if t.Kind == types.Hist {
			g.log2Bucket(t.Bits)
		} else {
			g.linearBucket(mi.Value)
		}
		at := key
		if !array {
			at += bucketOffset(mi)
		}
		g.emit(g.stx(at, asm.R0, asm.DWord))
	case types.Count:
		if array {
			g.emit(g.st(key, 0))
		}
	default:
		g.scalar(call.Args[0])
		g.emit(asm.Mov.Reg(rArg, asm.R0))
		if array {
			g.emit(g.st(key, 0))
		}
	}
	if !array {
		g.mapKeyAt(key, mi, m.Keys, t.Kind == types.Hist || t.Kind == types.Lhist)
	}
	g.lookup(mi, key)
	missing, end := g.newLabel("aggnew"), g.newLabel("aggend")
	if array {
		missing = end // an index out of range; never for count
	}
	g.emit(asm.JEq.Imm(asm.R0, 0, missing))
	g.aggregateInPlace(mi.Value, mi.HistSum, end) // the map's type: its calls may differ in sign
	if array {
		g.mark(end)
		return
	}
	g.emit(asm.Ja.Label(end))
	// New key: insert this CPU's first value.
	g.mark(missing)
	switch {
	case mi.HistSum: // {1, value}
		val := g.alloc(histSumValueSize, m.Pos())
		g.emit(g.st(val, 1), g.stx(val+8, rArg, asm.DWord))
		g.update(mi, key, val)
	case t.Kind == types.Count, t.Kind == types.Hist, t.Kind == types.Lhist:
		g.updateOne(mi, key)
	case t.Kind == types.Sum:
		val := g.allocScalar(m.Pos())
		g.emit(g.stx(val, rArg, asm.DWord))
		g.update(mi, key, val)
	default: // Avg, Stats, Min, Max: {value, 1}
		val := g.alloc(16, m.Pos())
		g.emit(g.stx(val, rArg, asm.DWord), g.st(val+8, 1))
		g.update(mi, key, val)
	}
	g.mark(end)
}

// aggregateInPlace updates the value R0 points at (this CPU's slot) with
// rArg; Min and Max jump to end when the value stays. A histogram bucket
// that keeps its sum (histSum) adds rArg to it.
func (g *gen) aggregateInPlace(t *types.Type, histSum bool, end string) {
	p := asm.R0
	switch t.Kind {
	case types.Count, types.Hist, types.Lhist:
		g.emit(
			asm.LoadMem(asm.R1, p, 0, asm.DWord),
			asm.Add.Imm(asm.R1, 1),
			asm.StoreMem(p, 0, asm.R1, asm.DWord),
		)
		if histSum {
			g.emit(
				asm.LoadMem(asm.R1, p, 8, asm.DWord),
				asm.Add.Reg(asm.R1, rArg),
				asm.StoreMem(p, 8, asm.R1, asm.DWord),
			)
		}
	case types.Sum:
		g.emit(
			asm.LoadMem(asm.R1, p, 0, asm.DWord),
			asm.Add.Reg(asm.R1, rArg),
			asm.StoreMem(p, 0, asm.R1, asm.DWord),
		)
	case types.Avg, types.Stats:
		g.emit(
			asm.LoadMem(asm.R1, p, 0, asm.DWord),
			asm.Add.Reg(asm.R1, rArg),
			asm.StoreMem(p, 0, asm.R1, asm.DWord),
			asm.LoadMem(asm.R1, p, 8, asm.DWord),
			asm.Add.Imm(asm.R1, 1),
			asm.StoreMem(p, 8, asm.R1, asm.DWord),
		)
	case types.Min, types.Max:
		set := g.newLabel("minmaxset")
		better := map[bool]asm.JumpOp{true: asm.JSLT, false: asm.JLT}[t.Signed]
		if t.Kind == types.Max {
			better = map[bool]asm.JumpOp{true: asm.JSGT, false: asm.JGT}[t.Signed]
		}
		g.emit(
			asm.LoadMem(asm.R1, p, 8, asm.DWord),
			asm.JEq.Imm(asm.R1, 0, set),
			asm.LoadMem(asm.R1, p, 0, asm.DWord),
			better.Reg(rArg, asm.R1, set),
			asm.Ja.Label(end),
		)
		g.mark(set)
		g.emit(
			asm.StoreMem(p, 0, rArg, asm.DWord),
			stImm(p, 8, 1),
		)
	}
}

// log2Bucket computes the hist(v, k) bucket of the signed value in R1 into
// R0, as output.HistBucket: 0 for negative values, v+1 for 0 <= v < 2^k,
// and otherwise ((l-k+1) << k) + (the k bits after v's top bit) + 1 with l
// the position of the top bit (for k = 0: 2+floor(log2(v))).
func (g *gen) log2Bucket(k int) {
	done := g.newLabel("log2done")
	mask := int32(1)<<k - 1
	g.emit(
		asm.Mov.Imm(asm.R0, 0),
		asm.JSLT.Imm(asm.R1, 0, done),
	)
	if k == 0 {
		g.emit(
			asm.Mov.Imm(asm.R0, 1),
			asm.JEq.Imm(asm.R1, 0, done),
			asm.Mov.Imm(asm.R0, 2),
		)
	} else {
		big := g.newLabel("log2big")
		g.emit(
			asm.JGT.Imm(asm.R1, mask, big),
			asm.Mov.Reg(asm.R0, asm.R1),
			asm.Add.Imm(asm.R0, 1),
			asm.Ja.Label(done),
		)
		g.mark(big)
		g.emit(
			asm.Mov.Reg(asm.R3, asm.R1),
			asm.Mov.Imm(asm.R0, 0),
		)
	}
	// 2^32 does not fit an immediate: test the high word by shifting.
	skip := g.newLabel("log2")
	g.emit(
		asm.Mov.Reg(asm.R2, asm.R1),
		asm.RSh.Imm(asm.R2, 32),
		asm.JEq.Imm(asm.R2, 0, skip),
		asm.Mov.Reg(asm.R1, asm.R2),
		asm.Add.Imm(asm.R0, 32),
	)
	g.mark(skip)
	for _, shift := range []int32{16, 8, 4, 2, 1} {
		skip := g.newLabel("log2")
		g.emit(
			asm.JLT.Imm(asm.R1, 1<<shift, skip),
			asm.RSh.Imm(asm.R1, shift),
			asm.Add.Imm(asm.R0, shift),
		)
		g.mark(skip)
	}
	if k > 0 {
		// R0 = l-k; bucket ((l-k+1) << k) + ((v >> (l-k)) & mask) + 1
		g.emit(
			asm.Sub.Imm(asm.R0, int32(k)),
			asm.RSh.Reg(asm.R3, asm.R0),
			asm.And.Imm(asm.R3, mask),
			asm.Add.Imm(asm.R0, 1),
			asm.LSh.Imm(asm.R0, int32(k)),
			asm.Add.Reg(asm.R0, asm.R3),
			asm.Add.Imm(asm.R0, 1),
		)
	}
	g.mark(done)
}

// linearBucket computes the lhist bucket of the signed value in R1 into R0:
// 0 below min, 1+(v-min)/step inside, and n+1 at or above max.
func (g *gen) linearBucket(t *types.Type) {
	n := (t.LMax - t.LMin) / t.LStep
	done := g.newLabel("lindone")
	g.emit(asm.Mov.Imm(asm.R0, 0))
	g.loadImm(asm.R2, t.LMin)
	g.emit(asm.JSLT.Reg(asm.R1, asm.R2, done))
	g.loadImm(asm.R0, n+1)
	g.loadImm(asm.R2, t.LMax)
	g.emit(asm.JSGE.Reg(asm.R1, asm.R2, done))
	g.emit(asm.Mov.Reg(asm.R0, asm.R1))
	g.loadImm(asm.R2, t.LMin)
	g.emit(asm.Sub.Reg(asm.R0, asm.R2))
	g.loadImm(asm.R2, t.LStep)
	g.emit(asm.Div.Reg(asm.R0, asm.R2), asm.Add.Imm(asm.R0, 1))
	g.mark(done)
}

// tseriesClock puts tseries()'s clock in R0: the TAI time, or, with
// bpftrace's BPFTRACE_DUMMY_TS_MAP test hook, the value of that keyless map
// (0 when it has none).
func (g *gen) tseriesClock(pos srcpos.Pos) {
	name := g.c.prog.DummyTSMap
	if name == "" {
		g.emit(asm.FnKtimeGetTaiNs.Call())
		return
	}
	key, mi := g.mapKey(name, nil, pos)
	g.lookup(mi, key)
	none := g.newLabel("nots")
	g.emit(
		asm.JEq.Imm(asm.R0, 0, none),
		asm.LoadMem(asm.R0, asm.R0, 0, asm.DWord),
	)
	g.mark(none)
}

// tseries records n in the interval the current TAI time falls in: the
// bucket epoch % num_intervals of this CPU's slots {value, meta, epoch},
// reset when it holds an older epoch, then aggregated (sum, min/max, avg)
// or overwritten (with the time in meta, so user space keeps the latest).
// bpf_ktime_get_tai_ns needs Linux 6.1.
func (g *gen) tseries(mi *object.Map, key, arg int16, t *types.Type, pos srcpos.Pos) {
	now := g.allocScalar(pos)
	epoch := g.allocScalar(pos)
	g.tseriesClock(pos)
	g.emit(g.stx(now, asm.R0, asm.DWord))
	g.loadImm(asm.R1, t.LStep)
	g.emit(asm.Div.Reg(asm.R0, asm.R1), g.stx(epoch, asm.R0, asm.DWord))
	g.loadImm(asm.R1, int64(t.Len))
	g.emit(asm.Mod.Reg(asm.R0, asm.R1), g.stx(key+bucketOffset(mi), asm.R0, asm.DWord))
	val := g.alloc(24, pos)
	g.zero(val, 24)
	g.lookup(mi, key)
	isNew := g.allocScalar(pos)
	found, ready := g.newLabel("tsfound"), g.newLabel("tsready")
	g.emit(
		g.st(isNew, 0),
		asm.Mov.Reg(rPtr, asm.R0),
		asm.JNE.Imm(rPtr, 0, found),
		g.st(isNew, 1),
		asm.Mov.Reg(rPtr, g.base(val)),
		asm.Add.Imm(rPtr, int32(val)),
	)
	g.mark(found)
	g.emit(
		// a slot of an older interval starts over
		asm.LoadMem(asm.R1, rPtr, 16, asm.DWord),
		g.ldx(asm.R2, epoch, asm.DWord),
		asm.JEq.Reg(asm.R1, asm.R2, ready),
		stImm(rPtr, 0, 0),
		stImm(rPtr, 8, 0),
	)
	g.mark(ready)
	g.emit(g.ldx(asm.R2, arg, asm.DWord))
	switch t.Agg {
	case types.Sum:
		g.emit(asm.LoadMem(asm.R1, rPtr, 0, asm.DWord), asm.Add.Reg(asm.R1, asm.R2), asm.StoreMem(rPtr, 0, asm.R1, asm.DWord))
	case types.Avg:
		g.emit(
			asm.LoadMem(asm.R1, rPtr, 0, asm.DWord), asm.Add.Reg(asm.R1, asm.R2), asm.StoreMem(rPtr, 0, asm.R1, asm.DWord),
			asm.LoadMem(asm.R1, rPtr, 8, asm.DWord), asm.Add.Imm(asm.R1, 1), asm.StoreMem(rPtr, 8, asm.R1, asm.DWord),
		)
	case types.Min, types.Max:
		set, done := g.newLabel("tsset"), g.newLabel("tsdone")
		better := asm.JSLT
		if t.Agg == types.Max {
			better = asm.JSGT
		}
		if !t.Signed {
			better = map[types.Kind]asm.JumpOp{types.Min: asm.JLT, types.Max: asm.JGT}[t.Agg]
		}
		g.emit(
			asm.LoadMem(asm.R1, rPtr, 8, asm.DWord),
			asm.JEq.Imm(asm.R1, 0, set),
			asm.LoadMem(asm.R1, rPtr, 0, asm.DWord),
			better.Reg(asm.R2, asm.R1, set),
			asm.Ja.Label(done),
		)
		g.mark(set)
		g.emit(asm.StoreMem(rPtr, 0, asm.R2, asm.DWord), stImm(rPtr, 8, 1))
		g.mark(done)
		g.emit(asm.Mov.Imm(asm.R0, 0))
	default: // the latest value wins
		g.emit(
			asm.StoreMem(rPtr, 0, asm.R2, asm.DWord),
			g.ldx(asm.R1, now, asm.DWord),
			asm.StoreMem(rPtr, 8, asm.R1, asm.DWord),
		)
	}
	skip := g.newLabel("tsend")
	g.emit(
		g.ldx(asm.R1, epoch, asm.DWord),
		asm.StoreMem(rPtr, 16, asm.R1, asm.DWord),
		g.ldx(asm.R1, isNew, asm.DWord),
		asm.JEq.Imm(asm.R1, 0, skip),
	)
	g.update(mi, key, val)
	g.mark(skip)
	g.emit(asm.Mov.Imm(asm.R0, 0))
}
