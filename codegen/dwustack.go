package codegen

import (
	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/object"
)

// A dw_ustack value is {id, pid}, as a ustack's, but its id names a
// sample in the dwarf samples map (object.DwarfSample: the user ip, sp
// and bp and builtin.DwarfStackBytes of the stack from sp), which the
// runtime unwinds with the CFI of the process's files when it prints the
// value. The sample is built in a per-CPU scratch value, then copied into
// the samples map, an LRU hash: a value printed long after its event may
// find its sample evicted. The id is the CPU number above 40 bits of the
// CPU's own count of samples. A process that is not one of the dwarf pids
// (-p, -c, --dwarf-pid) gets the id -1 and a run-time warning, as bpftrace
// warns that it has no unwind data for it.
const (
	dwarfPidsMapName    = "dwarf_pids"
	dwarfScratchMapName = "dwarf_scratch"
	dwarfSamplesMapName = "dwarf_samples"
	// dwarfSamples is how many samples the LRU map keeps.
	dwarfSamples = 512
)

// noDwarfMsg is bpftrace's run-time warning for a process whose unwind
// data it did not load.
const noDwarfMsg = "No DWARF unwind data available for this process. Use -p or --dwarf-pid to specify target PIDs."

// useDwarfStacks adds the maps of dw_ustack: the processes to unwind
// (their pids as keys), the scratch value and the samples.
func (c *compiler) useDwarfStacks() {
	if c.out.DwarfSampleMap != "" {
		return
	}
	c.out.DwarfSampleMap = dwarfSamplesMapName
	var pids []ebpf.MapKV
	for _, p := range c.prog.DwarfPids {
		pids = append(pids, ebpf.MapKV{Key: uint32(p), Value: uint8(1)})
	}
	size := uint32(object.DwarfSampleHeader + builtin.DwarfStackBytes)
	c.out.Collection.Maps[dwarfPidsMapName] = &ebpf.MapSpec{Name: dwarfPidsMapName, Type: ebpf.Hash,
		KeySize: 4, ValueSize: 1, MaxEntries: uint32(max(len(pids), 1)), Contents: pids}
	c.out.Collection.Maps[dwarfScratchMapName] = &ebpf.MapSpec{Name: dwarfScratchMapName, Type: ebpf.PerCPUArray,
		KeySize: 4, ValueSize: size, MaxEntries: 1}
	c.out.Collection.Maps[dwarfSamplesMapName] = &ebpf.MapSpec{Name: dwarfSamplesMapName, Type: ebpf.LRUHash,
		KeySize: 8, ValueSize: size, MaxEntries: dwarfSamples}
}

// dwUstack builds the {id, pid} value of dw_ustack and its sample.
func (g *gen) dwUstack(e ast.Expr) int16 {
	pos := e.Pos()
	g.c.useDwarfStacks()
	off := g.alloc(16, pos)
	key := g.allocScalar(pos)
	have, scratch, fin, done := g.newLabel("dwpid"), g.newLabel("dwscratch"), g.newLabel("dwfin"), g.newLabel("dwdone")
	builtin.EmitPid(g, false, pos)
	g.emit(g.stx(off+8, asm.R0, asm.DWord), g.st(off, -1))
	builtin.EmitPid(g, true, pos)
	g.emit(g.stx(key, asm.R0, asm.Word))
	g.lookupRef(dwarfPidsMapName, key)
	g.emit(asm.JNE.Imm(asm.R0, 0, have))
	g.runtimeError(noDwarfMsg, pos)
	g.emit(asm.Ja.Label(done))
	g.mark(have)
	g.emit(g.st(key, 0))
	g.lookupRef(dwarfScratchMapName, key)
	g.emit(asm.JNE.Imm(asm.R0, 0, scratch), asm.Ja.Label(done))
	// R7 (rPtr) keeps the scratch value across the helper calls.
	g.mark(scratch)
	g.emit(
		asm.Mov.Reg(rPtr, asm.R0),
		asm.LoadMem(asm.R1, rPtr, 0, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(rPtr, 0, asm.R1, asm.DWord),
		asm.FnGetSmpProcessorId.Call(),
		asm.LSh.Imm(asm.R0, 40),
		asm.LoadMem(asm.R1, rPtr, 0, asm.DWord),
		asm.LSh.Imm(asm.R1, 24),
		asm.RSh.Imm(asm.R1, 24),
		asm.Or.Reg(asm.R0, asm.R1),
		g.stx(off, asm.R0, asm.DWord),
	)
	g.dwarfRegs(pos)
	g.dwarfReturns(pos)
	// The stack from sp: the rest of sp's page, then two whole pages,
	// each read only when the one before it was, so that a stack ending
	// on a page boundary still gives its bytes. The size field counts
	// what was read; the offsets are computed again from sp after each
	// call so that the verifier knows their bounds.
	const data = object.DwarfSampleHeader
	g.emit(
		stImm(rPtr, object.DwarfSampleSize, 0),
		asm.LoadMem(asm.R3, rPtr, object.DwarfSampleSP, asm.DWord),
		asm.And.Imm(asm.R3, 4095),
		asm.Mov.Imm(asm.R2, 4096),
		asm.Sub.Reg(asm.R2, asm.R3), // the rest of the page: 1 to 4096
		asm.Mov.Reg(asm.R1, rPtr),
		asm.Add.Imm(asm.R1, data),
		asm.LoadMem(asm.R3, rPtr, object.DwarfSampleSP, asm.DWord),
		asm.FnProbeReadUser.Call(),
		asm.JNE.Imm(asm.R0, 0, fin),
	)
	for page := 1; page <= 2; page++ {
		g.emit(
			asm.LoadMem(asm.R1, rPtr, object.DwarfSampleSP, asm.DWord),
			asm.And.Imm(asm.R1, 4095),
			asm.Mov.Imm(asm.R2, int32(4096*page)),
			asm.Sub.Reg(asm.R2, asm.R1), // bytes read so far
			asm.StoreMem(rPtr, object.DwarfSampleSize, asm.R2, asm.DWord),
			asm.LoadMem(asm.R3, rPtr, object.DwarfSampleSP, asm.DWord),
			asm.Add.Reg(asm.R3, asm.R2),
			asm.Mov.Reg(asm.R1, rPtr),
			asm.Add.Imm(asm.R1, data),
			asm.Add.Reg(asm.R1, asm.R2),
			asm.Mov.Imm(asm.R2, 4096),
			asm.FnProbeReadUser.Call(),
			asm.JNE.Imm(asm.R0, 0, fin),
		)
	}
	g.emit(
		asm.LoadMem(asm.R1, rPtr, object.DwarfSampleSize, asm.DWord),
		asm.Add.Imm(asm.R1, 4096),
		asm.StoreMem(rPtr, object.DwarfSampleSize, asm.R1, asm.DWord),
	)
	g.mark(fin)
	g.emit(
		asm.LoadMapPtr(asm.R1, 0).WithReference(dwarfSamplesMapName),
		asm.Mov.Reg(asm.R2, g.base(off)),
		asm.Add.Imm(asm.R2, int32(off)),
		asm.Mov.Reg(asm.R3, rPtr),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnMapUpdateElem.Call(),
	)
	g.mark(done)
	g.emit(asm.Mov.Imm(asm.R0, 0))
	return off
}

// dwarfRegs stores the user ip, sp and bp in the sample rPtr points at:
// from the context of a uprobe (the user's registers), else from the
// registers the task entered the kernel with (bpf_task_pt_regs, Linux
// 5.15).
func (g *gen) dwarfRegs(pos srcpos.Pos) {
	regs := []struct {
		name string
		off  int16
	}{{"ip", object.DwarfSampleIP}, {"sp", object.DwarfSampleSP}, {"bp", object.DwarfSampleBP}}
	if def := g.probe.Def(); def != nil && def.UserBinary && g.isKprobeCtx() {
		for _, r := range regs {
			g.loadReg(r.name, pos)
			g.emit(asm.StoreMem(rPtr, r.off, asm.R0, asm.DWord))
		}
		return
	}
	ptr := g.allocScalar(pos)
	g.emit(
		asm.FnGetCurrentTaskBtf.Call(),
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.FnTaskPtRegs.Call(),
		g.stx(ptr, asm.R0, asm.DWord),
	)
	for _, r := range regs {
		o, err := g.c.regOffset(r.name)
		if err != nil {
			g.fail(pos, err)
			return
		}
		g.emit(
			asm.Mov.Reg(asm.R1, rPtr),
			asm.Add.Imm(asm.R1, int32(r.off)),
			asm.Mov.Imm(asm.R2, 8),
			g.ldx(asm.R3, ptr, asm.DWord),
			asm.Add.Imm(asm.R3, int32(o)),
			asm.FnProbeReadKernel.Call(),
		)
	}
}

// dwarfReturns copies into the sample rPtr points at the task's first
// uretprobe return instances, where the checker found their layout
// (check.Program.Returns): the stack address of each return address a
// uretprobe replaced with its trampoline's, and the real one, which the
// runtime puts back when its walk meets the trampoline.
func (g *gen) dwarfReturns(pos srcpos.Pos) {
	g.emit(stImm(rPtr, object.DwarfSampleNRet, 0))
	l := g.c.prog.Returns
	if !l.OK {
		return
	}
	ptr := g.allocScalar(pos)
	done := g.newLabel("dwrets")
	// follow reads the pointer at R3+off into the ptr slot; a failed
	// read ends the list
	follow := func(off int) {
		g.emit(
			asm.Add.Imm(asm.R3, int32(off)),
			asm.Mov.Reg(asm.R1, g.base(ptr)),
			asm.Add.Imm(asm.R1, int32(ptr)),
			asm.Mov.Imm(asm.R2, 8),
			asm.FnProbeReadKernel.Call(),
			asm.JNE.Imm(asm.R0, 0, done),
		)
	}
	// read copies the word at ptr+off into the sample at dst
	read := func(off int, dst int16) {
		g.emit(
			g.ldx(asm.R3, ptr, asm.DWord),
			asm.Add.Imm(asm.R3, int32(off)),
			asm.Mov.Reg(asm.R1, rPtr),
			asm.Add.Imm(asm.R1, int32(dst)),
			asm.Mov.Imm(asm.R2, 8),
			asm.FnProbeReadKernel.Call(),
			asm.JNE.Imm(asm.R0, 0, done),
		)
	}
	g.emit(asm.FnGetCurrentTask.Call(), asm.Mov.Reg(asm.R3, asm.R0))
	follow(l.Utask)
	g.emit(g.ldx(asm.R3, ptr, asm.DWord), asm.JEq.Imm(asm.R3, 0, done))
	follow(l.ReturnInstances)
	for i := range object.DwarfSampleReturns {
		at := int16(object.DwarfSampleRets + 16*i)
		g.emit(g.ldx(asm.R3, ptr, asm.DWord), asm.JEq.Imm(asm.R3, 0, done))
		read(l.Stack, at)
		read(l.OrigRetVaddr, at+8)
		g.emit(stImm(rPtr, object.DwarfSampleNRet, int64(i+1)), g.ldx(asm.R3, ptr, asm.DWord))
		follow(l.Next)
	}
	g.mark(done)
}
