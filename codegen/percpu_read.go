package codegen

import (
	"math"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// maxCPUs bounds the loop over the CPUs of sumPerCPU and aggPerCPU.
const maxCPUs = 1024

// aggPerCPU stores at valOff the aggregate over the CPUs of the per-CPU
// value of mi at the key at keyOff, as bpftrace 0.26 reads count, sum,
// min, max and avg maps in a for loop: the sum of the counts or sums, the
// minimum or maximum of the CPUs that have a value, the total divided by
// the total count.
func (g *gen) aggPerCPU(mi *object.Map, keyOff, valOff int16, pos srcpos.Pos) {
	t := mi.Value
	if t.Kind == types.Count || t.Kind == types.Sum {
		g.sumPerCPU(mi, keyOff, valOff)
		return
	}
	// the count (avg)
	acc := g.allocScalar(pos)
	top, done := g.newLabel("cpus"), g.newLabel("cpusdone")
	// min and max start from the identity of their comparison: some CPU
	// has a value, since the key exists
	var start int64
	switch {
	case t.Kind == types.Min && t.Signed:
		start = math.MaxInt64
	case t.Kind == types.Min:
		start = -1 // the largest uint64
	case t.Kind == types.Max && t.Signed:
		start = math.MinInt64
	}
	g.loadImm(asm.R1, start)
	g.emit(
		g.stx(valOff, asm.R1, asm.DWord),
		g.st(acc, 0),
		asm.Mov.Imm(asm.R8, 0),
	)
	// the possible CPUs when known: the verifier walks every iteration
	ncpus := g.c.prog.NCPUs
	if ncpus <= 0 || ncpus > maxCPUs {
		ncpus = maxCPUs
	}
	g.mark(top)
	g.lookupCPU(mi, keyOff, ncpus, done)
	next := g.newLabel("cpunext")
	switch t.Kind {
	case types.Avg:
		g.emit(
			asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
			g.ldx(asm.R2, valOff, asm.DWord),
			asm.Add.Reg(asm.R2, asm.R1),
			g.stx(valOff, asm.R2, asm.DWord),
			asm.LoadMem(asm.R1, asm.R0, 8, asm.DWord),
			g.ldx(asm.R2, acc, asm.DWord),
			asm.Add.Reg(asm.R2, asm.R1),
			g.stx(acc, asm.R2, asm.DWord),
		)
	default: // Min, Max: {value, set}
		better := map[[2]bool]asm.JumpOp{
			{false, false}: asm.JLT, {false, true}: asm.JSLT,
			{true, false}: asm.JGT, {true, true}: asm.JSGT,
		}[[2]bool{t.Kind == types.Max, t.Signed}]
		take := g.newLabel("cputake")
		g.emit(
			asm.LoadMem(asm.R1, asm.R0, 8, asm.DWord),
			asm.JEq.Imm(asm.R1, 0, next), // this CPU has no value
			asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
			g.ldx(asm.R2, valOff, asm.DWord),
			better.Reg(asm.R1, asm.R2, take),
			asm.Ja.Label(next),
		)
		g.mark(take)
		g.emit(g.stx(valOff, asm.R1, asm.DWord))
	}
	g.mark(next)
	g.emit(
		asm.Add.Imm(asm.R8, 1),
		asm.Ja.Label(top),
	)
	g.mark(done)
	if t.Kind == types.Avg {
		// the count is at least 1: the key was inserted with one value
		g.emit(
			g.ldx(asm.R0, valOff, asm.DWord),
			g.ldx(asm.R1, acc, asm.DWord),
		)
		g.divide1(false, t.Signed)
		g.emit(g.stx(valOff, asm.R0, asm.DWord))
	}
}

// sumPerCPU stores at valOff the sum over the CPUs of the per-CPU
// count or sum of mi at the key at keyOff, looked up with
// bpf_map_lookup_percpu_elem (Linux 5.19+) until a CPU has none.
func (g *gen) sumPerCPU(mi *object.Map, keyOff, valOff int16) {
	top, done := g.newLabel("cpus"), g.newLabel("cpusdone")
	g.emit(
		g.st(valOff, 0),
		asm.Mov.Imm(asm.R8, 0),
	)
	g.mark(top)
	g.lookupCPU(mi, keyOff, maxCPUs, done)
	g.emit(
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		g.ldx(asm.R2, valOff, asm.DWord),
		asm.Add.Reg(asm.R2, asm.R1),
		g.stx(valOff, asm.R2, asm.DWord),
		asm.Add.Imm(asm.R8, 1),
		asm.Ja.Label(top),
	)
	g.mark(done)
}

// lookupCPU is the head of a loop over the CPUs, R8 the CPU: it leaves in
// R0 CPU R8's value of mi at the key at keyOff, and jumps to done past
// bound CPUs or at the first CPU without one.
func (g *gen) lookupCPU(mi *object.Map, keyOff int16, bound int, done string) {
	g.emit(asm.JGE.Imm(asm.R8, int32(bound), done))
	g.mapPtr(asm.R1, mi)
	g.emit(
		asm.Mov.Reg(asm.R2, g.base(keyOff)),
		asm.Add.Imm(asm.R2, int32(keyOff)),
		asm.Mov.Reg(asm.R3, asm.R8),
		asm.FnMapLookupPercpuElem.Call(),
		asm.JEq.Imm(asm.R0, 0, done),
	)
}
