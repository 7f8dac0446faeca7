package builtin

import (
	"strings"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// printfLike emits a printf-style call as an event of kind.
func printfLike(kind object.EventKind) func(Emitter, *ast.Call) {
	return func(g Emitter, e *ast.Call) { g.Message(kind, e.Args[0].(*ast.StrLit).Value, e.Args[1:], e) }
}

// scalarArg evaluates argument i: the function's value is the argument's,
// rendered by user space according to the result's kind.
func scalarArg(i int) func(Emitter, *ast.Call) {
	return func(g Emitter, e *ast.Call) { g.Scalar(e.Args[i]) }
}

// oneArg checks that e has exactly one argument and returns its type: nil
// when it has not, or when the argument does not check (the checker has
// reported why).
func oneArg(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 1) {
		return nil
	}
	return c.Expr(e.Args[0])
}

// constValue loads the value the checker computed.
func constValue(g Emitter, e *ast.Call) {
	cv, _ := g.ConstOf(e)
	g.LoadImm(asm.R0, int64(cv.Int))
}

func init() {
	// Output.
	defFuncs(
		&Func{Name: "printf", FormatArgs: true, Check: Checker.CheckPrintf, Emit: printfLike(object.EventPrintf), Result: types.Void,
			Example: `BEGIN { printf("%d %s\n", 1, "a") }`},
		&Func{Name: "errorf", Check: Checker.CheckPrintf, Emit: printfLike(object.EventErrorf), Result: types.Void,
			Example: `BEGIN { errorf("e %d", 1) }`},
		&Func{Name: "warnf", Check: Checker.CheckPrintf, Emit: printfLike(object.EventWarnf), Result: types.Void,
			Example: `BEGIN { warnf("w %d", 1) }`},
		&Func{Name: "system", Unsafe: true, Check: Checker.CheckPrintf, Emit: printfLike(object.EventSystem), Result: types.Void,
			Example: `BEGIN { system("true %d", 1) }`},
		&Func{Name: "cat", Check: Checker.CheckPrintf, Emit: printfLike(object.EventCat), Result: types.Void,
			Example: `BEGIN { cat("/proc/loadavg") }`},
		&Func{Name: "exit", Ends: true, Check: checkExit, Emit: emitExit, Result: types.Void,
			Example: `BEGIN { exit(0) }`},
		&Func{Name: "print", Check: Checker.CheckPrint, Emit: Emitter.Print, Result: types.Void,
			Example: `BEGIN { @a = 1; print(@a); print(2) }`},
		&Func{Name: "time", Check: checkTime, Emit: Emitter.Time, Result: types.Void,
			Example: `BEGIN { time("%H\n") }`},
		&Func{Name: "join", Check: checkJoin, Emit: Emitter.Join, Result: types.Void,
			Example: `tracepoint:syscalls:sys_enter_execve { join(args.argv) }`},
		&Func{Name: "strftime", Check: checkStrftime, Emit: scalarArg(1), Result: types.Timestamp,
			Example: `BEGIN { printf("%s\n", strftime("%Y", nsecs)) }`},
	)

	// Maps.
	defFuncs(
		&Func{Name: "clear", Check: Checker.CheckMapFunc, Result: types.Void,
			Emit:    func(g Emitter, e *ast.Call) { g.MapEvent(object.EventClear, e) },
			Example: `BEGIN { @a[1] = 1; clear(@a) }`},
		&Func{Name: "zero", MapNeedsHash: true, Check: Checker.CheckMapFunc, Result: types.Void,
			Emit:    func(g Emitter, e *ast.Call) { g.MapEvent(object.EventZero, e) },
			Example: `BEGIN { @a[1] = 1; zero(@a) }`},
		&Func{Name: "delete", MapNeedsHash: true, Check: Checker.CheckDelete, Emit: Emitter.Delete, Result: types.Bool,
			Example: `BEGIN { @a[1] = 1; delete(@a, 1) }`},
		&Func{Name: "has_key", MapNeedsHash: true, Check: Checker.CheckHasKey, Emit: Emitter.HasKey, Result: types.Bool,
			Example: `BEGIN { @a[1] = 1; printf("%d\n", has_key(@a, 1)) }`},
		&Func{Name: "len", MapNeedsHash: true, Check: Checker.CheckLen, Emit: Emitter.MapLen, Result: types.Int,
			Example: `BEGIN { @a[1] = 1; printf("%d\n", len(@a)) }`},
		&Func{Name: "find", Check: Checker.CheckFind, Emit: Emitter.Find, Result: types.Bool,
			Example: `BEGIN { @a[1] = 2; $v = 0; if (find(@a, 1, $v)) { printf("%d\n", $v) } }`},
	)

	// Strings and buffers.
	defFuncs(
		&Func{Name: "str", Check: Checker.CheckStr, Buffer: Emitter.Str, Into: Emitter.StrInto, Result: types.String,
			Example: `tracepoint:syscalls:sys_enter_openat { printf("%s\n", str(args.filename)) }`},
		&Func{Name: "strlen", Check: checkStrlen, Emit: Emitter.Strlen, Eval: evalStrlen, Result: types.Int,
			Example: `BEGIN { printf("%d\n", strlen(comm)) }`},
		&Func{Name: "strncmp", Check: checkStrncmp, Emit: Emitter.Strncmp, Eval: evalStrncmp, Result: types.Int,
			Example: `BEGIN { printf("%d\n", strncmp(comm, "gotrace", 3)) }`},
		&Func{Name: "memcmp", Check: checkMemcmp, Emit: emitMemcmp, Result: types.Int,
			Example: `BEGIN { printf("%d\n", memcmp(comm, "gotrace", 3)) }`},
		&Func{Name: "strcontains", Check: checkStrPair(types.BoolT), Result: types.Bool,
			Emit:    func(g Emitter, e *ast.Call) { g.Strstr(e, true) },
			Example: `BEGIN { printf("%d\n", strcontains(comm, "go")) }`},
		&Func{Name: "strstr", Check: checkStrPair(types.Int64), Result: types.Int,
			Emit:    func(g Emitter, e *ast.Call) { g.Strstr(e, false) },
			Example: `BEGIN { printf("%d\n", strstr(comm, "go")) }`},
		&Func{Name: "str_concat", Check: checkStrConcat, Buffer: Emitter.StrConcat, Result: types.String,
			Example: `BEGIN { printf("%s\n", str_concat(comm, "x")) }`},
		&Func{Name: "buf", Check: checkBuf, Buffer: Emitter.Buf, Result: types.Array,
			Example: `tracepoint:syscalls:sys_enter_write { printf("%r\n", buf(args.buf, 4)) }`},
		&Func{Name: "bswap", Check: checkBswap, Eval: evalBswap, Result: types.Int,
			Emit: func(g Emitter, e *ast.Call) {
				g.Scalar(e.Args[0])
				if size := g.TypeOf(e).Size; size > 1 {
					g.Emit(asm.HostTo(asm.BE, asm.R0, map[int]asm.Size{2: asm.Half, 4: asm.Word, 8: asm.DWord}[size]))
				}
			},
			Example: `BEGIN { printf("%x\n", bswap((uint16)1)) }`},
		&Func{Name: "ntop", Check: checkNtop, Result: types.Inet,
			Emit:    func(g Emitter, e *ast.Call) { g.Ntop(e) },
			Buffer:  Emitter.Ntop,
			Example: `BEGIN { printf("%s\n", ntop(0x0100007f)) }`},
		&Func{Name: "pton", Check: checkPton, Result: types.Array,
			Emit:    func(g Emitter, e *ast.Call) { g.Buffer(e) },
			Example: `BEGIN { $a = pton("127.0.0.1"); printf("%d\n", $a[0]) }`},
		&Func{Name: "macaddr", Check: checkMacaddr, Emit: Emitter.Macaddr, Result: types.MacAddr,
			Example: `BEGIN { printf("%s\n", macaddr(comm)) }`},
		&Func{Name: "strerror", Check: intFunc(types.Errno), Emit: scalarArg(0), Result: types.Errno,
			Example: `BEGIN { printf("%s\n", strerror(2)) }`},
		&Func{Name: "syscall_name", Check: intFunc(types.SyscallName), Emit: scalarArg(0), Result: types.SyscallName,
			Example: `BEGIN { printf("%s\n", syscall_name(0)) }`},
		&Func{Name: "signal_name", Check: intFunc(types.SignalName), Emit: scalarArg(0), Result: types.SignalName,
			Example: `BEGIN { printf("%s\n", signal_name(9)) }`},
	)

	// Addresses, symbols and stacks.
	defFuncs(
		&Func{Name: "ksym", Check: checkAddrFunc(types.Ksym, types.Kernel), Emit: scalarArg(0), Result: types.Ksym,
			Example: `kprobe:vfs_read { printf("%s\n", ksym(reg("ip"))) }`},
		&Func{Name: "kptr", Check: checkAddrFunc(types.Pointer, types.Kernel), Emit: scalarArg(0), Result: types.Pointer,
			Example: `BEGIN { printf("%p\n", kptr(1)) }`},
		&Func{Name: "uptr", Check: checkAddrFunc(types.Pointer, types.User), Emit: scalarArg(0), Result: types.Pointer,
			Example: `BEGIN { printf("%p\n", uptr(1)) }`},
		&Func{Name: "kaddr", Check: Checker.CheckKaddr, Result: types.Int,
			Example: `BEGIN { printf("%x\n", kaddr("vfs_read")) }`},
		&Func{Name: "uaddr", Check: Checker.CheckUaddr, Emit: Emitter.Uaddr, Result: types.Pointer,
			Example: `uprobe:libc:malloc { printf("%p\n", uaddr("malloc")) }`},
		&Func{Name: "usym", Check: checkUsym, Result: types.Usym,
			Buffer: func(g Emitter, e *ast.Call) int16 {
				off := g.Alloc(16, e.Pos())
				g.Scalar(e.Args[0])
				g.Emit(asm.StoreMem(g.Base(off), off, asm.R0, asm.DWord))
				EmitPid(g, false, e.Pos())
				g.Emit(asm.StoreMem(g.Base(off+8), off+8, asm.R0, asm.DWord))
				return off
			},
			Example: `uprobe:libc:malloc { printf("%s\n", usym(reg("ip"))) }`},
		&Func{Name: "reg", Check: checkReg, Result: types.Int,
			Emit: func(g Emitter, e *ast.Call) {
				g.LoadReg(e.Args[0].(*ast.StrLit).Value, e.Pos())
			},
			Example: `kprobe:vfs_read { printf("%x\n", reg("ip")) }`},
	)

	// The task and the system.
	defFuncs(
		&Func{Name: "signal", Unsafe: true, Check: checkSignal, Result: types.Void,
			Emit: func(g Emitter, e *ast.Call) {
				g.Scalar(e.Args[0])
				g.Emit(asm.Mov.Reg(asm.R1, asm.R0), asm.FnSendSignal.Call())
			},
			Example: `tracepoint:syscalls:sys_enter_getppid /comm == "nonexistent"/ { signal("SIGUSR1") }`},
		// signal_thread: as signal, to the current thread only
		// (bpf_send_signal_thread, Linux 5.5).
		&Func{Name: "signal_thread", Unsafe: true, Check: checkSignal, Result: types.Void,
			Emit: func(g Emitter, e *ast.Call) {
				g.Scalar(e.Args[0])
				g.Emit(asm.Mov.Reg(asm.R1, asm.R0), asm.FnSendSignalThread.Call())
			},
			Example: `tracepoint:syscalls:sys_enter_getppid /comm == "nonexistent"/ { signal_thread("SIGUSR1") }`},
		// socket_cookie(sk): the socket's cookie, generated on first use
		// (bpf_get_socket_cookie on a struct sock pointer from BTF, as
		// fentry arguments are).
		&Func{Name: "socket_cookie", Result: types.Int,
			Check: func(c Checker, e *ast.Call) *types.Type {
				t := oneArg(c, e)
				if t == nil {
					return nil
				}
				if t.Kind != types.Pointer || t.Elem == nil || strings.TrimPrefix(t.Elem.Name, "struct ") != "sock" {
					c.Errorf(e.Args[0].Pos(), "socket_cookie() needs a struct sock pointer, not %s", t)
					return nil
				}
				return types.Uint64
			},
			Emit: func(g Emitter, e *ast.Call) {
				g.Scalar(e.Args[0])
				g.Emit(asm.Mov.Reg(asm.R1, asm.R0), asm.FnGetSocketCookie.Call())
			},
			Example: `fentry:tcp_rcv_established { @[socket_cookie(args.sk)] = count() }`},
		&Func{Name: "override", Unsafe: true, Check: checkOverride, Result: types.Void,
			Emit: func(g Emitter, e *ast.Call) {
				g.Scalar(e.Args[0])
				g.Emit(asm.Mov.Reg(asm.R2, asm.R0), asm.Mov.Reg(asm.R1, Ctx), asm.FnOverrideReturn.Call())
			},
			Example: `kprobe:__x64_sys_getppid { override(1) }`},
		&Func{Name: "getopt", Check: Checker.CheckGetopt, Result: types.Bool,
			Example: `BEGIN { printf("%d\n", getopt("verbose")) }`},
		&Func{Name: "cgroupid", Check: Checker.CheckCgroupid, Emit: constValue, Result: types.Int,
			Example: `BEGIN { printf("%d\n", cgroupid("/sys/fs/cgroup")) }`},
		&Func{Name: "cgroup_path", Check: checkCgroupPath, Emit: scalarArg(0), Result: types.CgroupPath,
			Example: `BEGIN { printf("%s\n", cgroup_path(cgroup)) }`},
		&Func{Name: "path", Check: Checker.CheckPath, Result: types.String,
			Buffer: func(g Emitter, e *ast.Call) int16 {
				t := g.TypeOf(e)
				off := g.Alloc(t.Size, e.Pos())
				g.Zero(off, t.Size)
				if g.TypeOf(e.Args[0]).Kind == types.Struct {
					g.Addr(e.Args[0]) // a struct path by value: its address
				} else {
					g.Scalar(e.Args[0])
				}
				g.Emit(
					asm.Mov.Reg(asm.R1, asm.R0),
					asm.Mov.Reg(asm.R2, g.Base(off)),
					asm.Add.Imm(asm.R2, int32(off)),
					asm.Mov.Imm(asm.R3, int32(t.Size)),
					asm.FnDPath.Call(),
				)
				return off
			},
			Example: `fentry:vfs_open { printf("%s\n", path(args.path)) }`},
	)

	// Aggregations: the map assignment emits them.
	defFuncs(
		&Func{Name: "count", Agg: true, Check: aggCheck(types.Count, 0), Result: types.Count,
			Example: `BEGIN { @c = count() }`},
		&Func{Name: "sum", Agg: true, Check: aggCheck(types.Sum, 1), Result: types.Sum,
			Example: `BEGIN { @s = sum(2) }`},
		&Func{Name: "avg", Agg: true, Check: aggCheck(types.Avg, 1), Result: types.Avg,
			Example: `BEGIN { @s = avg(2) }`},
		&Func{Name: "min", Agg: true, Check: aggCheck(types.Min, 1), Result: types.Min,
			Example: `BEGIN { @s = min(2) }`},
		&Func{Name: "max", Agg: true, Check: aggCheck(types.Max, 1), Result: types.Max,
			Example: `BEGIN { @s = max(2) }`},
		&Func{Name: "stats", Agg: true, Check: aggCheck(types.Stats, 1), Result: types.Stats,
			Example: `BEGIN { @s = stats(2) }`},
		&Func{Name: "hist", Agg: true, Check: checkHist, Result: types.Hist,
			Example: `BEGIN { @h = hist(2) }`},
		&Func{Name: "lhist", Agg: true, Check: checkLhist, Result: types.Lhist,
			Example: `BEGIN { @h = lhist(2, 0, 10, 1) }`},
		&Func{Name: "tseries", Agg: true, Check: checkTseries, Result: types.Tseries,
			Example: `BEGIN { @t = tseries(2, 1s, 5) }`},
	)
}

// intFunc types a function of one integer whose value user space renders
// according to k (strerror, syscall_name).
func intFunc(k types.Kind) func(Checker, *ast.Call) *types.Type {
	return func(c Checker, e *ast.Call) *types.Type {
		if !c.WantArgs(e, 1, 1) || c.IntArg(e, 0) == nil {
			return nil
		}
		return &types.Type{Kind: k, Size: 8}
	}
}
