package builtin

import (
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

func checkOverride(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 1) || c.IntArg(e, 0) == nil {
		return nil
	}
	if !c.Provider().Override {
		c.Errorf(e, "override() is only available in kprobe probes (it needs bpf_override_return and CONFIG_BPF_KPROBE_OVERRIDE)")
		return nil
	}
	return types.VoidT
}

// checkCgroupPath types cgroup_path(id[, filter]): the id is resolved to
// paths in user space when printed; filter is a wildcard over hierarchy
// names ("unified" for cgroup v2).
func checkCgroupPath(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 2) || c.IntArg(e, 0) == nil {
		return nil
	}
	t := &types.Type{Kind: types.CgroupPath, Size: 8, CgroupFilter: "*"}
	if len(e.Args) == 2 {
		lit, ok := e.Args[1].(*ast.StrLit)
		if !ok {
			c.Errorf(e.Args[1], "cgroup_path() filter must be a string literal")
			return nil
		}
		c.Expr(lit)
		t.CgroupFilter = lit.Value
	}
	return t
}

// Registers names reg() accepts, as members of x86-64 struct pt_regs, with
// bpftrace's spellings: orig_rax (bpftrace 0.26's name of orig_ax) and pc
// (bpftrace's alias of ip, after 0.26).
var regNames = map[string]bool{
	"r15": true, "r14": true, "r13": true, "r12": true, "bp": true, "bx": true,
	"r11": true, "r10": true, "r9": true, "r8": true, "ax": true, "cx": true,
	"dx": true, "si": true, "di": true, "orig_ax": true, "orig_rax": true, "ip": true, "pc": true, "cs": true,
	"flags": true, "sp": true, "ss": true,
}

// signalNumbers are the signals signal() accepts by name.
var signalNumbers = map[string]int{
	"SIGHUP": 1, "SIGINT": 2, "SIGQUIT": 3, "SIGILL": 4, "SIGTRAP": 5, "SIGABRT": 6,
	"SIGBUS": 7, "SIGFPE": 8, "SIGKILL": 9, "SIGUSR1": 10, "SIGSEGV": 11, "SIGUSR2": 12,
	"SIGPIPE": 13, "SIGALRM": 14, "SIGTERM": 15, "SIGCHLD": 17, "SIGCONT": 18,
	"SIGSTOP": 19, "SIGTSTP": 20, "SIGTTIN": 21, "SIGTTOU": 22, "SIGURG": 23,
	"SIGXCPU": 24, "SIGXFSZ": 25, "SIGVTALRM": 26, "SIGPROF": 27, "SIGWINCH": 28,
	"SIGIO": 29, "SIGPWR": 30, "SIGSYS": 31,
}

func checkReg(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 1) {
		return nil
	}
	if !c.Provider().Ctx.ArgsInRegs() {
		c.Errorf(e, "reg() is only available in %s probes",
			provider.Names(func(p *provider.Provider) bool { return p.Ctx.ArgsInRegs() }))
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.Errorf(e.Args[0], "reg() needs a register name such as \"di\" or \"ip\"")
		return nil
	}
	if !regNames[lit.Value] {
		c.Errorf(e, "'%s' is not a valid register on this architecture (x86_64)", lit.Value)
		return nil
	}
	c.Expr(lit)
	return types.Uint64
}

func checkSignal(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 1) {
		return nil
	}
	if lit, ok := e.Args[0].(*ast.StrLit); ok {
		name := lit.Value
		if !strings.HasPrefix(name, "SIG") {
			name = "SIG" + name
		}
		n, ok := signalNumbers[name]
		if !ok {
			c.Errorf(lit, "unknown signal %q", lit.Value)
			return nil
		}
		c.Expr(lit)
		c.SetConst(lit, Const{Int: uint64(n)})
		return types.VoidT
	}
	if c.IntArg(e, 0) == nil {
		return nil
	}
	return types.VoidT
}
