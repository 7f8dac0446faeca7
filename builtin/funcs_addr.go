package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// checkUsym types usym(addr): an address of the current process, printed
// as its function name.
func checkUsym(c Checker, e *ast.Call) *types.Type {
	if addressArg(c, e) == nil {
		return nil
	}
	return &types.Type{Kind: types.Usym, Size: 16}
}

// checkAddrFunc types ksym(addr) (k is Ksym), kptr(p) and uptr(p) (k is
// Pointer, as the address space).
func checkAddrFunc(k types.Kind, as types.AddrSpace) func(Checker, *ast.Call) *types.Type {
	return func(c Checker, e *ast.Call) *types.Type {
		t := addressArg(c, e)
		if t == nil {
			return nil
		}
		if k == types.Ksym {
			return &types.Type{Kind: types.Ksym, Size: 8}
		}
		if t.Kind == types.Pointer {
			return types.WithAS(t, as)
		}
		return &types.Type{Kind: types.Pointer, Size: 8, Elem: types.Uint8, AS: as}
	}
}

// addressArg checks the one argument of ksym(), kptr(), uptr() and usym():
// an integer or a pointer. It returns the argument's type, or nil after an
// error.
func addressArg(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 1) {
		return nil
	}
	t := c.Expr(e.Args[0])
	if t == nil {
		return nil
	}
	if !t.IsInt() && t.Kind != types.Pointer {
		c.Errorf(e.Args[0], "%s() needs an address, not %s", e.Name, t)
		return nil
	}
	return t
}
