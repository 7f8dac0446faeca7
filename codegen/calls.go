package codegen

import (
	"fmt"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/object"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// call emits a builtin function call; integer results are left in R0.
func (g *gen) call(e *ast.Call) {
	switch e.Name {
	case "printf":
		g.printf(object.EventPrintf, e.Args[0].(*ast.StrLit).Value, e.Args[1:], e.Pos())
	case "exit":
		code := int64(0)
		hdr := g.alloc(object.EventHeaderSize, e.Pos())
		if len(e.Args) == 1 {
			g.scalar(e.Args[0])
			g.emit(asm.StoreMem(g.fp, hdr+8, asm.R0, asm.DWord))
		} else {
			g.emit(stImm(g.fp, hdr+8, code))
		}
		g.emit(stImm(g.fp, hdr, int64(object.EventExit)))
		g.output(hdr, object.EventHeaderSize)
		// exit() ends the probe, as in current bpftrace.
		g.emit(asm.Ja.Label(g.exitLbl))
	case "print":
		if m, ok := e.Args[0].(*ast.MapRef); ok && m.Keys == nil {
			if len(e.Args) == 1 {
				g.event(object.EventPrint, g.c.mapIndex[m.Name], e.Pos())
				return
			}
			// {kind, map, top, div}
			rec := g.alloc(object.EventHeaderSize+16, e.Pos())
			g.emit(
				stImm(g.fp, rec, int64(object.EventPrint)),
				stImm(g.fp, rec+8, int64(g.c.mapIndex[m.Name])),
				stImm(g.fp, rec+16, int64(g.info.Consts[e.Args[1]].Int)),
				stImm(g.fp, rec+24, 0),
			)
			if len(e.Args) == 3 {
				g.emit(stImm(g.fp, rec+24, int64(g.info.Consts[e.Args[2]].Int)))
			}
			g.output(rec, object.EventHeaderSize+16)
			return
		}
		g.printValue(e.Args[0], e.Pos())
	case "clear":
		g.event(object.EventClear, g.c.mapIndex[e.Args[0].(*ast.MapRef).Name], e.Pos())
	case "zero":
		g.event(object.EventZero, g.c.mapIndex[e.Args[0].(*ast.MapRef).Name], e.Pos())
	case "time":
		format := "%H:%M:%S\n"
		if len(e.Args) == 1 {
			format = e.Args[0].(*ast.StrLit).Value
		}
		g.event(object.EventTime, g.c.addTime(format), e.Pos())
	case "delete":
		m := e.Args[0].(*ast.MapRef)
		keys := m.Keys
		if len(e.Args) == 2 {
			keys = []ast.Expr{e.Args[1]}
			if t, ok := e.Args[1].(*ast.Tuple); ok {
				keys = t.Elems
			}
		}
		key, mi := g.mapKey(m.Name, keys, m.Pos())
		g.mapPtr(asm.R1, mi)
		g.emit(
			asm.Mov.Reg(asm.R2, g.fp),
			asm.Add.Imm(asm.R2, int32(key)),
			asm.FnMapDeleteElem.Call(),
		)
		// true when an element was deleted
		notFound := g.newLabel("delmiss")
		g.emit(asm.JNE.Imm(asm.R0, 0, notFound), asm.Mov.Imm(asm.R0, 1), asm.Ja.Label(notFound+"_end"))
		g.mark(notFound)
		g.emit(asm.Mov.Imm(asm.R0, 0))
		g.mark(notFound + "_end")
		g.emit(asm.Mov.Reg(asm.R0, asm.R0))
	case "has_key":
		m := e.Args[0].(*ast.MapRef)
		keys := []ast.Expr{e.Args[1]}
		if t, ok := e.Args[1].(*ast.Tuple); ok {
			keys = t.Elems
		}
		key, mi := g.mapKey(m.Name, keys, m.Pos())
		g.lookup(mi, key)
		g.boolify()
	case "str":
		g.buffer(e)
	case "reg":
		g.loadReg(e.Args[0].(*ast.StrLit).Value, e.Pos())
	case "errorf":
		g.printf(object.EventErrorf, e.Args[0].(*ast.StrLit).Value, e.Args[1:], e)
	case "warnf":
		g.printf(object.EventWarnf, e.Args[0].(*ast.StrLit).Value, e.Args[1:], e)
	case "system":
		g.printf(object.EventSystem, e.Args[0].(*ast.StrLit).Value, e.Args[1:], e.Pos())
	case "cat":
		g.printf(object.EventCat, e.Args[0].(*ast.StrLit).Value, e.Args[1:], e.Pos())
	case "signal":
		g.scalar(e.Args[0])
		g.emit(asm.Mov.Reg(asm.R1, asm.R0), asm.FnSendSignal.Call())
	case "strlen":
		g.strlen(e)
	case "strncmp":
		g.strncmp(e)
	case "bswap":
		g.scalar(e.Args[0])
		size := g.info.TypeOf(e).Size
		if size > 1 {
			g.emit(asm.HostTo(asm.BE, asm.R0, map[int]asm.Size{2: asm.Half, 4: asm.Word, 8: asm.DWord}[size]))
		}
	case "kstack":
		g.kstack()
	case "usym", "ustack":
		g.buffer(e)
	case "uaddr":
		g.loadImm(asm.R0, int64(g.info.Consts[e].Int))
	case "strerror", "syscall_name", "signal_name", "cgroup_path":
		g.scalar(e.Args[0])
	case "join":
		g.join(e)
	case "macaddr":
		g.macaddr(e)
	case "buf", "pton", "str_concat":
		g.buffer(e)
	case "len":
		g.mapLen(e.Args[0].(*ast.MapRef))
	case "find":
		g.find(e)
	case "memcmp":
		g.memcmp(e)
	case "strcontains", "strstr":
		g.strstr(e)
	case "cgroupid":
		g.loadImm(asm.R0, int64(g.info.Consts[e].Int))
	case "override":
		g.scalar(e.Args[0])
		g.emit(asm.Mov.Reg(asm.R2, asm.R0), asm.Mov.Reg(asm.R1, rCtx), asm.FnOverrideReturn.Call())
	case "path":
		g.buffer(e)
	case "ntop":
		g.ntop(e)
	case "strftime":
		g.scalar(e.Args[1])
	case "ksym", "kptr", "uptr":
		g.scalar(e.Args[0])
	default:
		if len(e.Args) == 0 {
			// pid() and friends
			g.builtinScalar(&ast.Ident{Span: e.Span, Name: e.Name})
			return
		}
		g.fail(e.Pos(), fmt.Errorf("%s() not supported by the code generator", e.Name))
	}
}

// output sends size bytes at off to the ring buffer, counting drops.
func (g *gen) output(off int16, size int) {
	ok := g.newLabel("sent")
	g.emit(
		asm.LoadMapPtr(asm.R1, 0).WithReference(eventsMapName),
		asm.Mov.Reg(asm.R2, g.fp),
		asm.Add.Imm(asm.R2, int32(off)),
		asm.Mov.Imm(asm.R3, int32(size)),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
		asm.JEq.Imm(asm.R0, 0, ok),
	)
	// Lost event: bump the per-CPU drop counter.
	g.bumpCounter(droppedMapName, 0, ok)
	g.mark(ok)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

// bumpCounter adds one to element index of a per-CPU uint64 array; a
// failed lookup jumps to skip.
func (g *gen) bumpCounter(mapName string, index int, skip string) {
	key := g.alloc(8, ast.Pos{})
	g.emit(
		stImm(g.fp, key, int64(index)),
		asm.LoadMapPtr(asm.R1, 0).WithReference(mapName),
		asm.Mov.Reg(asm.R2, g.fp),
		asm.Add.Imm(asm.R2, int32(key)),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, skip),
		asm.Mov.Imm(asm.R1, 1),
		asm.StoreXAdd(asm.R0, asm.R1, asm.DWord),
	)
}

// event sends a header-only event.
func (g *gen) event(kind object.EventKind, id int, pos ast.Pos) {
	hdr := g.alloc(object.EventHeaderSize, pos)
	g.emit(
		stImm(g.fp, hdr, int64(kind)),
		stImm(g.fp, hdr+8, int64(id)),
	)
	g.output(hdr, object.EventHeaderSize)
}

// argType is the type an argument has inside an event record.
func argType(t *types.Type) *types.Type {
	switch {
	case t.Kind == types.Bool:
		return types.BoolT
	case t.Kind == types.Int:
		return types.NewInt(8, t.Signed)
	case t.Kind == types.Pointer:
		return types.Uint64
	case t.Kind == types.String:
		return types.NewString(roundUp(t.Size, 8))
	}
	return t
}

// printf builds a record {kind, id, args...} on the stack and sends it;
// at is the call (its span, for errorf and warnf) or its position.
func (g *gen) printf(kind object.EventKind, format string, args []ast.Expr, at ast.Spanned) {
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
		p.Args = append(p.Args, object.Arg{Type: at, Offset: off})
		off += slotSize(at)
	}
	p.Size = off
	id := g.c.addPrintf(p)
	rec := g.alloc(p.Size, pos)
	g.emit(
		stImm(g.fp, rec, int64(kind)),
		stImm(g.fp, rec+8, int64(id)),
	)
	for i, a := range args {
		dst := rec + int16(p.Args[i].Offset)
		if p.Args[i].Type.IsBuffer() {
			g.copyInto(dst, p.Args[i].Type.Size, a)
			continue
		}
		g.scalar(a)
		g.emit(asm.StoreMem(g.fp, dst, asm.R0, asm.DWord))
	}
	g.output(rec, p.Size)
}

// printValue implements print(v) for a non-map value.
func (g *gen) printValue(v ast.Expr, pos ast.Pos) {
	g.printf(object.EventPrintValue, "", []ast.Expr{v}, pos)
}

// aggregate implements @m[k] = count()/sum()/... on a per-CPU map: one
// lookup, then an in-place update of this CPU's slot; the first event for a
// key inserts it.
func (g *gen) aggregate(m *ast.MapRef, call *ast.Call, t *types.Type) {
	mi := g.mapInfo(m.Name)
	// Evaluate the argument first: it may call helpers.
	var arg int16
	if len(call.Args) > 0 {
		g.scalar(call.Args[0])
		arg = g.spill(call.Pos())
	}
	key, _ := g.mapKey(m.Name, m.Keys, m.Pos())
	if t.Kind == types.Tseries {
		g.tseries(mi, key, arg, t, m.Pos())
		return
	}
	switch t.Kind {
	case types.Hist:
		g.emit(asm.LoadMem(asm.R1, g.fp, arg, asm.DWord))
		g.log2Bucket()
		g.emit(asm.StoreMem(g.fp, key+bucketOffset(mi), asm.R0, asm.DWord))
	case types.Lhist:
		g.emit(asm.LoadMem(asm.R1, g.fp, arg, asm.DWord))
		g.linearBucket(mi.Value)
		g.emit(asm.StoreMem(g.fp, key+bucketOffset(mi), asm.R0, asm.DWord))
	}
	g.lookup(mi, key)
	g.emit(asm.Mov.Reg(rPtr, asm.R0))
	missing, end := g.newLabel("aggnew"), g.newLabel("aggend")
	g.emit(asm.JEq.Imm(rPtr, 0, missing))
	// Existing key: update this CPU's value in place.
	switch t.Kind {
	case types.Count, types.Hist, types.Lhist:
		g.emit(
			asm.LoadMem(asm.R1, rPtr, 0, asm.DWord),
			asm.Add.Imm(asm.R1, 1),
			asm.StoreMem(rPtr, 0, asm.R1, asm.DWord),
		)
	case types.Sum:
		g.emit(
			asm.LoadMem(asm.R1, rPtr, 0, asm.DWord),
			asm.LoadMem(asm.R2, g.fp, arg, asm.DWord),
			asm.Add.Reg(asm.R1, asm.R2),
			asm.StoreMem(rPtr, 0, asm.R1, asm.DWord),
		)
	case types.Avg, types.Stats:
		g.emit(
			asm.LoadMem(asm.R1, rPtr, 0, asm.DWord),
			asm.LoadMem(asm.R2, g.fp, arg, asm.DWord),
			asm.Add.Reg(asm.R1, asm.R2),
			asm.StoreMem(rPtr, 0, asm.R1, asm.DWord),
			asm.LoadMem(asm.R1, rPtr, 8, asm.DWord),
			asm.Add.Imm(asm.R1, 1),
			asm.StoreMem(rPtr, 8, asm.R1, asm.DWord),
		)
	case types.Min, types.Max:
		set := g.newLabel("minmaxset")
		better := asm.JSLT
		if t.Kind == types.Max {
			better = asm.JSGT
		}
		g.emit(
			asm.LoadMem(asm.R2, g.fp, arg, asm.DWord),
			asm.LoadMem(asm.R1, rPtr, 8, asm.DWord),
			asm.JEq.Imm(asm.R1, 0, set),
			asm.LoadMem(asm.R1, rPtr, 0, asm.DWord),
			better.Reg(asm.R2, asm.R1, set),
			asm.Ja.Label(end),
		)
		g.mark(set)
		g.emit(
			asm.StoreMem(rPtr, 0, asm.R2, asm.DWord),
			stImm(rPtr, 8, 1),
		)
	}
	g.emit(asm.Ja.Label(end))
	// New key: insert this CPU's first value.
	g.mark(missing)
	val := g.alloc(16, m.Pos())
	switch t.Kind {
	case types.Count, types.Hist, types.Lhist:
		g.emit(stImm(g.fp, val, 1))
	case types.Sum:
		g.emit(asm.LoadMem(asm.R1, g.fp, arg, asm.DWord), asm.StoreMem(g.fp, val, asm.R1, asm.DWord))
	case types.Avg, types.Stats, types.Min, types.Max:
		g.emit(
			asm.LoadMem(asm.R1, g.fp, arg, asm.DWord),
			asm.StoreMem(g.fp, val, asm.R1, asm.DWord),
			stImm(g.fp, val+8, 1),
		)
	}
	g.update(mi, key, val)
	g.mark(end)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

// log2Bucket computes the hist bucket of the signed value in R1 into R0:
// 0 for negative values, 1 for 0, and 2+floor(log2(v)) otherwise.
func (g *gen) log2Bucket() {
	done, pos := g.newLabel("log2done"), g.newLabel("log2pos")
	g.emit(
		asm.Mov.Imm(asm.R0, 0),
		asm.JSLT.Imm(asm.R1, 0, done),
		asm.Mov.Imm(asm.R0, 1),
		asm.JEq.Imm(asm.R1, 0, done),
		asm.Mov.Imm(asm.R0, 2),
		asm.Ja.Label(pos),
	)
	g.mark(pos)
	for _, shift := range []int32{32, 16, 8, 4, 2, 1} {
		skip := g.newLabel("log2")
		g.emit(
			asm.Mov.Reg(asm.R2, asm.R1),
			asm.RSh.Imm(asm.R2, shift),
			asm.JEq.Imm(asm.R2, 0, skip),
			asm.Mov.Reg(asm.R1, asm.R2),
			asm.Add.Imm(asm.R0, shift),
		)
		g.mark(skip)
	}
	g.mark(done)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
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
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

// strlen counts the bytes before the NUL of a string buffer, unrolled over
// the buffer.
func (g *gen) strlen(e *ast.Call) {
	off := g.buffer(e.Args[0])
	size := g.info.TypeOf(e.Args[0]).Size
	done := g.newLabel("strlen")
	g.emit(asm.Mov.Imm(asm.R0, 0))
	for i := 0; i < size; i++ {
		g.emit(
			asm.LoadMem(asm.R1, g.fp, off+int16(i), asm.Byte),
			asm.JEq.Imm(asm.R1, 0, done),
			asm.Mov.Imm(asm.R0, int32(i+1)),
		)
	}
	g.mark(done)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

// strncmp compares at most n bytes of two strings: 0 when equal.
func (g *gen) strncmp(e *ast.Call) {
	a := g.buffer(e.Args[0])
	b := g.buffer(e.Args[1])
	n := int(g.info.Consts[e.Args[2]].Int)
	n = min(n, g.info.TypeOf(e.Args[0]).Size, g.info.TypeOf(e.Args[1]).Size)
	if n == 0 {
		g.emit(asm.Mov.Imm(asm.R0, 0)) // no bytes to compare: equal
		return
	}
	eq, ne, end := g.newLabel("streq"), g.newLabel("strne"), g.newLabel("strcmpend")
	for i := 0; i < n; i++ {
		g.emit(
			asm.LoadMem(asm.R1, g.fp, a+int16(i), asm.Byte),
			asm.LoadMem(asm.R2, g.fp, b+int16(i), asm.Byte),
			asm.JNE.Reg(asm.R1, asm.R2, ne),
			asm.JEq.Imm(asm.R1, 0, eq),
		)
	}
	g.emit(asm.Ja.Label(eq))
	g.mark(ne)
	g.emit(asm.Mov.Imm(asm.R0, 1), asm.Ja.Label(end))
	g.mark(eq)
	g.emit(asm.Mov.Imm(asm.R0, 0))
	g.mark(end)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

// join reads up to lang.MaxJoinArgs strings from a char *[] and sends
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
	for i := 0; i < lang.MaxJoinArgs; i++ {
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
	tmp := g.alloc(8, e.Pos())
	count := g.alloc(8, e.Pos())
	done, sent := g.newLabel("joindone"), g.newLabel("joinsent")
	g.emit(
		stImm(g.fp, count, 0),
		asm.LoadMapPtr(asm.R1, 0).WithReference(eventsMapName),
		asm.Mov.Imm(asm.R2, int32(p.Size)),
		asm.Mov.Imm(asm.R3, 0),
		asm.FnRingbufReserve.Call(),
		asm.Mov.Reg(rPtr, asm.R0),
		asm.JEq.Imm(rPtr, 0, sent),
		stImm(rPtr, 0, int64(object.EventJoin)),
		stImm(rPtr, 8, int64(id)),
	)
	for i := 0; i < lang.MaxJoinArgs; i++ {
		g.emit(
			// the i-th pointer
			asm.Mov.Reg(asm.R1, g.fp),
			asm.Add.Imm(asm.R1, int32(tmp)),
			asm.Mov.Imm(asm.R2, 8),
			asm.LoadMem(asm.R3, g.fp, argv, asm.DWord),
			asm.Add.Imm(asm.R3, int32(8*i)),
			readPtr.Call(),
			asm.LoadMem(asm.R3, g.fp, tmp, asm.DWord),
			asm.JEq.Imm(asm.R3, 0, done),
			// its string, straight into the event
			asm.Mov.Reg(asm.R1, rPtr),
			asm.Add.Imm(asm.R1, int32(p.Args[i].Offset)),
			asm.Mov.Imm(asm.R2, int32(size)),
			readStr.Call(),
			stImm(g.fp, count, int64(i+1)),
		)
	}
	g.mark(done)
	g.emit(
		asm.LoadMem(asm.R1, g.fp, count, asm.DWord),
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
	g.copyMem(g.fp, off, asm.R0, 0, slotSize(t))
	g.emit(asm.Mov.Imm(asm.R0, 1))
	g.mark(missing)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

// memcmp compares count bytes: 0 when equal, else the difference of the
// first differing bytes.
func (g *gen) memcmp(e *ast.Call) {
	a := g.buffer(e.Args[0])
	b := g.buffer(e.Args[1])
	n := int(g.info.Consts[e.Args[2]].Int)
	end := g.newLabel("memcmpend")
	g.emit(asm.Mov.Imm(asm.R0, 0))
	for i := 0; i < n; i++ {
		g.emit(
			asm.LoadMem(asm.R1, g.fp, a+int16(i), asm.Byte),
			asm.LoadMem(asm.R2, g.fp, b+int16(i), asm.Byte),
			asm.Mov.Reg(asm.R0, asm.R1),
			asm.Sub.Reg(asm.R0, asm.R2),
			asm.JNE.Imm(asm.R0, 0, end),
		)
	}
	g.mark(end)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

// strstr finds needle in haystack, unrolled over both buffers: the index
// of the first occurrence or -1; strcontains turns it into a bool.
func (g *gen) strstr(e *ast.Call) {
	h := g.buffer(e.Args[0])
	nd := g.buffer(e.Args[1])
	hs, ns := g.info.TypeOf(e.Args[0]).Size, g.info.TypeOf(e.Args[1]).Size
	found, end := g.newLabel("strfound"), g.newLabel("strstrend")
	for i := 0; i < hs; i++ {
		next := g.newLabel("strnext")
		for j := 0; j < ns && i+j <= hs; j++ {
			g.emit(asm.LoadMem(asm.R2, g.fp, nd+int16(j), asm.Byte))
			g.emit(asm.Mov.Imm(asm.R0, int32(i)), asm.JEq.Imm(asm.R2, 0, found))
			if i+j == hs {
				break
			}
			g.emit(
				asm.LoadMem(asm.R1, g.fp, h+int16(i+j), asm.Byte),
				asm.JNE.Reg(asm.R1, asm.R2, next),
			)
		}
		g.mark(next)
		// the haystack ends here: no later match
		g.emit(asm.LoadMem(asm.R1, g.fp, h+int16(i), asm.Byte), asm.JEq.Imm(asm.R1, 0, end))
	}
	g.mark(end)
	g.emit(asm.Mov.Imm(asm.R0, -1), asm.Ja.Label(found+"_out"))
	g.mark(found)
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
	g.mark(found + "_out")
	if e.Name == "strcontains" {
		t := g.newLabel("contains")
		g.emit(asm.JSGE.Imm(asm.R0, 0, t), asm.Mov.Imm(asm.R0, 0), asm.Ja.Label(t+"_end"))
		g.mark(t)
		g.emit(asm.Mov.Imm(asm.R0, 1))
		g.mark(t + "_end")
	}
	g.emit(asm.Mov.Reg(asm.R0, asm.R0))
}

// tseries records n in the interval the current TAI time falls in: the
// bucket epoch % num_intervals of this CPU's slots {value, meta, epoch},
// reset when it holds an older epoch, then aggregated (sum, min/max, avg)
// or overwritten (with the time in meta, so user space keeps the latest).
// bpf_ktime_get_tai_ns needs Linux 6.1.
func (g *gen) tseries(mi *object.Map, key, arg int16, t *types.Type, pos ast.Pos) {
	now := g.alloc(8, pos)
	epoch := g.alloc(8, pos)
	g.emit(asm.FnKtimeGetTaiNs.Call(), asm.StoreMem(g.fp, now, asm.R0, asm.DWord))
	g.loadImm(asm.R1, t.LStep)
	g.emit(asm.Div.Reg(asm.R0, asm.R1), asm.StoreMem(g.fp, epoch, asm.R0, asm.DWord))
	g.loadImm(asm.R1, int64(t.Len))
	g.emit(asm.Mod.Reg(asm.R0, asm.R1), asm.StoreMem(g.fp, key+bucketOffset(mi), asm.R0, asm.DWord))
	val := g.alloc(24, pos)
	g.zero(val, 24)
	g.lookup(mi, key)
	isNew := g.alloc(8, pos)
	found, ready := g.newLabel("tsfound"), g.newLabel("tsready")
	g.emit(
		stImm(g.fp, isNew, 0),
		asm.Mov.Reg(rPtr, asm.R0),
		asm.JNE.Imm(rPtr, 0, found),
		stImm(g.fp, isNew, 1),
		asm.Mov.Reg(rPtr, g.fp),
		asm.Add.Imm(rPtr, int32(val)),
	)
	g.mark(found)
	g.emit(
		// a slot of an older interval starts over
		asm.LoadMem(asm.R1, rPtr, 16, asm.DWord),
		asm.LoadMem(asm.R2, g.fp, epoch, asm.DWord),
		asm.JEq.Reg(asm.R1, asm.R2, ready),
		stImm(rPtr, 0, 0),
		stImm(rPtr, 8, 0),
	)
	g.mark(ready)
	g.emit(asm.LoadMem(asm.R2, g.fp, arg, asm.DWord))
	switch t.Name {
	case "sum":
		g.emit(asm.LoadMem(asm.R1, rPtr, 0, asm.DWord), asm.Add.Reg(asm.R1, asm.R2), asm.StoreMem(rPtr, 0, asm.R1, asm.DWord))
	case "avg":
		g.emit(
			asm.LoadMem(asm.R1, rPtr, 0, asm.DWord), asm.Add.Reg(asm.R1, asm.R2), asm.StoreMem(rPtr, 0, asm.R1, asm.DWord),
			asm.LoadMem(asm.R1, rPtr, 8, asm.DWord), asm.Add.Imm(asm.R1, 1), asm.StoreMem(rPtr, 8, asm.R1, asm.DWord),
		)
	case "min", "max":
		set, done := g.newLabel("tsset"), g.newLabel("tsdone")
		better := asm.JSLT
		if t.Name == "max" {
			better = asm.JSGT
		}
		if !t.Signed {
			better = map[string]asm.JumpOp{"min": asm.JLT, "max": asm.JGT}[t.Name]
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
			asm.LoadMem(asm.R1, g.fp, now, asm.DWord),
			asm.StoreMem(rPtr, 8, asm.R1, asm.DWord),
		)
	}
	skip := g.newLabel("tsend")
	g.emit(
		asm.LoadMem(asm.R1, g.fp, epoch, asm.DWord),
		asm.StoreMem(rPtr, 16, asm.R1, asm.DWord),
		asm.LoadMem(asm.R1, g.fp, isNew, asm.DWord),
		asm.JEq.Imm(asm.R1, 0, skip),
	)
	g.update(mi, key, val)
	g.mark(skip)
	g.emit(asm.Mov.Imm(asm.R0, 0))
}
