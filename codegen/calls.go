package codegen

import (
	"fmt"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// call emits a builtin function call as its definition says; integer
// results are left in R0.
func (g *gen) call(e *ast.Call) {
	f := g.info.Calls[e]
	switch {
	case f == nil:
		g.fail(e.Pos(), fmt.Errorf("%s() not supported by the code generator", e.Name))
	case f.Emit != nil:
		defer g.markHelperCalls(e, len(g.insns))
		f.Emit(g, e)
	case f.Buffer != nil:
		g.buffer(e)
	default:
		g.fail(e.Pos(), fmt.Errorf("%s() not supported by the code generator", e.Name))
	}
}

// callSpan is the metadata key of a helper call instruction emitted for
// a builtin function call: its value is the call's srcpos.Span, where a
// verifier's refusal of the helper is reported (VerifierPosition).
type callSpan struct{}

// markHelperCalls gives the helper calls emitted for e since instruction
// start, and not already marked by a call inside e, e's span.
func (g *gen) markHelperCalls(e *ast.Call, start int) {
	for i := start; i < len(g.insns); i++ {
		if in := &g.insns[i]; in.IsBuiltinCall() && in.Metadata.Get(callSpan{}) == nil {
			in.Metadata.Set(callSpan{}, e.Span)
		}
	}
}

// output sends size bytes at off to the ring buffer, counting drops. The
// count is kept without a branch: bpf_ringbuf_output returns 0 or a
// negative errno, so its sign bit is the number of events lost, and it is
// added to the drop counter, a one-element array read through a direct
// value pointer (no lookup, no null check). A branch per event would leave
// one pending verifier state per output, and the verifier refuses a
// program whose pending branches pass 8192 (about 4000 printfs).
func (g *gen) output(off int16, size int) {
	g.emit(
		asm.LoadMapPtr(asm.R1, 0).WithReference(eventsMapName),
		asm.Mov.Reg(asm.R2, g.base(off)),
		asm.Add.Imm(asm.R2, int32(off)),
		asm.Mov.Imm(asm.R3, int32(size)),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
		asm.RSh.Imm(asm.R0, 63),
		asm.LoadMapValue(asm.R1, 0, 0).WithReference(droppedMapName),
		asm.StoreXAdd(asm.R1, asm.R0, asm.DWord),
	)
}

// bumpCounter adds one to element index of a per-CPU uint64 array; a
// failed lookup jumps to skip.
func (g *gen) bumpCounter(mapName string, index int, skip string) {
	g.emit(
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapName),
		g.constPtr(asm.R2, index),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, skip),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
	)
}

// constPtr loads into reg a pointer to a uint64 holding n (n less than
// the number of user maps, or 1) in the constants map.
func (g *gen) constPtr(reg asm.Register, n int) asm.Instruction {
	g.c.useConsts()
	return asm.LoadMapValue(reg, 0, uint32(8*n)).WithReference(constsMapName)
}

// event sends a header-only event.
func (g *gen) event(kind object.EventKind, id int, pos srcpos.Pos) {
	hdr := g.alloc(object.EventHeaderSize, pos)
	g.emit(
		g.st(hdr, int64(kind)),
		g.st(hdr+8, int64(id)),
	)
	g.output(hdr, object.EventHeaderSize)
}

// argType is the type an argument has inside an event record.
func argType(t *types.Type) *types.Type {
	switch {
	case t.Kind == types.Bool:
		return types.BoolT
	case t.Enum() != nil:
		// the record holds it widened; %s prints its enumerator
		et := *t
		et.Size = 8
		return &et
	case t.Kind == types.Int:
		return types.NewInt(8, t.Signed)
	case t.Kind == types.Pointer:
		return types.Uint64
	}
	// A string keeps its size, though its slot is rounded up to 8 bytes:
	// one that fills it has no NUL and prints with str_trunc_trailer.
	return t
}

// printf builds a record {kind, id, args...} on the stack and sends it;
// at is the call (its span, for errorf and warnf) or its position.
func (g *gen) printf(kind object.EventKind, format string, args []ast.Expr, at srcpos.Spanned) {
	sp := at.GetSpan()
	pos := sp.Start
	p := &object.Printf{Format: format}
	if kind == object.EventErrorf || kind == object.EventWarnf {
		p.Pos, p.End = sp.Start, sp.End
		if call, ok := at.(*ast.Call); ok {
			p.Expanded = g.c.prog.Expansions[call]
		}
	}
	off := object.EventHeaderSize
	for _, a := range args {
		at := argType(g.info.TypeOf(a))
		if t := g.info.TypeOf(a); kind == object.EventPrintValue && t.Kind == types.Pointer {
			// print() shows a pointer in hex, as bpftrace; printf's
			// conversions take it as an integer
			at = t
		}
		p.Args = append(p.Args, object.Arg{Type: at, Offset: off})
		off += slotSize(at)
	}
	p.Size = off
	id := g.c.addPrintf(p)
	rec := g.alloc(p.Size, pos)
	g.emit(
		g.st(rec, int64(kind)),
		g.st(rec+8, int64(id)),
	)
	for i, a := range args {
		dst := rec + int16(p.Args[i].Offset)
		if p.Args[i].Type.IsBuffer() {
			g.copyInto(dst, p.Args[i].Type.Size, a)
			continue
		}
		g.scalar(a)
		g.emit(g.stx(dst, asm.R0, asm.DWord))
	}
	g.output(rec, p.Size)
}

// printValue implements print(v) for a non-map value.
func (g *gen) printValue(v ast.Expr, pos srcpos.Pos) {
	g.printf(object.EventPrintValue, "", []ast.Expr{v}, pos)
}

// join reads up to check.MaxJoinArgs strings from a char *[] and sends
// them, with the separator, as one event reserved in the ring buffer (it is
// too large for the stack).
func (g *gen) join(e *ast.Call) {
	sep := " "
	if len(e.Args) == 2 {
		sep = e.Args[1].(*ast.StrLit).Value
	}
	size := g.c.prog.MaxStrlen
	p := &object.Printf{Format: sep}
	off := object.EventHeaderSize + 8
	for i := 0; i < check.MaxJoinArgs; i++ {
		p.Args = append(p.Args, object.Arg{Type: types.NewString(size), Offset: off})
		off += roundUp(size, 8)
	}
	p.Size = off
	id := g.c.addPrintf(p)
	at := g.info.TypeOf(e.Args[0])
	user := at.AS == types.User || (at.AS == types.NoAS && g.info.UserArgs)
	readPtr, readStr := asm.FnProbeReadKernel, asm.FnProbeReadKernelStr
	if user {
		readPtr, readStr = asm.FnProbeReadUser, asm.FnProbeReadUserStr
	}

	g.scalar(e.Args[0])
	argv := g.spill(e.Pos())
	tmp := g.allocScalar(e.Pos())
	count := g.allocScalar(e.Pos())
	done, sent := g.newLabel("joindone"), g.newLabel("joinsent")
	g.emit(
		g.st(count, 0),
		asm.LoadMapPtr(asm.R1, 0).WithReference(eventsMapName),
		asm.Mov.Imm(asm.R2, int32(p.Size)),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnRingbufReserve.Call(),
		asm.Mov.Reg(rPtr, asm.R0),
		asm.JEq.Imm(rPtr, 0, sent),
		stImm(rPtr, 0, int64(object.EventJoin)),
		stImm(rPtr, 8, int64(id)),
	)
	for i := 0; i < check.MaxJoinArgs; i++ {
		g.emit(
			// the i-th pointer
			asm.Mov.Reg(asm.R1, g.base(tmp)),
			asm.Add.Imm(asm.R1, int32(tmp)),
			asm.Mov.Imm(asm.R2, 8),
			g.ldx(asm.R3, argv, asm.DWord),
			asm.Add.Imm(asm.R3, int32(8*i)),
			readPtr.Call(),
			g.ldx(asm.R3, tmp, asm.DWord),
			asm.JEq.Imm(asm.R3, 0, done),
			// its string, straight into the event
			asm.Mov.Reg(asm.R1, rPtr),
			asm.Add.Imm(asm.R1, int32(p.Args[i].Offset)),
			asm.Mov.Imm(asm.R2, int32(size)),
			readStr.Call(),
			g.st(count, int64(i+1)),
		)
	}
	g.mark(done)
	g.emit(
		g.ldx(asm.R1, count, asm.DWord),
		asm.StoreMem(rPtr, object.EventHeaderSize, asm.R1, asm.DWord),
		asm.Mov.Reg(asm.R1, rPtr),
		asm.Mov.Imm(asm.R2, 0),
		asm.FnRingbufSubmit.Call(),
	)
	g.mark(sent)
	g.emit(asm.Mov.Imm(asm.R0, 0)) // submit returns nothing

}

// mapLen counts a map's elements: bpf_for_each_map_elem returns how many
// elements it visited, here with a callback that only continues.
func (g *gen) mapLen(m *ast.MapRef) {
	mi := g.mapInfo(m.Name)
	name := g.newLabel("lencb")
	g.mapPtr(asm.R1, mi)
	g.emit(
		asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R2, Src: asm.PseudoFunc, Constant: -1}.WithReference(name),
		asm.Mov.Imm(asm.R3, 0),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnForEachMapElem.Call(),
	)
	cb := asm.Mov.Imm(asm.R0, 0).WithSymbol(name)
	cb = btf.WithFuncMetadata(cb, &btf.Func{Name: name, Linkage: btf.StaticFunc, Type: callbackProto})
	g.callbacks = append(g.callbacks, cb, asm.Return())
}

// find copies the value of @m[key] into a variable and yields whether the
// key was there.
func (g *gen) find(e *ast.Call) {
	m := e.Args[0].(*ast.MapRef)
	v := e.Args[2].(*ast.Var)
	off, t := g.varSlot(v)
	key, mi := g.mapKey(m.Name, []ast.Expr{e.Args[1]}, m.Pos())
	g.lookup(mi, key)
	missing := g.newLabel("findmiss")
	g.emit(asm.JEq.Imm(asm.R0, 0, missing))
	g.copyMem(g.base(off), off, asm.R0, 0, slotSize(t))
	g.emit(asm.Mov.Imm(asm.R0, 1))
	g.mark(missing)
}

// runtimeErrorSpan is runtimeError for a warning that names the script span
// sp and shows its source line.
func (g *gen) runtimeErrorSpan(msg string, sp srcpos.Span) {
	g.runtimeError(msg, sp.Start)
	g.c.out.RuntimeErrors[len(g.c.out.RuntimeErrors)-1].End = sp.End
}

// lookupMissMsg is bpftrace's -k warning for a read of a map key that does
// not exist.
const lookupMissMsg = "Can't lookup map element because it does not exist.\nAdditional Info - helper: map_lookup_elem, retcode: 0"

// warnLookupMiss reports, with -k (Options.HelperWarnings), a read of a
// key of m that does not exist. It clobbers R0-R5.
func (g *gen) warnLookupMiss(m *ast.MapRef) {
	if g.c.opts.HelperWarnings {
		g.runtimeErrorSpan(lookupMissMsg, m.Span)
		g.c.out.RuntimeErrors[len(g.c.out.RuntimeErrors)-1].Helper = "map_lookup_elem"
	}
}

// vmaProto is the prototype of bpf_find_vma callbacks.
var vmaProto = &btf.FuncProto{Return: btfLong, Params: []btf.FuncParam{
	{Name: "task", Type: btfVoidPtr}, {Name: "vma", Type: btfVoidPtr}, {Name: "ctx", Type: btfVoidPtr},
}}

// uaddr loads the address of a uaddr() symbol into R0: a constant, or in a
// position-independent file the symbol's address in the file plus the
// file's load address in the current process, as bpftrace 0.26 computes
// it (the start of the file's mapping at offset 0). bpf_find_vma (Linux
// 5.17+) finds the mapping that holds the probed instruction; it counts
// when it maps the file (its inode), else the file's address is taken as
// 0, as in bpftrace when it finds no mapping. (In a uretprobe the
// instruction is the caller's, in the file when the caller is.)
func (g *gen) uaddr(e *ast.Call) {
	u, ok := g.info.Uaddrs[e]
	if !ok {
		cv := g.info.Consts[e]
		g.loadImm(asm.R0, int64(cv.Int))
		return
	}
	l := g.c.prog.VMA
	pos := e.Pos()
	// {inode number in, load address out}: the callback's context.
	buf := g.alloc(16, pos)
	g.loadImm(asm.R1, int64(u.Ino))
	g.emit(
		g.stx(buf, asm.R1, asm.DWord),
		g.st(buf+8, 0),
		asm.FnGetCurrentTaskBtf.Call(),
		asm.Mov.Reg(asm.R1, asm.R0),
	)
	off, err := g.c.regOffset("ip")
	if err != nil {
		g.fail(pos, err)
		return
	}
	name := g.newLabel("vmacb")
	g.emit(
		asm.LoadMem(asm.R2, rCtx, int16(off), asm.DWord),
		asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R3, Src: asm.PseudoFunc, Constant: -1}.WithReference(name),
		asm.Mov.Reg(asm.R4, g.base(buf)),
		asm.Add.Imm(asm.R4, int32(buf)),
		asm.Mov.Imm(asm.R5, 0),
		asm.FnFindVma.Call(),
		g.ldx(asm.R0, buf+8, asm.DWord),
	)
	g.loadImm(asm.R1, int64(u.Addr))
	g.emit(asm.Add.Reg(asm.R0, asm.R1))
	// The callback: R2 is the vm_area_struct, R3 the context.
	done := name + "_done"
	cb := asm.LoadMem(asm.R4, asm.R2, int16(l.VMFile), asm.DWord).WithSymbol(name)
	cb = btf.WithFuncMetadata(cb, &btf.Func{Name: name, Linkage: btf.StaticFunc, Type: vmaProto})
	g.callbacks = append(g.callbacks,
		cb,
		asm.JEq.Imm(asm.R4, 0, done),
		asm.LoadMem(asm.R4, asm.R4, int16(l.FInode), asm.DWord),
		asm.JEq.Imm(asm.R4, 0, done),
		asm.LoadMem(asm.R4, asm.R4, int16(l.IIno), asm.DWord),
		asm.LoadMem(asm.R5, asm.R3, 0, asm.DWord),
		asm.JNE.Reg(asm.R4, asm.R5, done),
		asm.LoadMem(asm.R4, asm.R2, int16(l.VMStart), asm.DWord),
		asm.LoadMem(asm.R5, asm.R2, int16(l.VMPgoff), asm.DWord),
		asm.LSh.Imm(asm.R5, 12), // PAGE_SHIFT
		asm.Sub.Reg(asm.R4, asm.R5),
		asm.StoreMem(asm.R3, 8, asm.R4, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol(done),
		asm.Return(),
	)
}
