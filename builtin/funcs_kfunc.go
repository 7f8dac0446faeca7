package builtin

import (
	"slices"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func init() {
	// kfunc_exist("name") is whether the kernel's BTF declares the kfunc
	// name (a function tagged bpf_kfunc), known at compile time (bpftrace
	// 0.26 kfunc.bt).
	defFuncs(&Func{Name: "kfunc_exist", Result: types.Bool, Emit: constValue,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 1, 1) {
				return nil
			}
			lit, ok := e.Args[0].(*ast.StrLit)
			if !ok {
				c.Errorf(e.Args[0].Pos(), "kfunc_exist() accepts a string literal only")
				return nil
			}
			c.Expr(lit)
			spec, err := c.BTF()
			if err != nil || spec == nil {
				c.Errorf(e.Pos(), "kfunc_exist() needs kernel BTF: %v", err)
				return nil
			}
			c.SetConst(e, boolConst(isKfunc(spec, lit.Value)))
			return types.BoolT
		},
		Example: `BEGIN { printf("%d %d\n", kfunc_exist("bpf_task_acquire"), kfunc_exist("no_such_kfunc")) }`},
		// kfunc_allowed("name") is whether the probe's programs may call
		// the kfunc name, known at compile time (bpftrace 0.26 kfunc.bt):
		// the kernel declares it and the programs are
		// BPF_PROG_TYPE_TRACING (fentry, fexit, iter, rawtracepoint), the
		// programs gotrace calls kfuncs from.
		&Func{Name: "kfunc_allowed", Result: types.Bool, Emit: constValue,
			Check: func(c Checker, e *ast.Call) *types.Type {
				if !c.WantArgs(e, 1, 1) {
					return nil
				}
				lit, ok := e.Args[0].(*ast.StrLit)
				if !ok {
					c.Errorf(e.Args[0], "kfunc_allowed() accepts a string literal only")
					return nil
				}
				c.Expr(lit)
				if !c.Provider().Kfuncs {
					c.SetConst(e, boolConst(false))
					return types.BoolT
				}
				spec, err := c.BTF()
				if err != nil || spec == nil {
					c.Errorf(e, "kfunc_allowed() needs kernel BTF: %v", err)
					return nil
				}
				c.SetConst(e, boolConst(isKfunc(spec, lit.Value)))
				return types.BoolT
			},
			Example: `BEGIN { printf("%d\n", kfunc_allowed("bpf_task_from_pid")) }`})
}

// isKfunc reports whether spec has a function name tagged bpf_kfunc.
func isKfunc(spec *btf.Spec, name string) bool {
	var fn *btf.Func
	if err := spec.TypeByName(name, &fn); err != nil {
		return false
	}
	return slices.Contains(fn.Tags, "bpf_kfunc")
}
