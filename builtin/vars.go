package builtin

import (
	"fmt"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// MaxStackFrames is the deepest stack kstack and ustack record.
const MaxStackFrames = 127

func fixed(t *types.Type) func(Checker) (*types.Type, string) {
	return func(Checker) (*types.Type, string) { return t, "" }
}

// helperVar is a variable whose value one helper call returns, then ops
// adjust.
func helperVar(fn asm.BuiltinFunc, ops ...asm.Instruction) func(Emitter, *ast.Ident) {
	return func(g Emitter, _ *ast.Ident) {
		g.Emit(append([]asm.Instruction{fn.Call()}, ops...)...)
	}
}

// emitPid and emitTid load the current process and thread id, in the
// tracer's PID namespace (Emitter.PidNS) as bpftrace does.
func emitPid(g Emitter, e *ast.Ident) { EmitPid(g, false, pos(e)) }
func emitTid(g Emitter, e *ast.Ident) { emitNsID(g, false, pos(e), true) }

func pos(e *ast.Ident) srcpos.Pos {
	if e == nil {
		return srcpos.Pos{}
	}
	return e.Pos()
}

// EmitPid loads the current process id into R0: in the initial PID
// namespace when init is set or the tracer runs in it, else in the
// tracer's namespace (bpf_get_ns_current_pid_tgid, Linux 5.7).
func EmitPid(g Emitter, init bool, at srcpos.Pos) { emitNsID(g, init, at, false) }

// emitNsID loads the current process id (thread id when tid is set).
func emitNsID(g Emitter, init bool, at srcpos.Pos, tid bool) {
	ns := g.PidNS()
	if init || ns == (PidNS{}) {
		if tid {
			g.Emit(asm.FnGetCurrentPidTgid.Call(), asm.Mov.Reg32(asm.R0, asm.R0))
		} else {
			g.Emit(asm.FnGetCurrentPidTgid.Call(), asm.RSh.Imm(asm.R0, 32))
		}
		return
	}
	// struct bpf_pidns_info { u32 pid; u32 tgid; }: pid is the thread.
	off := g.AllocScalar(at)
	g.Emit(stImm(g.Base(off), off, 0))
	g.LoadImm(asm.R1, int64(ns.Dev))
	g.LoadImm(asm.R2, int64(ns.Ino))
	g.Emit(
		asm.Mov.Reg(asm.R3, g.Base(off)),
		asm.Add.Imm(asm.R3, int32(off)),
		asm.Mov.Imm(asm.R4, 8),
		asm.FnGetNsCurrentPidTgid.Call(),
	)
	field := off + 4
	if tid {
		field = off
	}
	g.Emit(asm.LoadMem(asm.R0, g.Base(field), field, asm.Word))
}

// Comm is the comm variable (codegen builds it in place into larger
// buffers).
var Comm = &Var{
	Name: "comm", Type: fixed(types.NewString(16)), Result: types.String,
	Buffer: func(g Emitter, e *ast.Ident) int16 {
		off := g.Alloc(16, e.Pos())
		g.Comm(off)
		return off
	},
	Example: `BEGIN { printf("%s\n", comm) }`,
}

func init() {
	defVars(
		&Var{Name: "pid", Type: fixed(types.Uint32), Result: types.Int,
			Emit:    emitPid,
			Example: `BEGIN { printf("%d\n", pid) }`},
		&Var{Name: "cpid", Result: types.Int,
			Type: func(c Checker) (*types.Type, string) {
				if c.Cpid() == 0 {
					// 0, as in bpftrace 0.26
					return types.Uint32, "No child command (`-c`); cpid is zero"
				}
				return types.Uint32, ""
			},
			Const: func(c Checker, _ *types.Type) (Const, bool) { return Const{Int: uint64(c.Cpid())}, true },
			// Needs -c: the table test gives a child pid.
			Example: `BEGIN { printf("%d\n", cpid) }`},
		// has_cpid says whether there is a child command (-c), so that
		// scripts can test it before using cpid (bpftrace 0.26 stdlib's
		// documentation: "true iff cpid is available").
		&Var{Name: "has_cpid", Type: fixed(types.BoolT), Result: types.Bool,
			Const: func(c Checker, _ *types.Type) (Const, bool) {
				return boolConst(c.Cpid() != 0), true
			},
			Example: `BEGIN { printf("%d\n", has_cpid()) }`},
		&Var{Name: "tid", Type: fixed(types.Uint32), Result: types.Int,
			Emit:    emitTid,
			Example: `BEGIN { printf("%d\n", tid) }`},
		&Var{Name: "uid", Type: fixed(types.Uint32), Result: types.Int,
			Emit:    helperVar(asm.FnGetCurrentUidGid, asm.Mov.Reg32(asm.R0, asm.R0)),
			Example: `BEGIN { printf("%d\n", uid) }`},
		&Var{Name: "gid", Type: fixed(types.Uint32), Result: types.Int,
			Emit:    helperVar(asm.FnGetCurrentUidGid, asm.RSh.Imm(asm.R0, 32)),
			Example: `BEGIN { printf("%d\n", gid) }`},
		&Var{Name: "nsecs", Type: fixed(types.Uint64), Result: types.Int,
			Emit:    helperVar(asm.FnKtimeGetNs),
			Example: `BEGIN { printf("%d\n", nsecs) }`},
		&Var{Name: "elapsed", Type: fixed(types.Uint64), Result: types.Int,
			Emit:    func(g Emitter, e *ast.Ident) { g.Elapsed(e) },
			Example: `BEGIN { printf("%d\n", elapsed) }`},
		&Var{Name: "cpu", Type: fixed(types.Uint32), Result: types.Int,
			Emit:    helperVar(asm.FnGetSmpProcessorId),
			Example: `BEGIN { printf("%d\n", cpu) }`},
		&Var{Name: "cgroup", Type: fixed(types.Uint64), Result: types.Int,
			Emit:    helperVar(asm.FnGetCurrentCgroupId),
			Example: `BEGIN { printf("%d\n", cgroup) }`},
		&Var{Name: "rand", Type: fixed(types.Uint32), Result: types.Int,
			Emit:    helperVar(asm.FnGetPrandomU32),
			Example: `BEGIN { printf("%d\n", rand) }`},
		Comm,
		&Var{Name: "probe", Result: types.String, PerPoint: PointName,
			Type: func(c Checker) (*types.Type, string) {
				return types.NewString(len(c.Points()[0].Name) + 1), ""
			},
			Const:   func(c Checker, _ *types.Type) (Const, bool) { return Const{IsStr: true, Str: c.Points()[0].Name}, true },
			Example: `BEGIN { printf("%s\n", probe) }`},
		&Var{Name: "args", Result: types.Record, PerPoint: PointType, Fields: true,
			Type:    func(c Checker) (*types.Type, string) { return c.ArgsType() },
			Example: `tracepoint:syscalls:sys_enter_getppid { printf("%d\n", args.__syscall_nr) }`},
		&Var{Name: "jiffies", Type: fixed(types.Uint64), Result: types.Int,
			Emit:    helperVar(asm.FnJiffies64),
			Example: `BEGIN { printf("%d\n", jiffies) }`},
		&Var{Name: "ctx", Result: types.Pointer, IsCtx: true,
			Type: func(c Checker) (*types.Type, string) {
				if !c.Provider().Ctx.Available() {
					return nil, fmt.Sprintf("ctx is not available in %s probes", c.Points()[0].Provider)
				}
				if t := c.CtxType(); t != nil {
					return t, ""
				}
				return &types.Type{Kind: types.Pointer, Size: 8, Elem: types.VoidT, AS: types.Kernel, Name: "ctx"}, ""
			},
			Emit:    func(g Emitter, _ *ast.Ident) { g.Emit(asm.Mov.Reg(asm.R0, Ctx)) },
			Example: `tracepoint:syscalls:sys_enter_getppid { printf("%p\n", ctx) }`},
		&Var{Name: "username", Type: fixed(&types.Type{Kind: types.Username, Size: 8}), Result: types.Username,
			Emit:    helperVar(asm.FnGetCurrentUidGid, asm.Mov.Reg32(asm.R0, asm.R0)),
			Example: `BEGIN { printf("%s\n", username) }`},
		&Var{Name: "probetype", Result: types.String,
			Type: func(c Checker) (*types.Type, string) {
				return types.NewString(len(c.Provider().ProbeType) + 1), ""
			},
			Const: func(c Checker, _ *types.Type) (Const, bool) {
				return Const{IsStr: true, Str: c.Provider().ProbeType}, true
			},
			Example: `BEGIN { printf("%s\n", probetype) }`},
		&Var{Name: "ustack", Result: types.Stack,
			Type: func(c Checker) (*types.Type, string) {
				t := types.NewStack(true, MaxStackFrames)
				t.StackMode = c.StackMode()
				return t, ""
			},
			Buffer:  func(g Emitter, e *ast.Ident) int16 { return g.Ustack(e) },
			Example: `tracepoint:syscalls:sys_enter_getppid { @[ustack] = count() }`},
		&Var{Name: "kstack", Result: types.Stack,
			Type: func(c Checker) (*types.Type, string) {
				t := types.NewStack(false, MaxStackFrames)
				if c.StackMode() == "build_id" {
					// A warning: the type comes with a message.
					t.StackMode = "raw"
					return t, "'build_id' stack mode can only be used for ustack. Falling back to 'raw' mode."
				}
				t.StackMode = c.StackMode()
				return t, ""
			},
			Emit:    func(g Emitter, e *ast.Ident) { g.Kstack(e) },
			Example: `tracepoint:syscalls:sys_enter_getppid { @[kstack] = count() }`},
		&Var{Name: "ppid", Result: types.Int,
			Type: func(c Checker) (*types.Type, string) {
				if err := c.TaskLayoutErr(); err != nil {
					return nil, fmt.Sprintf("ppid needs kernel BTF: %v", err)
				}
				return types.Uint32, ""
			},
			Emit:    func(g Emitter, e *ast.Ident) { g.Ppid(e) },
			Example: `BEGIN { printf("%d\n", ppid) }`},
		&Var{Name: "pcomm", Result: types.String,
			Type: func(c Checker) (*types.Type, string) {
				if err := c.TaskLayoutErr(); err != nil {
					return nil, fmt.Sprintf("pcomm needs kernel BTF: %v", err)
				}
				return types.NewString(16), ""
			},
			// The parent's name: curtask->real_parent->comm.
			Buffer: func(g Emitter, e *ast.Ident) int16 {
				l := g.Task()
				return taskComm(g, e.Pos(), l.RealParent, l.Comm)
			},
			Example: `BEGIN { printf("%s\n", pcomm) }`},
		&Var{Name: "numaid", Type: fixed(types.Uint32), Result: types.Int,
			Emit:    helperVar(asm.FnGetNumaNodeId),
			Example: `BEGIN { printf("%d\n", numaid) }`},
		&Var{Name: "ncpus", Type: fixed(types.Uint64), Result: types.Int,
			Const:   func(c Checker, _ *types.Type) (Const, bool) { return Const{Int: uint64(max(c.NCPUs(), 1))}, true },
			Example: `BEGIN { printf("%d\n", ncpus) }`},
		&Var{Name: "curtask", Result: types.Pointer,
			Type:    func(c Checker) (*types.Type, string) { return c.CurtaskType(), "" },
			Emit:    helperVar(asm.FnGetCurrentTask),
			Example: `BEGIN { printf("%p\n", curtask) }`},
		&Var{Name: "func", Result: types.String,
			Type: func(c Checker) (*types.Type, string) {
				pts := c.Points()
				if !c.Provider().Func {
					return nil, fmt.Sprintf("func is not available in %s probes", pts[0].Provider)
				}
				if len(pts) == 1 && !c.FuncsGrouped() {
					return types.NewString(len(pts[0].FuncName()) + 1), ""
				}
				if p := pts[0].Provider; p == "uprobe" || p == "uretprobe" {
					// The address and pid, resolved as usym() is.
					return &types.Type{Kind: types.Usym, Size: 16}, ""
				}
				return &types.Type{Kind: types.Ksym, Size: 8}, ""
			},
			Const: func(c Checker, t *types.Type) (Const, bool) {
				if t.Kind != types.String {
					return Const{}, false
				}
				return Const{IsStr: true, Str: c.Points()[0].FuncName()}, true
			},
			Emit: func(g Emitter, _ *ast.Ident) {
				g.Emit(asm.Mov.Reg(asm.R1, Ctx), asm.FnGetFuncIp.Call())
			},
			Buffer: func(g Emitter, e *ast.Ident) int16 {
				off := g.Alloc(16, e.Pos())
				g.Emit(asm.Mov.Reg(asm.R1, Ctx), asm.FnGetFuncIp.Call(), asm.StoreMem(g.Base(off), off, asm.R0, asm.DWord))
				EmitPid(g, false, e.Pos())
				g.Emit(asm.StoreMem(g.Base(off+8), off+8, asm.R0, asm.DWord))
				return off
			},
			Example: `kprobe:vfs_read { printf("%s\n", func) }`},
		&Var{Name: "retval", Result: types.Int, ByProto: true,
			Type:    func(c Checker) (*types.Type, string) { return c.RetvalType() },
			Emit:    func(g Emitter, e *ast.Ident) { g.Retval(e) },
			Example: `kretprobe:vfs_read { printf("%d\n", retval) }`},
	)
	for i := 0; i < provider.MaxArgN; i++ {
		example := fmt.Sprintf(`kprobe:vfs_read { printf("%%d\n", arg%d) }`, i)
		if i >= 6 {
			// Only usdt probes have more than six (the binary is the
			// test one of internal/usdt, relative to this package).
			example = fmt.Sprintf(`usdt:../internal/usdt/testdata/notes:notes:twelve { printf("%%d\n", arg%d) }`, i)
		}
		defVars(&Var{Name: fmt.Sprintf("arg%d", i), Result: types.Int,
			Type:    func(c Checker) (*types.Type, string) { return argN(c, i) },
			Emit:    func(g Emitter, e *ast.Ident) { g.ArgN(i, e.Pos()) },
			Example: example})
	}
}

// argN types the argument i (arg0...arg5, more in usdt probes).
func argN(c Checker, i int) (*types.Type, string) {
	def := c.Provider()
	if !def.ArgN {
		return nil, fmt.Sprintf("argN is only available in kprobe, uprobe and rawtracepoint probes (use args.NAME in %s probes)", c.Points()[0].Provider)
	}
	if i >= def.ArgNCount() {
		return nil, fmt.Sprintf("unknown identifier \"arg%d\"", i)
	}
	if def.ArgNSigned {
		return types.Int64, ""
	}
	return types.Uint64, ""
}
