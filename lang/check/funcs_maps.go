package check

import (
	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// mapArg checks that argument i names a whole map (no keys) and returns it.
func (c *checker) mapArg(e *ast.Call, i int) *MapType {
	m, ok := e.Args[i].(*ast.MapRef)
	if !ok || m.Keys != nil {
		c.errorf(e.Args[i], "%s() expects a map such as @name", e.Name)
		return nil
	}
	mt := c.prog.Maps[m.Name]
	if mt == nil || mt.Value == nil {
		if !c.quiet {
			c.errorf(m, "undefined map %s", m.Name)
		}
		return nil
	}
	c.info.Types[m] = mt.Value
	return mt
}

// checkPrint types print(@map[, top[, div]]) and print(value).
func checkPrint(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 3) {
		return nil
	}
	if len(e.Args) > 1 {
		if m, ok := e.Args[0].(*ast.MapRef); !ok || m.Keys != nil {
			c.errorf(e.Args[1], "print() takes top and div arguments only for a map")
			return nil
		}
		for i := 1; i < len(e.Args); i++ {
			if v, ok := c.constInt(e, i); !ok {
				return nil
			} else if v < 0 {
				c.errorf(e.Args[i], "print() top and div must not be negative")
				return nil
			}
		}
	}
	if m, ok := e.Args[0].(*ast.MapRef); !ok || m.Keys != nil {
		// print(value): prints one value.
		t := c.expr(e.Args[0])
		if t == nil {
			return nil
		}
		if t.Kind == types.Void {
			c.errorf(e.Args[0], "print() needs a value")
			return nil
		}
		if pt := c.probe.Points[0]; builtin.IsFields(e.Args[0]) && c.probe.Def().ArgsInCtx {
			// bpftrace's refusal: a tracepoint's args record is no value
			// print() takes (a map may still hold it).
			c.errorf(e, "struct %s:%s:%s_args type passed to print() is not printable", pt.Provider, pt.Category, pt.Event)
			return nil
		}
		if isKernelValue(t) {
			// a struct or array is copied and printed with its layout
			if t = c.valueType(e.Args[0], t); t == nil {
				return nil
			}
			c.info.Types[e.Args[0]] = t
		}
		return types.VoidT
	}
	if c.mapArg(e, 0) == nil {
		return nil
	}
	return types.VoidT
}

// checkMapFunc types clear(@map) and zero(@map).
func checkMapFunc(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) || c.mapArg(e, 0) == nil {
		return nil
	}
	return types.VoidT
}

func checkDelete(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) {
		return nil
	}
	m, ok := e.Args[0].(*ast.MapRef)
	if !ok {
		c.errorf(e.Args[0], "delete() expects a map element such as @name[key]")
		return nil
	}
	if len(e.Args) == 2 {
		if m.Keys != nil {
			c.errorf(e.Args[0], "delete(@m, key) takes the map without a key")
			return nil
		}
		if mt := c.prog.Maps[m.Name]; mt != nil && mt.Value != nil && mt.Keys == nil {
			c.errorf(e.Args[0], "call to %s() expects a map with explicit keys (non-scalar map)", e.Name)
			return nil
		}
		keyed := &ast.MapRef{Span: m.Span, Name: m.Name, Keys: []ast.Expr{e.Args[1]}}
		if t, ok := e.Args[1].(*ast.Tuple); ok && len(t.Elems) > 1 {
			keyed.Keys = t.Elems
		}
		c.info.Types[m] = types.VoidT
		return c.deleteKey(keyed)
	}
	return c.deleteKey(m)
}

func (c *checker) deleteKey(m *ast.MapRef) *types.Type {
	if mt := c.mapUse(m, nil, nil); mt == nil {
		return nil
	} else if len(mt.Keys) > 0 && m.Keys == nil {
		c.errorf(m, "delete() of map %s needs a key", m.Name)
		return nil
	}
	c.info.Types[m] = types.VoidT
	return types.BoolT // whether an element was deleted
}

func checkHasKey(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 2, 2) || c.mapWithKey(e) == nil {
		return nil
	}
	return types.BoolT
}

// mapWithKey checks f(@m, key, ...): a whole map and a key for it (a tuple
// of two or more for a multi-key map). It returns the map's type.
func (c *checker) mapWithKey(e *ast.Call) *MapType {
	m, ok := e.Args[0].(*ast.MapRef)
	if !ok || m.Keys != nil {
		c.errorf(e.Args[0], "%s() expects a map such as @name", e.Name)
		return nil
	}
	if mt := c.prog.Maps[m.Name]; mt != nil && mt.Value != nil && mt.Keys == nil {
		c.errorf(e.Args[0], "call to %s() expects a map with explicit keys (non-scalar map)", e.Name)
		return nil
	}
	keyed := &ast.MapRef{Span: m.Span, Name: m.Name, Keys: []ast.Expr{e.Args[1]}}
	if t, ok := e.Args[1].(*ast.Tuple); ok && len(t.Elems) > 1 {
		keyed.Keys = t.Elems
	}
	mt := c.mapUse(keyed, nil, nil)
	if mt != nil {
		c.info.Types[m] = types.VoidT
	}
	return mt
}

// checkLen types len(@map), its number of elements, and len(stack), the
// number of frames of a kstack or ustack.
func checkLen(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	if m, ok := e.Args[0].(*ast.MapRef); !ok || m.Keys != nil {
		// len(stack): its number of frames.
		t := c.expr(e.Args[0])
		if t == nil {
			return nil
		}
		if t.Kind != types.Stack {
			c.errorf(e.Args[0], "call to len() expects a map, ustack, or kstack")
			return nil
		}
		if t.DWARF {
			c.errorf(e.Args[0], "len() of dw_ustack is not supported: its frames are found in user space, when it is printed")
			return nil
		}
		c.prog.StackLens = true
		return types.Int64
	}
	mt := c.mapArg(e, 0)
	if mt == nil {
		return nil
	}
	if mt.keysSet && mt.Keys == nil {
		c.errorf(e.Args[0], "call to len() expects a map with explicit keys (non-scalar map)")
		return nil
	}
	return types.Int64
}

// checkFind types find(@m, key, $var): like has_key, and copies the value
// into $var when found.
func checkFind(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 3, 3) {
		return nil
	}
	mt := c.mapWithKey(e)
	if mt == nil {
		return nil
	}
	if mt.Value == nil || mt.Value.IsAggregation() || mt.Keys == nil {
		c.errorf(e.Args[0], "find() needs a keyed map of plain values")
		return nil
	}
	v, ok := e.Args[2].(*ast.Var)
	if !ok {
		c.errorf(e.Args[2], "find() stores the value in a scratch variable such as $v")
		return nil
	}
	c.assignVar(v, mt.Value, mt.Value, "=", v)
	return types.BoolT
}
