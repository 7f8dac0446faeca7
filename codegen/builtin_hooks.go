package codegen

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// The generator is the builtin.Emitter of the definitions in package
// builtin: the primitives below, and the code of builtins written here.

var _ builtin.Emitter = (*gen)(nil)

func (g *gen) Emit(ins ...asm.Instruction)          { g.emit(ins...) }
func (g *gen) Base(off int16) asm.Register          { return g.base(off) }
func (g *gen) Alloc(size int, pos srcpos.Pos) int16 { return g.alloc(size, pos) }
func (g *gen) AllocScalar(pos srcpos.Pos) int16     { return g.allocScalar(pos) }
func (g *gen) Zero(off int16, size int)             { g.zero(off, size) }
func (g *gen) NewLabel(prefix string) string        { return g.newLabel(prefix) }
func (g *gen) Mark(label string)                    { g.mark(label) }
func (g *gen) Tag(n ast.Node)                       { g.tag(n) }
func (g *gen) Fail(pos srcpos.Pos, err error)       { g.fail(pos, err) }
func (g *gen) Scalar(e ast.Expr)                    { g.scalar(e) }
func (g *gen) Buffer(e ast.Expr) int16              { return g.buffer(e) }
func (g *gen) Addr(e ast.Expr)                      { g.addrInto0(g.structChain(e)) }
func (g *gen) LoadImm(reg asm.Register, v int64)    { g.loadImm(reg, v) }
func (g *gen) TypeOf(e ast.Expr) *types.Type        { return g.info.TypeOf(e) }
func (g *gen) LoadReg(name string, pos srcpos.Pos)  { g.loadReg(name, pos) }
func (g *gen) Strlen(e *ast.Call)                   { g.strlen(e) }
func (g *gen) Strncmp(e *ast.Call)                  { g.strncmp(e) }
func (g *gen) Strstr(e *ast.Call, contains bool)    { g.strstr(e, contains) }
func (g *gen) Kstack(e ast.Expr)                    { g.kstack(e) }
func (g *gen) Uaddr(e *ast.Call)                    { g.uaddr(e) }
func (g *gen) Ustack(e ast.Expr) int16              { return g.ustack(e) }
func (g *gen) DwUstack(e ast.Expr) int16            { return g.dwUstack(e) }
func (g *gen) Join(e *ast.Call)                     { g.join(e) }
func (g *gen) Macaddr(e *ast.Call)                  { g.macaddr(e) }
func (g *gen) MapLen(e *ast.Call) {
	if m, ok := e.Args[0].(*ast.MapRef); ok && m.Keys == nil {
		g.mapLen(m)
		return
	}
	g.stackLen(e.Args[0])
}
func (g *gen) Find(e *ast.Call)            { g.find(e) }
func (g *gen) Ntop(e *ast.Call) int16      { return g.ntop(e) }
func (g *gen) Buf(e *ast.Call) int16       { return g.buf(e) }
func (g *gen) StrConcat(e *ast.Call) int16 { return g.strConcat(e) }
func (g *gen) Str(e *ast.Call) int16       { return g.str(e) }
func (g *gen) StrInto(e *ast.Call, dst int16, size int) bool {
	return g.strInto(e, dst, size)
}
func (g *gen) Retval(e *ast.Ident)            { g.retval(e) }
func (g *gen) Comm(off int16)                 { g.comm(off) }
func (g *gen) Task() builtin.TaskLayout       { return g.c.prog.Task }
func (g *gen) PidNS() builtin.PidNS           { return g.c.prog.Host.PidNS }
func (g *gen) TAIOffset() int64               { return g.c.prog.Host.TAIOffset }
func (g *gen) ReadKernel(dst int16, size int) { g.readKernel(dst, size, types.Kernel) }
func (g *gen) Record(name string, pos srcpos.Pos) int16 {
	rec, ok := g.info.Records[name]
	if !ok {
		g.fail(pos, fmt.Errorf("no record for %s", name))
		return g.alloc(8, pos)
	}
	return g.buffer(rec)
}

func (g *gen) Pcap(file string, offset int) (int, string) {
	return g.c.pcap(file, offset)
}
func (g *gen) ConstOf(e ast.Expr) (builtin.Const, bool) {
	cv, ok := g.info.Consts[e]
	return cv, ok
}

// MapEvent sends a header-only event naming the map argument (clear, zero).
func (g *gen) MapEvent(kind object.EventKind, e *ast.Call) {
	g.event(kind, g.c.mapIndex[e.Args[0].(*ast.MapRef).Name], e.Pos())
}

// Exit sends the exit event and ends the probe, as in current bpftrace.
func (g *gen) Exit(code ast.Expr, fixed int64, pos srcpos.Pos) { g.exit(code, fixed, pos) }

// exit sends the exit event with the value of x, or code when x is nil,
// and ends the probe.
func (g *gen) exit(x ast.Expr, code int64, pos srcpos.Pos) {
	g.valueEvent(object.EventExit, x, code, pos)
	g.emit(asm.Ja.Label(g.exitLbl))
}

// ValueEvent sends a header-only event of kind whose ID is the value of x.
func (g *gen) ValueEvent(kind object.EventKind, x ast.Expr, pos srcpos.Pos) {
	g.valueEvent(kind, x, 0, pos)
}

// valueEvent sends a header-only event of kind whose ID is the value of
// x, or id when x is nil.
func (g *gen) valueEvent(kind object.EventKind, x ast.Expr, id int64, pos srcpos.Pos) {
	hdr := g.alloc(object.EventHeaderSize, pos)
	if x != nil {
		g.scalar(x)
		g.emit(g.stx(hdr+8, asm.R0, asm.DWord))
	} else {
		g.emit(g.st(hdr+8, id))
	}
	g.emit(g.st(hdr, int64(kind)))
	g.output(hdr, object.EventHeaderSize)
}

// Message sends a printf-style event of kind with a format of the
// definition's own and checked arguments.
func (g *gen) Message(kind object.EventKind, format string, args []ast.Expr, at srcpos.Spanned) {
	g.printf(kind, format, args, at)
}

// Print implements print(@map[, top[, div]]) and print(value).
func (g *gen) Print(e *ast.Call) {
	if m, ok := e.Args[0].(*ast.MapRef); ok && m.Keys == nil {
		if len(e.Args) == 1 {
			g.event(object.EventPrint, g.c.mapIndex[m.Name], e.Pos())
			return
		}
		// {kind, map, top, div}
		rec := g.alloc(object.EventHeaderSize+16, e.Pos())
		g.emit(
			g.st(rec, int64(object.EventPrint)),
			g.st(rec+8, int64(g.c.mapIndex[m.Name])),
			g.st(rec+16, int64(g.info.Consts[e.Args[1]].Int)),
			g.st(rec+24, 0),
		)
		if len(e.Args) == 3 {
			g.emit(g.st(rec+24, int64(g.info.Consts[e.Args[2]].Int)))
		}
		g.output(rec, object.EventHeaderSize+16)
		return
	}
	g.printValue(e.Args[0], e.Pos())
}

// Time sends a time event with its strftime format.
func (g *gen) Time(e *ast.Call) {
	format := "%H:%M:%S\n"
	if len(e.Args) == 1 {
		format = e.Args[0].(*ast.StrLit).Value
	}
	g.event(object.EventTime, g.c.addTime(format), e.Pos())
}

// Delete removes @m[key] (delete(@m[key]) or delete(@m, key)); R0 is 1
// when an element was deleted.
func (g *gen) Delete(e *ast.Call) {
	m := e.Args[0].(*ast.MapRef)
	keys := m.Keys
	if len(e.Args) == 2 {
		keys = []ast.Expr{e.Args[1]}
		if t, ok := e.Args[1].(*ast.Tuple); ok && len(t.Elems) > 1 {
			keys = t.Elems
		}
	}
	key, mi := g.mapKey(m.Name, keys, m.Pos())
	g.mapPtr(asm.R1, mi)
	g.emit(
		asm.Mov.Reg(asm.R2, g.base(key)),
		asm.Add.Imm(asm.R2, int32(key)),
		asm.FnMapDeleteElem.Call(),
	)
	notFound := g.newLabel("delmiss")
	g.emit(asm.JNE.Imm(asm.R0, 0, notFound), asm.Mov.Imm(asm.R0, 1), asm.Ja.Label(notFound+"_end"))
	g.mark(notFound)
	g.emit(asm.Mov.Imm(asm.R0, 0))
	g.mark(notFound + "_end")
}

// HasKey sets R0 to whether @m has the key.
func (g *gen) HasKey(e *ast.Call) {
	m := e.Args[0].(*ast.MapRef)
	keys := []ast.Expr{e.Args[1]}
	if t, ok := e.Args[1].(*ast.Tuple); ok && len(t.Elems) > 1 {
		keys = t.Elems
	}
	key, mi := g.mapKey(m.Name, keys, m.Pos())
	g.lookup(mi, key)
	g.boolify()
}

// Elapsed loads the nanoseconds since the program started.
func (g *gen) Elapsed(e *ast.Ident) {
	g.c.useGlobals()
	key := g.allocScalar(e.Pos())
	none := g.newLabel("noglobals")
	g.emit(g.st(key, 0))
	g.lookupRef(globalsMapName, key)
	g.emit(
		asm.Mov.Imm(asm.R1, 0),
		asm.JEq.Imm(asm.R0, 0, none),
		asm.LoadMem(asm.R1, asm.R0, int16(g.c.out.Globals.StartNsOffset), asm.DWord),
	)
	g.mark(none)
	g.emit(
		g.stx(key, asm.R1, asm.DWord),
		asm.FnKtimeGetNs.Call(),
		g.ldx(asm.R1, key, asm.DWord),
		asm.Sub.Reg(asm.R0, asm.R1),
	)
}

// ArgN loads argument i into R0: where the provider's ArgNAt says (usdt),
// else register argument i (kprobes, uprobes) or array slot i (BTF raw
// tracepoints).
func (g *gen) ArgN(i int, pos srcpos.Pos) {
	if at := g.probe.Def().ArgNAt; at != nil {
		a, ok := at(g.probe.Points[0], i)
		if !ok {
			// The point has fewer arguments: 0, as libbpf's bpf_usdt_arg
			// leaves it.
			g.emit(asm.Mov.Imm(asm.R0, 0))
			return
		}
		g.usdtArg(a, pos)
		return
	}
	if g.isKprobeCtx() {
		g.loadReg(argRegs[i], pos)
		return
	}
	g.emit(asm.LoadMem(asm.R0, rCtx, int16(8*i), asm.DWord))
}

// Ppid loads curtask->real_parent->tgid.
func (g *gen) Ppid(e *ast.Ident) {
	l := g.c.prog.Task
	tmp := g.allocScalar(e.Pos())
	g.emit(asm.FnGetCurrentTask.Call(), asm.Add.Imm(asm.R0, int32(l.RealParent)))
	g.readKernel(tmp, 8, types.Kernel)
	g.emit(g.ldx(asm.R0, tmp, asm.DWord), asm.Add.Imm(asm.R0, int32(l.Tgid)))
	g.readKernel(tmp, 4, types.Kernel)
	g.emit(g.ldx(asm.R0, tmp, asm.Word))
}

// Kfunc calls the kfunc name: a call instruction whose immediate is the
// function's ID in kernel BTF (offset 0: vmlinux), as the checker found it.
func (g *gen) Kfunc(name string, pos srcpos.Pos) {
	if g.progType != ebpf.Tracing {
		g.fail(pos, fmt.Errorf("the kfunc %s can only be called from a tracing program; this probe's program is of type %s", name, g.progType))
		return
	}
	id, ok := g.c.prog.Kfuncs[name]
	if !ok {
		g.fail(pos, fmt.Errorf("the kfunc %s was not resolved by the checker", name))
		return
	}
	g.emit(asm.Instruction{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Constant: int64(id)})
}
