package codegen

import (
	"fmt"
	"slices"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
)

// loopLabels are the jump targets of break and continue; in a for-map
// callback they return from the callback instead (1 stops the iteration).
type loopLabels struct {
	brk, cont string
	callback  bool
}

// while compiles a loop the verifier bounds by walking it.
func (g *gen) while(s *ast.WhileStmt) {
	top, end := g.newLabel("while"), g.newLabel("wend")
	g.mark(top)
	g.branch(s.Cond, end, false)
	g.loops = append(g.loops, loopLabels{brk: end, cont: top})
	g.block(s.Body)
	g.loops = g.loops[:len(g.loops)-1]
	if !blockEnds(s.Body) {
		g.emit(asm.Ja.Label(top))
	}
	g.mark(end)
}

// forRange compiles for ($i : lo..hi): an ordinary loop when the bounds
// are constants, else forLoop.
func (g *gen) forRange(s *ast.ForRangeStmt) {
	if !g.constRange(s) {
		g.forLoop(s)
		return
	}
	lc, hc := g.info.Consts[s.Lo], g.info.Consts[s.Hi]
	off, _ := g.varSlot(s.Var)
	lo, hi := int64(lc.Int), int64(hc.Int)
	top, step, end := g.newLabel("for"), g.newLabel("fstep"), g.newLabel("fend")
	g.loadImm(asm.R0, lo)
	g.emit(g.stx(off, asm.R0, asm.DWord))
	g.mark(top)
	g.emit(g.ldx(asm.R0, off, asm.DWord))
	g.loadImm(asm.R1, hi)
	g.emit(asm.JSGE.Reg(asm.R0, asm.R1, end))
	g.loops = append(g.loops, loopLabels{brk: end, cont: step})
	g.block(s.Body)
	g.loops = g.loops[:len(g.loops)-1]
	if !blockEnds(s.Body) || g.referenced(step) {
		g.mark(step)
		g.emit(
			g.ldx(asm.R0, off, asm.DWord),
			asm.Add.Imm(asm.R0, 1),
			g.stx(off, asm.R0, asm.DWord),
			asm.Ja.Label(top),
		)
	}
	g.mark(end)
}

// forLoop compiles for ($i : lo..hi) with bounds known only at run time
// with bpf_loop (Linux 5.17+): hi-lo iterations (none when hi <= lo) of
// a callback that sets $i to lo plus its index and runs the body.
func (g *gen) forLoop(s *ast.ForRangeStmt) {
	loSlot := g.allocScalar(s.Pos())
	g.scalar(s.Lo)
	g.emit(g.stx(loSlot, asm.R0, asm.DWord))
	g.scalar(s.Hi)
	skip := g.newLabel("floopskip")
	g.emit(
		g.ldx(asm.R1, loSlot, asm.DWord),
		asm.JSLE.Reg(asm.R0, asm.R1, skip),
		asm.Sub.Reg(asm.R0, asm.R1),
	)
	g.callback(s.Pos(), g.newLabel("floop"), loopProto, func() {
		g.emit(asm.Mov.Reg(asm.R1, asm.R0))
	}, func() {
		// R1: the index (u32), R9: the probe's frame. $i is the
		// callback's: its slot may be on the callback's own stack.
		off, _ := g.varSlot(s.Var)
		g.callerLdx(asm.R0, loSlot)
		g.emit(
			asm.Add.Reg(asm.R0, asm.R1),
			g.stx(off, asm.R0, asm.DWord),
		)
	}, asm.FnLoop, asm.R2, s.Body)
	g.mark(skip)
}

// callback compiles body as a callback function called by helper fn
// with the probe's frame pointer as its context argument (ctxArg, the
// register the callback receives it in; the call passes it in R3). setup
// loads the call's other arguments (R1, R2 are set by it: the callback
// goes in R2) and prologue starts the callback once R9 holds the probe's
// frame and rCtx its context. break returns 1 (stop), continue 0; return
// and exit() raise a flag the probe checks after the call.
func (g *gen) callback(pos srcpos.Pos, name string, proto *btf.FuncProto, setup, prologue func(), fn asm.BuiltinFunc, ctxArg asm.Register, body *ast.Block) {
	ctx, ok := g.ctxOf[body]
	if !ok {
		g.fail(pos, fmt.Errorf("internal error: a callback body planVars did not number"))
	}
	ctxSlot := g.allocScalar(pos)
	flag := g.allocScalar(pos)
	g.emit(
		g.stx(ctxSlot, rCtx, asm.DWord),
		g.st(flag, 0),
	)
	setup()
	g.emit(asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc, Constant: -1}.WithReference(name))
	g.callbackCtx(asm.R3)
	g.emit(asm.Mov.Imm(asm.R4, 0))
	g.emit(
		fn.Call(),
		g.ldx(asm.R1, flag, asm.DWord),
		asm.JNE.Imm(asm.R1, 0, g.exitLbl),
	)

	saved, savedPending, savedSource, savedExit, savedFP := g.insns, g.pending, g.source, g.exitLbl, g.fp
	savedReal, savedCtx, savedCopy := g.real, g.cbCtx, g.cbCopy
	savedVars, savedOwner := slices.Clone(g.vars), slices.Clone(g.varOwner)
	restore := func() {
		g.insns, g.pending, g.source, g.exitLbl, g.fp = saved, savedPending, savedSource, savedExit, savedFP
		g.real, g.cbCtx, g.cbCopy = savedReal, savedCtx, savedCopy
		g.vars, g.varOwner = savedVars, savedOwner
	}
	g.insns, g.pending, g.source = nil, nil, ""
	cbExit := g.newLabel(name + "exit")
	g.exitLbl, g.fp = cbExit, asm.R9
	// The callback's own stack, and the variables at home there.
	g.real, g.cbCtx = realReserved, ctx
	g.cbCopy = g.cbAllocVars(ctx)
	g.callbackFrame(ctxArg)
	if g.err != nil {
		restore()
		return
	}
	g.insns[0] = g.insns[0].WithSymbol(name)
	g.insns[0] = btf.WithFuncMetadata(g.insns[0], &btf.Func{Name: name, Linkage: btf.StaticFunc, Type: proto})
	g.cbCopyIn(ctxArg)
	g.callerLdx(rCtx, ctxSlot)
	prologue()
	g.loops = append(g.loops, loopLabels{callback: true})
	g.block(body)
	g.loops = g.loops[:len(g.loops)-1]
	if !blockEnds(body) {
		g.cbReturn(0)
	}
	for _, ins := range g.insns {
		if ins.Reference() == cbExit {
			// return or exit() in the body: stop and tell the probe
			// (which ends: the copies need not go back).
			g.mark(cbExit)
			g.callerSt(flag, 1)
			g.emit(asm.Mov.Imm(asm.R0, 1), asm.Return())
			break
		}
	}
	cb := g.insns
	restore()
	g.callbacks = append(g.callbacks, cb...)
}

// rawCallback compiles body, instructions with no script statements, as
// the callback function name of prototype proto.
func (g *gen) rawCallback(name string, proto *btf.FuncProto, body func()) {
	saved, savedPending, savedSource, savedFP := g.insns, g.pending, g.source, g.fp
	g.insns, g.pending, g.source, g.fp = nil, nil, "", asm.R9
	body()
	if g.err == nil && len(g.insns) > 0 {
		g.insns[0] = g.insns[0].WithSymbol(name)
		g.insns[0] = btf.WithFuncMetadata(g.insns[0], &btf.Func{Name: name, Linkage: btf.StaticFunc, Type: proto})
		g.callbacks = append(g.callbacks, g.insns...)
	}
	g.insns, g.pending, g.source, g.fp = saved, savedPending, savedSource, savedFP
}

// referenced reports whether an instruction emitted so far jumps to label.
func (g *gen) referenced(label string) bool {
	for _, ins := range g.insns {
		if ins.Reference() == label {
			return true
		}
	}
	return false
}

// forMap compiles for ($kv : @map) with bpf_for_each_map_elem (Linux
// 5.13+): the body becomes a callback function that reaches the probe's
// stack through the callback context pointer (the probe's frame pointer),
// reloads the probe context from a stack slot, and stops the iteration with
// return 1 for break, or for return/exit() after raising a flag the probe
// checks when the iteration ends.
func (g *gen) forMap(s *ast.ForMapStmt) {
	mi := g.mapInfo(s.Map.Name)
	kvOff, kvT := g.varSlot(s.Var)
	keyOff, valOff := kvOff+int16(kvT.Fields[0].Offset), kvOff+int16(kvT.Fields[1].Offset)
	g.callback(s.Pos(), g.newLabel("formap"), callbackProto, func() {
		g.mapPtr(asm.R1, mi)
	}, func() {
		// R2: the key, R3: the value.
		g.emit(asm.Mov.Reg(asm.R7, asm.R3))
		g.copyKey(keyOff, mi.Key.Size)
		if mi.PerCPU {
			g.aggPerCPU(mi, keyOff, valOff, s.Pos())
			return
		}
		g.copyMem(g.base(valOff), valOff, asm.R7, 0, valueSize(mi.Value))
	}, asm.FnForEachMapElem, asm.R4, s.Body)
}

// copyKey copies the n-byte map key R2 points at to the stack at off (8-byte
// aligned), reading no byte past the key: a key of small tuples, (1,) or
// ((int8)1, (int8)2), is not a multiple of 8 bytes. The rest of the last
// word is zeroed.
func (g *gen) copyKey(off int16, n int) {
	full := n / 8 * 8
	g.copyMem(g.base(off), off, asm.R2, 0, full)
	if full == n {
		return
	}
	g.emit(g.st(off+int16(full), 0))
	for i := full; i < n; {
		w, size := 1, asm.Byte
		switch {
		case n-i >= 4:
			w, size = 4, asm.Word
		case n-i >= 2:
			w, size = 2, asm.Half
		}
		g.emit(
			asm.LoadMem(asm.R1, asm.R2, int16(i), size),
			g.stx(off+int16(i), asm.R1, size),
		)
		i += w
	}
}

var (
	btfLong    = &btf.Int{Name: "long", Size: 8, Encoding: btf.Signed}
	btfVoidPtr = &btf.Pointer{Target: &btf.Void{}}
	// callbackProto is the prototype of bpf_for_each_map_elem callbacks.
	callbackProto = &btf.FuncProto{Return: btfLong, Params: []btf.FuncParam{
		{Name: "map", Type: btfVoidPtr}, {Name: "key", Type: btfVoidPtr},
		{Name: "value", Type: btfVoidPtr}, {Name: "ctx", Type: btfVoidPtr},
	}}
	// loopProto is the prototype of bpf_loop callbacks.
	loopProto = &btf.FuncProto{Return: btfLong, Params: []btf.FuncParam{
		{Name: "index", Type: &btf.Int{Name: "unsigned int", Size: 4}}, {Name: "ctx", Type: btfVoidPtr},
	}}
)
