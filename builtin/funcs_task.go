package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
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
