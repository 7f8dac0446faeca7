package codegen

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
)

// Syscall tracepoints served by the raw tracepoints sys_enter and sys_exit
// (Options.SyscallRawTp; the design is in provider/syscalls.go).
//
// Each probe block on syscall tracepoints stays a program of its own (a
// raw_tp program whose context is {regs, id or ret}); it is placed in the
// BPF_MAP_TYPE_PROG_ARRAY of its layer at the numbers of its syscalls. A
// dispatcher per direction, attached to the raw tracepoint, skips compat
// syscalls and numbers out of range and tail-calls layer 0, 1, ... in turn
// (a tail call into an empty slot falls through to the next layer); each
// block, when it ends, tail-calls the layers after its own, so the blocks on
// one syscall run in script order as the programs on one perf event do.

// tsCompat is TS_COMPAT, the bit of x86's thread_info.status that marks
// a compat (32-bit) syscall in progress; ftrace ignores those.
const tsCompat = 0x0002

// syscallPlan is the layer of each block served through the dispatchers.
//
// A wildcard block that uses probe (but not args) is one instance per
// syscall after checking; when probe is only a map key or a printf
// argument, the instances differ only in that string, so one program, the
// instance with the longest name (its string type fits every name), serves
// them all and reads the name from the names map at the syscall number.
type syscallPlan struct {
	layer  map[*check.Probe]int
	layers map[string]int // direction → number of layers
	// shared maps each instance served by another's program to it; rep
	// maps a serving instance to the points of all the instances it serves.
	shared map[*check.Probe]*check.Probe
	rep    map[*check.Probe][]*provider.Point
}

// Names maps: per direction, an array indexed by syscall number whose
// value is the probe name "tracepoint:syscalls:sys_enter_NAME", zero-padded.
func syscallNamesMap(dir string) string { return "names_" + dir }

// syscallMapName names the prog array of one direction's layer.
func syscallMapName(dir string, layer int) string {
	if dir == provider.SysEnter {
		return fmt.Sprintf("sysenter%d", layer)
	}
	return fmt.Sprintf("sysexit%d", layer)
}

// features are the provider features for compiling p. The syscall path
// is refused to blocks that read the tracepoint record itself (ctx) or
// its common_* fields, which exist only in the perf-event record.
func (c *compiler) features(p *check.Probe) provider.Features {
	f := c.opts.Features
	f.SyscallRawTp = f.SyscallRawTp && syscallSafe(p)
	if p.Shaped {
		// args are typed by trampoline slots: not through kprobe_multi.
		f.KprobeMulti = false
	}
	return f
}

func syscallSafe(p *check.Probe) bool {
	ok := true
	ast.Inspect(p.AST, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if v := builtin.VarOf(n); v != nil && v.IsCtx {
				ok = false
			}
		case *ast.Field:
			if isArgs(n.X) && len(n.Name) > 7 && n.Name[:7] == "common_" {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// planSyscalls assigns the layers of the blocks served by the dispatchers.
func (c *compiler) planSyscalls() {
	c.sys = syscallPlan{layer: map[*check.Probe]int{}, layers: map[string]int{},
		shared: map[*check.Probe]*check.Probe{}, rep: map[*check.Probe][]*provider.Point{}}
	if !c.opts.SyscallRawTp {
		return
	}
	// Groups: consecutive instances of one script probe that can share a
	// program, or single instances.
	var groups [][]*check.Probe
	for i, p := range c.prog.Probes {
		dir := p.Def().Dispatcher(p.Points)
		if dir == "" || !c.features(p).SyscallRawTp {
			continue
		}
		if n := len(groups); n > 0 && i > 0 {
			last := groups[n-1]
			prev := last[len(last)-1]
			if prev == c.prog.Probes[i-1] && prev.Index == p.Index && provider.SyscallDirection(prev.Points) == dir && shareable(p) {
				groups[n-1] = append(last, p)
				continue
			}
		}
		groups = append(groups, []*check.Probe{p})
	}
	next := map[string]map[int]int{} // direction → nr → first free layer
	for _, g := range groups {
		dir := provider.SyscallDirection(g[0].Points)
		if next[dir] == nil {
			next[dir] = map[int]int{}
		}
		layer := 0
		var nrs []int
		rep := g[0]
		var pts []*provider.Point
		for _, p := range g {
			if len(p.Points[0].Name) > len(rep.Points[0].Name) {
				rep = p
			}
			pts = append(pts, p.Points...)
			for _, pt := range p.Points {
				if _, nr, ok := provider.SyscallTarget(pt.Category, pt.Event); ok {
					nrs = append(nrs, nr)
					layer = max(layer, next[dir][nr])
				}
			}
		}
		for _, nr := range nrs {
			next[dir][nr] = layer + 1
		}
		for _, p := range g {
			c.sys.layer[p] = layer
			if len(g) > 1 && p != rep {
				c.sys.shared[p] = rep
			}
		}
		if len(g) > 1 {
			c.sys.rep[rep] = pts
		}
		c.sys.layers[dir] = max(c.sys.layers[dir], layer+1)
	}
}

// shareable reports whether the instances of p's script probe may share
// one program: args is not used (its type differs by syscall), and probe
// is only a map key or a printf argument (elsewhere the checker may have
// folded it into a per-instance constant).
func shareable(p *check.Probe) bool {
	uses, allowed := 0, 0
	isProbe := func(e ast.Expr) bool {
		v := builtin.VarOf(e)
		return v != nil && v.PerPoint == builtin.PointName
	}
	ok := true
	ast.Inspect(p.AST, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			switch v := builtin.VarOf(n); {
			case v == nil:
			case v.PerPoint == builtin.PointType || v.IsCtx:
				ok = false
			case v.PerPoint == builtin.PointName:
				uses++
			}
		case *ast.MapRef:
			for _, k := range n.Keys {
				if isProbe(k) {
					allowed++
				}
			}
		case *ast.Call:
			if f := builtin.LookupFunc(n.Name); f != nil && f.FormatArgs && len(n.Args) > 0 {
				for _, a := range n.Args[1:] {
					if isProbe(a) {
						allowed++
					}
				}
			}
		}
		return ok
	})
	return ok && uses == allowed
}

// skipSyscall reports whether p's program is another instance's (the
// instance needs no code of its own).
func (c *compiler) skipSyscall(p *check.Probe) bool { return c.sys.shared[p] != nil }

// syscallBody makes g's program a block run by the dispatcher of dir: it
// names the block's prog array and, when the block ends, tail-calls the
// later layers.
func (c *compiler) syscallBody(g *gen, p *check.Probe, probe *object.Probe) {
	dir := provider.SyscallDirection(p.Points)
	layer := c.sys.layer[p]
	probe.Dispatch = syscallMapName(dir, layer)
	g.sysDir = dir
	if pts, ok := c.sys.rep[p]; ok {
		probe.Name = pts[0].Name
		probe.Targets = nil
		for _, pt := range pts {
			probe.Targets = append(probe.Targets, provider.TracepointTarget{Category: pt.Category, Event: pt.Event})
		}
		probe.Group.Size = len(probe.Targets)
		g.sysNames = true
	}
	n := c.sys.layers[dir]
	if layer+1 >= n {
		return
	}
	g.epilogue = func() {
		slot := g.allocScalar(p.AST.Pos())
		g.syscallNr(asm.R0, slot)
		g.emit(g.stx(slot, asm.R0, asm.DWord))
		for l := layer + 1; l < n; l++ {
			g.emit(
				asm.Mov.Reg(asm.R1, rCtx),
				asm.LoadMapPtr(asm.R2, 0).WithReference(syscallMapName(dir, l)),
				g.ldx(asm.R3, slot, asm.DWord),
				asm.FnTailCall.Call(),
			)
		}
	}
}

// syscallProbeName evaluates probe, in a program shared by the instances
// of a wildcard, from the names map at the syscall number into a stack
// buffer of its type's size, and returns its offset.
func (g *gen) syscallProbeName(e ast.Expr) (int16, bool) {
	if v := builtin.VarOf(e); v == nil || v.PerPoint != builtin.PointName || !g.sysNames {
		return 0, false
	}
	g.c.useSyscallNames(g.sysDir)
	size := roundUp(g.info.TypeOf(e).Size, 8)
	off := g.alloc(size, e.Pos())
	key := g.allocScalar(e.Pos())
	g.syscallNr(asm.R0, key)
	null := g.newLabel("noname")
	done := g.newLabel("name")
	g.emit(g.stx(key, asm.R0, asm.Word))
	g.lookupRef(syscallNamesMap(g.sysDir), key)
	g.emit(asm.JEq.Imm(asm.R0, 0, null))
	g.copyMem(g.base(off), off, asm.R0, 0, size)
	g.emit(asm.Ja.Label(done))
	g.mark(null)
	g.zero(off, size)
	g.mark(done)
	g.emit(asm.Mov.Imm(asm.R0, 0))
	return off, true
}

// useSyscallNames makes sure the names map of dir exists: every syscall
// tracepoint name of the direction at its number.
func (c *compiler) useSyscallNames(dir string) {
	name := syscallNamesMap(dir)
	if _, ok := c.out.Collection.Maps[name]; ok {
		return
	}
	names := provider.SyscallNames()
	size := 0
	for _, n := range names {
		size = max(size, len("tracepoint:syscalls:"+dir+"_"+n)+1)
	}
	size = roundUp(size, 8)
	spec := &ebpf.MapSpec{
		Name:       name,
		Type:       ebpf.Array,
		KeySize:    4,
		ValueSize:  uint32(size),
		MaxEntries: uint32(provider.MaxSyscallNr() + 1),
	}
	for nr, n := range names {
		if n == "" {
			continue
		}
		v := make([]byte, size)
		copy(v, "tracepoint:syscalls:"+dir+"_"+n)
		spec.Contents = append(spec.Contents, ebpf.MapKV{Key: uint32(nr), Value: v})
	}
	c.out.Collection.Maps[name] = spec
}

// syscallNr leaves the syscall number in dst: the raw tracepoint's id on
// entry, regs->orig_ax on exit (what the kernel's syscall_get_nr reads).
// slot is a stack slot it may use.
func (g *gen) syscallNr(dst asm.Register, slot int16) {
	if g.sysDir == provider.SysEnter {
		g.emit(asm.LoadMem(dst, rCtx, 8, asm.DWord))
		return
	}
	g.readReg(slot, "orig_ax", srcpos.Pos{})
	g.emit(g.ldx(dst, slot, asm.DWord))
}

// readReg reads the pt_regs member reg of the syscall into the stack slot.
func (g *gen) readReg(slot int16, reg string, pos srcpos.Pos) {
	off, err := g.c.regOffset(reg)
	if err != nil {
		g.fail(pos, err)
		return
	}
	g.emit(
		asm.LoadMem(asm.R3, rCtx, 0, asm.DWord),
		asm.Add.Imm(asm.R3, int32(off)),
		asm.Mov.Reg(asm.R1, g.base(slot)),
		asm.Add.Imm(asm.R1, int32(slot)),
		asm.Mov.Imm(asm.R2, 8),
		asm.FnProbeReadKernel.Call(),
	)
}

// syscallArg loads args.FIELD of a syscall tracepoint into R0 from the
// raw tracepoint's context: __syscall_nr, ret (the raw tracepoint's
// second argument on exit), or an argument register of the x86-64
// syscall ABI on entry.
func (g *gen) syscallArg(f *types.Field, pos srcpos.Pos) {
	switch {
	case f.Offset == provider.SyscallNrOffset:
		g.syscallNr(asm.R0, g.allocScalar(pos))
	case f.Offset == provider.SyscallRetOffset && g.sysDir == provider.SysExit:
		g.emit(asm.LoadMem(asm.R0, rCtx, 8, asm.DWord))
	default:
		reg, ok := provider.SyscallArgReg(f.Offset)
		if !ok || g.sysDir != provider.SysEnter {
			g.fail(pos, fmt.Errorf("field %s of a syscall tracepoint at offset %d is not a syscall argument", f.Name, f.Offset))
			return
		}
		slot := g.allocScalar(pos)
		g.readReg(slot, reg, pos)
		g.emit(g.ldx(asm.R0, slot, asm.DWord))
	}
	size := f.Type.Size
	if f.Type.Kind != types.Int {
		size = 8
	}
	if f.Type.Kind == types.Int {
		g.extend(asm.R0, size, f.Type.Signed)
	}
}

// emitDispatchers adds the prog arrays and the dispatcher program of each
// direction that has blocks.
func (c *compiler) emitDispatchers() {
	for _, dir := range []string{provider.SysEnter, provider.SysExit} {
		n := c.sys.layers[dir]
		if n == 0 {
			continue
		}
		for l := range n {
			name := syscallMapName(dir, l)
			c.out.Collection.Maps[name] = &ebpf.MapSpec{
				Name:       name,
				Type:       ebpf.ProgramArray,
				KeySize:    4,
				ValueSize:  4,
				MaxEntries: uint32(provider.MaxSyscallNr() + 1),
			}
		}
		name := "dispatch_" + dir
		c.out.Collection.Programs[name] = &ebpf.ProgramSpec{
			Name:         name,
			Type:         ebpf.RawTracepoint,
			Instructions: named(c.dispatcher(dir, n), name),
			License:      "GPL",
		}
		c.out.Probes = append(c.out.Probes, &object.Probe{
			Provider:   "tracepoint",
			Name:       "tracepoint:raw_syscalls:" + dir,
			Program:    name,
			Targets:    []object.Target{provider.FuncTarget{Func: dir}},
			Dispatcher: true,
		})
	}
}

// dispatcher emits the program attached to the raw tracepoint dir.
func (c *compiler) dispatcher(dir string, layers int) asm.Instructions {
	g := &gen{c: c, aliases: map[string]string{}, fp: asm.RFP, sysDir: dir}
	out := g.newLabel("out")
	g.source = asm.Comment("syscall dispatcher on raw tracepoint " + dir)
	g.emit(asm.Mov.Reg(rCtx, asm.R1))
	slot := g.alloc(8, srcpos.Pos{})
	if off, ok := c.threadStatusOffset(); ok {
		// Compat syscalls have no tracepoint events (ftrace skips them).
		g.emit(
			stImm(asm.RFP, slot, 0),
			asm.FnGetCurrentTask.Call(),
			asm.Mov.Reg(asm.R3, asm.R0),
			asm.Add.Imm(asm.R3, int32(off)),
			asm.Mov.Reg(asm.R1, asm.RFP),
			asm.Add.Imm(asm.R1, int32(slot)),
			asm.Mov.Imm(asm.R2, 4),
			asm.FnProbeReadKernel.Call(),
			asm.LoadMem(asm.R0, asm.RFP, slot, asm.Word),
			asm.JSet.Imm(asm.R0, tsCompat, out),
		)
	}
	g.syscallNr(asm.R7, slot)
	g.emit(asm.JGE.Imm(asm.R7, int32(provider.MaxSyscallNr()+1), out))
	for l := range layers {
		g.emit(
			asm.Mov.Reg(asm.R1, rCtx),
			asm.LoadMapPtr(asm.R2, 0).WithReference(syscallMapName(dir, l)),
			asm.Mov.Reg(asm.R3, asm.R7),
			asm.FnTailCall.Call(),
		)
	}
	g.mark(out)
	g.emit(asm.Mov.Imm(asm.R0, 0), asm.Return())
	return g.insns
}

// threadStatusOffset returns the offset of thread_info.status in
// task_struct (x86, CONFIG_THREAD_INFO_IN_TASK), from BTF. Without BTF, or
// on a kernel without the field, the compat check is left out: compat
// syscalls then reach the blocks, which read their arguments with the
// 64-bit ABI (only 32-bit processes make them).
func (c *compiler) threadStatusOffset() (int, bool) {
	if c.opts.ThreadStatusOffset > 0 {
		return c.opts.ThreadStatusOffset, true
	}
	if c.opts.BTF == nil {
		return 0, false
	}
	var task *btf.Struct
	if c.opts.BTF.TypeByName("task_struct", &task) != nil {
		return 0, false
	}
	for _, m := range task.Members {
		if m.Name != "thread_info" {
			continue
		}
		ti, ok := btf.UnderlyingType(m.Type).(*btf.Struct)
		if !ok {
			return 0, false
		}
		for _, tm := range ti.Members {
			if tm.Name == "status" {
				return int(m.Offset/8 + tm.Offset/8), true
			}
		}
	}
	return 0, false
}
