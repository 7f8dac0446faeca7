package check

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// addrOf types &$x, the address of a scratch variable x of type t: a
// pointer into the program's stack, kernel memory, that *, [] and
// pointer arithmetic read as any other pointer (bpftrace's address of a
// variable).
func (c *checker) addrOf(e *ast.Unary, t *types.Type) *types.Type {
	x := e.X
	for {
		p, ok := x.(*ast.Paren)
		if !ok {
			break
		}
		x = p.X
	}
	if _, ok := x.(*ast.Var); !ok {
		c.errorf(e, "& takes the address of a variable ($x) only")
		return nil
	}
	return &types.Type{Kind: types.Pointer, Size: 8, Elem: t, AS: types.Kernel}
}

// mapAddr types &@m, the address of map m (bpftrace 0.27): the kernel's
// struct bpf_map, an int8 pointer, for BPF C code and kfuncs that take a
// map. It names the map as a whole: @m[k] is a value, not a map.
func (c *checker) mapAddr(e *ast.Unary, m *ast.MapRef) *types.Type {
	if m.Keys != nil {
		c.errorf(e, "& takes the address of a map (@m) or a variable ($x), not of a map value")
		return nil
	}
	if mt := c.prog.Maps[m.Name]; mt == nil || mt.Value == nil {
		if !c.quiet {
			c.errorf(m, "map %s is never assigned: & needs a map that exists", m.Name)
		}
		return nil
	}
	return &types.Type{Kind: types.Pointer, Size: 8, Elem: types.Int8, AS: types.Kernel}
}

// derefable reports whether *p reads a value of type t that only a
// variable's address (&$x) points to: a string, tuple or record, or an
// 8-byte value such as username.
func derefable(t *types.Type) bool {
	switch t.Kind {
	case types.String, types.Tuple, types.Record, types.Username:
		return true
	}
	return false
}
