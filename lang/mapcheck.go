package lang

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// mapDecl records `let @m = hash(n);`: the BPF map kind and size.
func (c *checker) mapDecl(d *ast.MapDecl) {
	switch d.Kind {
	case "hash", "lruhash", "percpuhash", "percpulruhash":
	default:
		c.errorf(d, "unknown map kind %s (want hash, lruhash, percpuhash or percpulruhash)", d.Kind)
		return
	}
	if len(d.Args) != 1 {
		c.errorf(d, "%s() takes one argument: the maximum number of entries", d.Kind)
		return
	}
	n, ok := d.Args[0].(*ast.IntLit)
	if !ok || n.Value == 0 || n.Value > 1<<24 {
		c.errorf(d.Args[0], "%s() needs a positive constant number of entries", d.Kind)
		return
	}
	if _, dup := c.prog.Maps[d.Name]; dup {
		c.errorf(d, "map %s is declared twice", d.Name)
		return
	}
	c.prog.Maps[d.Name] = &MapType{Name: d.Name, Pos: d.Pos(), Decl: d.Kind, MaxEntries: int(n.Value)}
}

// mapUse records a use of a map with value type vt (nil when only read) and
// checks its keys; it returns the map's type.
func (c *checker) mapUse(m *ast.MapRef, vt *types.Type, write bool) *MapType {
	var keys []*types.Type
	for _, k := range m.Keys {
		kt := c.expr(k)
		if kt == nil {
			return nil
		}
		switch {
		case kt.IsInt(), kt.Kind == types.String:
			kt = keyType(kt)
		case kt.Kind == types.Struct, kt.Kind == types.Array:
			if kt = c.valueType(k, kt); kt == nil {
				return nil
			}
		case kt.Kind == types.Pointer, kt.Kind == types.Ksym, kt.Kind == types.Tuple, kt.Kind == types.Record, kt.Kind == types.Stack,
			kt.Kind == types.Errno, kt.Kind == types.SyscallName, kt.Kind == types.Inet, kt.Kind == types.Timestamp, kt.Kind == types.MacAddr,
			kt.Kind == types.Username, kt.Kind == types.SignalName, kt.Kind == types.CgroupPath, kt.Kind == types.Usym, kt.Kind == types.Buf:
		default:
			c.errorf(k, "%s cannot be used as a map key", kt)
			return nil
		}
		keys = append(keys, kt)
	}
	if m.Keys == nil {
		keys = nil
	}
	// @m[$t] with a tuple $t is the same map as @m[a, b]: a multi-key map
	// is keyed by the tuple of its keys.
	if len(keys) == 1 && keys[0].Kind == types.Tuple {
		if mt := c.prog.Maps[m.Name]; mt == nil || mt.Keys == nil || len(mt.Keys) != 1 || mt.Keys[0].Kind != types.Tuple {
			elems := make([]*types.Type, len(keys[0].Fields))
			for i, f := range keys[0].Fields {
				elems[i] = keyType(f.Type)
			}
			keys = elems
		}
	}
	mt := c.prog.Maps[m.Name]
	if mt == nil {
		mt = &MapType{Name: m.Name, Keys: keys, Pos: m.Pos(), keysSet: true}
		c.prog.Maps[m.Name] = mt
	} else if !mt.keysSet {
		// declared with let @m = ...: the first use fixes the keys
		mt.Keys, mt.keysSet = keys, true
	} else if mt.Keys == nil && keys != nil && mt.Value == nil && !mt.keysSet {
		mt.Keys = keys
		mt.keysSet = true
	} else {
		if len(mt.Keys) != len(keys) {
			c.errorf(m, "map %s is used with %d keys here and %d keys elsewhere", m.Name, len(keys), len(mt.Keys))
			return nil
		}
		for i := range keys {
			u, ok := unify(mt.Keys[i], keys[i])
			if !ok {
				var pos ast.Spanned = m
				if len(m.Keys) == len(keys) {
					pos = m.Keys[i]
				} else if len(m.Keys) == 1 {
					pos = m.Keys[0] // a tuple standing for all the keys
				}
				c.errorf(pos, "map %s key %d has type %s here and %s elsewhere", m.Name, i+1, keys[i], mt.Keys[i])
				return nil
			}
			mt.Keys[i] = u
		}
	}
	if vt != nil && write {
		if mt.Value == nil {
			mt.Value = vt
		} else {
			u, ok := unify(mt.Value, vt)
			if !ok && !(vt.IsAggregation() && mt.Value.Kind == vt.Kind && mt.Value.Kind != types.Lhist && mt.Value.Kind != types.Hist && mt.Value.Kind != types.Tseries) {
				c.errorf(m, "type mismatch for %s: assigning %s to a map holding %s", m.Name, vt, mt.Value)
				return mt
			}
			if ok {
				mt.Value = u
			}
		}
	}
	return mt
}

// keyType is the type of an integer or string map key as stored in the
// key: integers widened to 64 bits, bools stored as a word, strings
// rounded up to 8 bytes.
func keyType(kt *types.Type) *types.Type {
	if !kt.IsInt() && kt.Kind != types.String {
		return kt
	}
	kt = storageType(kt)
	if kt.Kind == types.Bool {
		kt = &types.Type{Kind: types.Bool, Size: 8} // printed true/false, stored as a word
	}
	return kt
}
