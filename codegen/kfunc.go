package codegen

import (
	"fmt"
	"math"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// x86-64 struct pt_regs offsets, used when no BTF is given; with BTF the
// offsets are looked up in the kernel's struct pt_regs.
var ptRegsX86 = map[string]int{
	"r15": 0, "r14": 8, "r13": 16, "r12": 24, "bp": 32, "bx": 40, "r11": 48,
	"r10": 56, "r9": 64, "r8": 72, "ax": 80, "cx": 88, "dx": 96, "si": 104,
	"di": 112, "orig_ax": 120, "ip": 128, "cs": 136, "flags": 144, "sp": 152, "ss": 160,
}

// memberOffset finds a member by name, also inside anonymous unions and
// structs (newer kernels keep cs and ss in unions with FRED's fields).
func memberOffset(members []btf.Member, name string) (int, bool) {
	for _, m := range members {
		if m.Name == name {
			return int(m.Offset / 8), true
		}
		if m.Name == "" {
			var inner []btf.Member
			switch t := btf.UnderlyingType(m.Type).(type) {
			case *btf.Union:
				inner = t.Members
			case *btf.Struct:
				inner = t.Members
			}
			if off, ok := memberOffset(inner, name); ok {
				return int(m.Offset/8) + off, true
			}
		}
	}
	return 0, false
}

// argRegs are the x86-64 registers carrying the first six arguments.
var argRegs = []string{"di", "si", "dx", "cx", "r8", "r9"}

// regOffset returns the offset of a register in struct pt_regs.
func (c *compiler) regOffset(name string) (int, error) {
	switch name {
	case "pc":
		name = "ip" // bpftrace's alias on x86-64
	case "orig_rax":
		name = "orig_ax" // bpftrace's name
	}
	if c.opts.BTF != nil {
		var regs *btf.Struct
		if err := c.opts.BTF.TypeByName("pt_regs", &regs); err == nil {
			if off, ok := memberOffset(regs.Members, name); ok {
				return off, nil
			}
			return 0, fmt.Errorf("struct pt_regs has no register %s", name)
		}
	}
	off, ok := ptRegsX86[name]
	if !ok {
		return 0, fmt.Errorf("unknown register %s", name)
	}
	return off, nil
}

// isKprobeCtx reports whether the program's context is struct pt_regs.
func (g *gen) isKprobeCtx() bool { return g.ctx.ArgsInRegs() }

// loadReg loads a pt_regs register into R0.
func (g *gen) loadReg(name string, pos srcpos.Pos) {
	off, err := g.c.regOffset(name)
	if err != nil {
		g.fail(pos, err)
		return
	}
	g.emit(asm.LoadMem(asm.R0, rCtx, int16(off), asm.DWord))
}

// kfuncArg loads argument number i (typed t) into R0.
func (g *gen) kfuncArg(i int, t *types.Type, pos srcpos.Pos) {
	if g.isKprobeCtx() {
		if i >= len(argRegs) {
			g.fail(pos, fmt.Errorf("argument %d is not passed in a register", i))
			return
		}
		g.loadReg(argRegs[i], pos)
	} else if g.tracingMulti {
		// A tracing_multi program's context has no parameters.
		tmp := g.allocScalar(pos)
		g.emit(
			asm.Mov.Reg(asm.R1, rCtx),
			asm.Mov.Imm(asm.R2, int32(i)),
			asm.Mov.Reg(asm.R3, g.base(tmp)),
			asm.Add.Imm(asm.R3, int32(tmp)),
			asm.FnGetFuncArg.Call(),
			g.ldx(asm.R0, tmp, asm.DWord),
		)
	} else {
		g.emit(asm.LoadMem(asm.R0, rCtx, int16(8*i), asm.DWord))
	}
	if t.Kind == types.Int {
		g.extend(asm.R0, t.Size, t.Signed)
	}
}

// retval loads the return value into R0.
func (g *gen) retval(e *ast.Ident) {
	t := g.info.TypeOf(e)
	if g.isKprobeCtx() {
		g.loadReg("ax", e.Pos())
	} else if g.tracingMulti || len(g.probe.Points) > 1 {
		// Several functions (lang/check/shape.go): retval's slot
		// follows each one's arguments, bpf_get_func_ret finds it.
		tmp := g.allocScalar(e.Pos())
		g.emit(
			asm.Mov.Reg(asm.R1, rCtx),
			asm.Mov.Reg(asm.R2, g.base(tmp)),
			asm.Add.Imm(asm.R2, int32(tmp)),
			asm.FnGetFuncRet.Call(),
			g.ldx(asm.R0, tmp, asm.DWord),
		)
	} else {
		pt := g.probe.Points[0]
		n := 0 // the slot after the arguments' slots
		if proto := pt.FuncProto(); proto != nil {
			_, n = provider.ArgSlots(proto)
		}
		g.emit(asm.LoadMem(asm.R0, rCtx, int16(8*n), asm.DWord))
	}
	if t.Kind == types.Int {
		g.extend(asm.R0, t.Size, t.Signed)
	}
}

// readKernel reads size bytes from the kernel address in R0 into the stack
// slot at dst; a failed read yields zeros (the helpers clear the
// destination on failure, Linux 5.5+). The padding after a size that is
// not a multiple of 8 is zeroed first, as string comparisons read whole
// words.
func (g *gen) readKernel(dst int16, size int, as types.AddrSpace) {
	g.readKernelOff(dst, size, as, 0)
}

// readKernelOff reads size bytes from the address in R0 plus off, as
// readKernel does.
func (g *gen) readKernelOff(dst int16, size int, as types.AddrSpace, off int64) {
	g.emit(asm.Mov.Reg(asm.R3, asm.R0))
	g.addOff(asm.R3, off)
	if size%8 != 0 {
		g.zero(dst, size)
	}
	fn := asm.FnProbeReadKernel
	switch as {
	case types.User:
		fn = asm.FnProbeReadUser
	case types.NoAS:
		fn = asm.FnProbeRead // either address space (x86)
	}
	g.emit(
		asm.Mov.Reg(asm.R1, g.base(dst)),
		asm.Add.Imm(asm.R1, int32(dst)),
		asm.Mov.Imm(asm.R2, int32(size)),
		fn.Call(),
	)
	g.checkHelper(helperName(fn))
}

// helperName is the name bpftrace's -k warnings give a helper.
func helperName(fn asm.BuiltinFunc) string {
	switch fn {
	case asm.FnProbeRead:
		return "probe_read"
	case asm.FnProbeReadKernel:
		return "probe_read_kernel"
	case asm.FnProbeReadUser:
		return "probe_read_user"
	case asm.FnProbeReadStr:
		return "probe_read_str"
	case asm.FnProbeReadKernelStr:
		return "probe_read_kernel_str"
	case asm.FnProbeReadUserStr:
		return "probe_read_user_str"
	case asm.FnMapUpdateElem:
		return "map_update_elem"
	}
	return fn.String()
}

// loadSized loads a size-byte integer from the stack into R0, extended.
func (g *gen) loadSized(off int16, t *types.Type) {
	size := t.Size
	if t.Kind == types.Pointer || size > 8 {
		size = 8
	}
	sz := map[int]asm.Size{1: asm.Byte, 2: asm.Half, 4: asm.Word, 8: asm.DWord}[size]
	g.emit(g.ldx(asm.R0, off, sz))
	if t.Kind == types.Int {
		g.extend(asm.R0, size, t.Signed)
	}
}

// btfTrusted reports whether x evaluates to a BTF-typed kernel pointer
// (or a struct reached through one) that the verifier lets the program load
// from directly: an argument of a trampoline or BTF raw tracepoint program,
// or a pointer or embedded struct loaded directly from one.
func (g *gen) btfTrusted(x ast.Expr) bool {
	if !g.c.opts.DirectBTFLoads {
		return false
	}
	if !g.ctx.ArgsInSlots() {
		return false
	}
	t := g.info.TypeOf(x)
	if !(t.Kind == types.Pointer && t.Elem != nil && t.Elem.Kind == types.Struct) && t.Kind != types.Struct {
		return false
	}
	switch x := x.(type) {
	case *ast.Paren:
		return g.btfTrusted(x.X)
	case *ast.Field:
		if isArgs(x.X) {
			return t.Kind == types.Pointer
		}
		f := g.info.Members[x]
		return f.BitSize == 0 && g.btfTrusted(x.X)
	}
	return false
}

// memberScalar reads an integer or pointer member through BTF offsets.
func (g *gen) memberScalar(e *ast.Field) {
	f := g.info.Members[e]
	t := g.info.TypeOf(e)
	p := g.memberChain(e)
	if t.Kind == types.Struct || t.Kind == types.Array {
		g.addrInto0(p) // the value of an embedded struct is its address
		return
	}
	size := t.Size
	if t.Kind == types.Pointer {
		size = 8
	}
	if f.BitSize == 0 && g.btfTrusted(e.X) && (size == 1 || size == 2 || size == 4 || size == 8) {
		// The verifier checks this load against BTF; a fault reads as 0.
		// The chain's offset is the load's.
		g.rootInto0(p)
		if p.off > math.MaxInt16 || p.off < math.MinInt16 {
			g.addOff(asm.R0, p.off)
			p.off = 0
		}
		g.emit(asm.LoadMem(asm.R0, asm.R0, int16(p.off), map[int]asm.Size{1: asm.Byte, 2: asm.Half, 4: asm.Word, 8: asm.DWord}[size]))
		if t.Kind == types.Int {
			g.extend(asm.R0, size, t.Signed)
		}
		return
	}
	tmp := g.allocScalar(e.Pos())
	g.readAt(tmp, size, g.info.TypeOf(e.X).AS, p)
	if f.BitSize > 0 {
		g.emit(g.ldx(asm.R0, tmp, map[int]asm.Size{1: asm.Byte, 2: asm.Half, 4: asm.Word, 8: asm.DWord}[size]))
		g.bitfield(f)
		return
	}
	g.loadSized(tmp, t)
}

// bitfield extracts bitfield f from its storage unit, loaded into R0.
func (g *gen) bitfield(f types.Field) {
	if f.BitOffset > 0 {
		g.emit(asm.RSh.Imm(asm.R0, int32(f.BitOffset)))
	}
	if f.BitSize < 64 {
		g.loadImm(asm.R1, int64(uint64(1)<<f.BitSize-1))
		g.emit(asm.And.Reg(asm.R0, asm.R1))
	}
	if f.Type.Signed && f.BitSize < 64 {
		shift := int32(64 - f.BitSize)
		g.emit(asm.LSh.Imm(asm.R0, shift), asm.ArSh.Imm(asm.R0, shift))
	}
}

// memberBuffer reads a char array member into a string buffer.
func (g *gen) memberBuffer(e *ast.Field) int16 {
	t := g.info.TypeOf(e)
	dst := g.alloc(t.Size+1, e.Pos())
	g.readAt(dst, t.Size, g.info.TypeOf(e.X).AS, g.memberChain(e))
	return dst
}

// deref reads *p for a pointer to an integer or pointer, and a uint64 at
// an integer address.
func (g *gen) deref(e *ast.Unary) {
	t := g.info.TypeOf(e)
	g.scalar(e.X)
	if t.Kind == types.Struct {
		return
	}
	as := g.info.TypeOf(e.X).AS
	if g.info.TypeOf(e.X).Kind == types.Int {
		// *ADDRESS: the probe's address space.
		as = types.Kernel
		if g.info.UserArgs {
			as = types.User
		}
	}
	tmp := g.allocScalar(e.Pos())
	g.readKernel(tmp, min(t.Size, 8), as)
	g.loadSized(tmp, t)
}

// addrOf leaves in R0 the address of a variable's stack slot (&$x), or
// of a map (&@m).
func (g *gen) addrOf(e *ast.Unary) {
	x := e.X
	for {
		p, ok := x.(*ast.Paren)
		if !ok {
			break
		}
		x = p.X
	}
	if m, ok := x.(*ast.MapRef); ok {
		// &@m: the map's struct bpf_map
		g.emit(asm.LoadMapPtr(asm.R0, 0).WithReference(g.mapInfo(m.Name).BPFName))
		return
	}
	v, ok := x.(*ast.Var)
	if !ok {
		g.fail(e.Pos(), fmt.Errorf("cannot take the address of this expression"))
		return
	}
	off, _ := g.varSlot(v)
	g.emit(asm.Mov.Reg(asm.R0, g.base(off)), asm.Add.Imm(asm.R0, int32(off)))
}

// derefBuffer reads *p for a pointer to a string, tuple or record into a
// new stack slot.
func (g *gen) derefBuffer(e *ast.Unary) int16 {
	t := g.info.TypeOf(e)
	off := g.alloc(t.Size, e.Pos())
	g.scalar(e.X)
	g.readKernel(off, t.Size, g.info.TypeOf(e.X).AS)
	return off
}
