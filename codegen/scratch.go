package codegen

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// A probe whose frame (its variables and temporaries: strings of a large
// max_strlen, tuples and map keys holding them, event records) needs more
// than the 512 bytes of BPF stack is compiled again with the frame in a
// map value, as bpftrace 0.26 puts values larger than on_stack_limit in
// scratch buffers. The value is the probe's own (one program never runs
// nested on one CPU), and R9 points past its end, so every slot keeps its
// negative offset and every instruction its shape: only the base register
// changes from R10 to R9, for the values that are not integers, which
// stay on the real stack (slots.go).
//
//	scratchFrame: a per-CPU array of one value, looked up at key 0
//	              (frames up to 32 KiB, the largest per-CPU value, less
//	              512 bytes); R9 points 512 bytes past its end, so that
//	              its offsets are below the real stack's.
//	bigScratch:   an array of one value per CPU, looked up at the CPU's
//	              number (frames up to 64 KiB); R9 then points 32 KiB
//	              before the end, so offsets run from -32768 to 32767,
//	              less the real stack's -512 to -1.
//	bigFlat:      bigScratch with no real stack slots, for a value of
//	              more than 32 KiB.
//
// Helpers that take a context for a callback (bpf_loop,
// bpf_for_each_map_elem) want a stack pointer: the probe spills R9 at
// R10-8 and passes that slot, and the callback loads R9 from it.

// ErrScratchLimit is returned (wrapped, with the script position) when a
// probe's frame does not fit in its scratch map value either.
var ErrScratchLimit = fmt.Errorf("a probe's values are limited to %d bytes", bigScratchLimit)

// Slots on the real stack in the scratch modes.
const (
	spillR9Slot = -8  // R9, the callback context
	cpuKeySlot  = -16 // the CPU number, the key of a bigScratch lookup
)

// zeroLoopMin and copyHelperMin are the sizes above which a zeroed range
// is cleared by a loop and a copy made by bpf_probe_read_kernel, rather
// than one instruction (or two) per word.
const (
	zeroLoopMin   = 512
	copyHelperMin = 512
)

func (g *gen) frameLimit() int {
	switch g.mode {
	case scratchFrame:
		return scratchLimit - stackLimit // offsets down to -32768
	case bigScratch, bigFlat:
		return bigScratchLimit
	}
	return stackLimit
}

// frameBias is what alloc adds to the negated frame depth: -512 below
// the real stack's offsets in a scratchFrame value, 32 KiB when R9 points
// at the middle of a bigScratch value.
func (g *gen) frameBias() int {
	switch g.mode {
	case scratchFrame:
		return -stackLimit
	case bigScratch, bigFlat:
		return scratchLimit
	}
	return 0
}

func (g *gen) scratchMapName() string { return "scratch_" + g.progName }

// bailLabel is the label of the probe's final return, which the scratch
// lookup jumps to when it fails (it cannot: the key is always there),
// skipping an epilogue that would use the frame.
func (g *gen) bailLabel() string {
	if g.bail == "" {
		g.bail = g.newLabel("bail")
	}
	return g.bail
}

// scratchPrologue points R9 at the probe's scratch frame.
func (g *gen) scratchPrologue() {
	if g.mode == onStack {
		return
	}
	g.fp = asm.R9
	if g.mode == scratchFrame {
		g.emit(
			asm.LoadMapPtr(asm.R1, 0).WithReference(g.scratchMapName()),
			g.constPtr(asm.R2, 0),
		)
	} else {
		g.emit(
			asm.FnGetSmpProcessorId.Call(),
			asm.StoreMem(asm.RFP, cpuKeySlot, asm.R0, asm.Word),
			asm.LoadMapPtr(asm.R1, 0).WithReference(g.scratchMapName()),
			asm.Mov.Reg(asm.R2, asm.RFP),
			asm.Add.Imm(asm.R2, cpuKeySlot),
		)
	}
	g.emit(
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, g.bailLabel()),
		asm.Mov.Reg(asm.R9, asm.R0),
	)
	g.fpFix = len(g.insns)
	g.emit(asm.Add.Imm(asm.R9, 0)) // the frame's size, set by scratchFinish
}

// scratchFinish sets R9's offset into the scratch value, now that the
// frame's size is known, and declares the scratch map.
func (g *gen) scratchFinish() {
	if g.mode == onStack {
		return
	}
	size := roundUp(max(g.maxSP, 8), 8)
	spec := &ebpf.MapSpec{
		Name:       g.scratchMapName(),
		Type:       ebpf.PerCPUArray,
		KeySize:    4,
		ValueSize:  uint32(size),
		MaxEntries: 1,
	}
	if g.mode.big() {
		if g.c.prog.NCPUs <= 0 {
			// one value per CPU, or the probe would do nothing on the others
			g.fail(g.probe.AST.Pos(), fmt.Errorf("%w: this probe needs %d bytes, past %d bytes it needs the number of possible CPUs (check.Options.NCPUs)", ErrScratchLimit, g.maxSP, scratchLimit))
			return
		}
		size = max(size, scratchLimit)
		spec.Type, spec.ValueSize, spec.MaxEntries = ebpf.Array, uint32(size), uint32(g.c.prog.NCPUs)
	}
	g.insns[g.fpFix].Constant = int64(size - g.frameBias())
	g.c.out.Collection.Maps[spec.Name] = spec
}

// callbackCtx loads into reg the context pointer of a callback: the frame
// pointer on the stack, the slot holding it in a scratch mode.
func (g *gen) callbackCtx(reg asm.Register) {
	if g.mode == onStack {
		g.emit(asm.Mov.Reg(reg, g.fp))
		return
	}
	g.emit(
		asm.StoreMem(asm.RFP, spillR9Slot, asm.R9, asm.DWord),
		asm.Mov.Reg(reg, asm.RFP),
		asm.Add.Imm(reg, spillR9Slot),
	)
}

// callbackFrame starts a callback: R9 is the probe's frame pointer, from
// its context argument ctx.
func (g *gen) callbackFrame(ctx asm.Register) {
	if g.mode == onStack {
		g.emit(asm.Mov.Reg(asm.R9, ctx))
		return
	}
	g.emit(asm.LoadMem(asm.R9, ctx, 0, asm.DWord))
}

// zeroLoop clears the size bytes (a multiple of 8) at off with a loop the
// verifier walks, eight stores an iteration (R1 the address, R2 the bytes
// cleared: registers, which the verifier tracks wherever the frame is),
// and the words left over after it.
func (g *gen) zeroLoop(off int16, size int) {
	const chunk = 64
	top := g.newLabel("zero")
	g.emit(
		asm.Mov.Reg(asm.R1, g.base(off)),
		asm.Add.Imm(asm.R1, int32(off)),
		asm.Mov.Imm(asm.R2, 0),
	)
	g.mark(top)
	for i := int16(0); i < chunk; i += 8 {
		g.emit(stImm(asm.R1, i, 0))
	}
	g.emit(
		asm.Add.Imm(asm.R1, chunk),
		asm.Add.Imm(asm.R2, chunk),
		asm.JLT.Imm(asm.R2, int32(size/chunk*chunk), top),
	)
	for i := 0; i < size%chunk; i += 8 {
		g.emit(stImm(asm.R1, int16(i), 0))
	}
}

// copyHelper copies n bytes with bpf_probe_read_kernel, as bpftrace
// copies values over 512 bytes; it clobbers R0-R5.
func (g *gen) copyHelper(dstReg asm.Register, dst int16, srcReg asm.Register, src int16, n int) {
	g.emit(
		asm.Mov.Reg(asm.R3, srcReg),
		asm.Add.Imm(asm.R3, int32(src)),
		asm.Mov.Reg(asm.R1, dstReg),
		asm.Add.Imm(asm.R1, int32(dst)),
		asm.Mov.Imm(asm.R2, int32(n)),
		asm.FnProbeReadKernel.Call(),
	)
}

// compileFrame compiles a probe's program with its frame on the stack,
// and again in a scratch map value when it does not fit there. A failed
// attempt's printf layouts, helper sites and run-time errors are dropped.
func (c *compiler) compileFrame(newG func() *gen) (asm.Instructions, error) {
	nPrintfs, nSites, nErrs := len(c.out.Printfs), len(c.out.HelperSites), len(c.out.RuntimeErrors)
	var err error
	for _, mode := range []frameMode{onStack, scratchFrame, bigScratch, bigFlat} {
		c.out.Printfs, c.out.HelperSites, c.out.RuntimeErrors = c.out.Printfs[:nPrintfs], c.out.HelperSites[:nSites], c.out.RuntimeErrors[:nErrs]
		for k, i := range c.printfs {
			if i >= nPrintfs {
				delete(c.printfs, k)
			}
		}
		g := newG()
		g.mode = mode
		var insns asm.Instructions
		insns, err = g.program()
		if !errors.Is(err, ErrStackLimit) && !errors.Is(err, ErrScratchLimit) {
			return insns, err
		}
	}
	return nil, err
}

// ownScratch gives the copy s of program from, named name in the
// collection (one trampoline target of a wildcard), a scratch map of its
// own: two programs may run at once on one CPU (a preempted trampoline),
// one program only once.
func (c *compiler) ownScratch(s *ebpf.ProgramSpec, name, from string) {
	shared, ok := c.out.Collection.Maps["scratch_"+from]
	if !ok {
		return
	}
	own := shared.Copy()
	own.Name = "scratch_" + name
	c.out.Collection.Maps[own.Name] = own
	for i := range s.Instructions {
		if s.Instructions[i].Reference() == shared.Name {
			s.Instructions[i] = s.Instructions[i].WithReference(own.Name)
		}
	}
}
