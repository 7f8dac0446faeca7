package check

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
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
// checks its keys; it returns the map's type. write is the statement that
// stores vt (nil for a read), where a value type mismatch is reported.
func (c *checker) mapUse(m *ast.MapRef, vt *types.Type, write srcpos.Spanned) *MapType {
	var keys, own []*types.Type
	for _, k := range m.Keys {
		kt := c.expr(k)
		if kt == nil {
			return nil
		}
		switch {
		case kt.IsInt(), kt.Kind == types.String:
			own = append(own, c.ownType(k, kt))
			kt = keyType(kt)
		case kt.Kind == types.Struct, kt.Kind == types.Array:
			if kt = c.valueType(k, kt); kt == nil {
				return nil
			}
			own = append(own, kt)
		case kt.Kind == types.Pointer, kt.Kind == types.Ksym, kt.Kind == types.Tuple, kt.Kind == types.Record, kt.Kind == types.Stack,
			kt.Kind == types.Errno, kt.Kind == types.SyscallName, kt.Kind == types.Inet, kt.Kind == types.Timestamp, kt.Kind == types.MacAddr,
			kt.Kind == types.Username, kt.Kind == types.SignalName, kt.Kind == types.CgroupPath, kt.Kind == types.Usym, kt.Kind == types.Buf:
			own = append(own, c.ownType(k, kt))
		default:
			c.errorf(k, "%s cannot be used as a map key", kt)
			return nil
		}
		if kt.Kind == types.Tuple && kt.Size == 0 {
			c.errorf(k, "an empty tuple cannot be a map key")
			return nil
		}
		if types.HasDWARFStack(kt) {
			c.errorf(k, "dw_ustack cannot be used in a map key: gotrace unwinds it in user space when it is printed, so equal stacks would not be one key; print it (print, printf) or store it as a map value")
			return nil
		}
		keys = append(keys, kt)
	}
	if vt != nil && write != nil && vt.Kind == types.Tuple && vt.Size == 0 {
		c.errorf(m, "an empty tuple cannot be stored in a map")
		return nil
	}
	if m.Keys == nil {
		keys, own = nil, nil
	}
	// @m[$t] with a tuple $t is the same map as @m[a, b]: a multi-key map
	// is keyed by the tuple of its keys.
	if len(keys) == 1 && keys[0].Kind == types.Tuple && len(keys[0].Fields) > 1 {
		if mt := c.prog.Maps[m.Name]; mt == nil || mt.Keys == nil || len(mt.Keys) != 1 || mt.Keys[0].Kind != types.Tuple {
			elems := make([]*types.Type, len(keys[0].Fields))
			owns := make([]*types.Type, len(keys[0].Fields))
			for i, f := range keys[0].Fields {
				elems[i] = keyType(f.Type)
				owns[i] = f.Type
				if own[0].Kind == types.Tuple && len(own[0].Fields) == len(owns) {
					owns[i] = own[0].Fields[i].Type
				}
			}
			keys, own = elems, owns
		}
	}
	mt := c.prog.Maps[m.Name]
	if mt == nil {
		mt = &MapType{Name: m.Name, Keys: keys, Pos: m.Pos(), keysSet: true, ownKeys: own}
		c.prog.Maps[m.Name] = mt
	} else if !mt.keysSet {
		// declared with let @m = ...: the first use fixes the keys
		mt.Keys, mt.keysSet, mt.ownKeys = keys, true, own
	} else {
		if (mt.Keys == nil) != (keys == nil) {
			if keys == nil {
				c.errorf(m, "%s used as a map without an explicit key (scalar map), previously used with an explicit key (non-scalar map)", m.Name)
			} else {
				c.errorf(m, "%s used as a map with an explicit key (non-scalar map), previously used without an explicit key (scalar map)", m.Name)
			}
			return nil
		}
		mismatch := func(pos srcpos.Spanned) {
			c.errorf(pos, "Argument mismatch for %s: trying to access with arguments: '%s' when map expects arguments: '%s'", m.Name, keysString(own), keysString(mt.ownKeys))
		}
		if len(mt.Keys) != len(keys) {
			mismatch(m)
			return nil
		}
		for i := range keys {
			u, ok := unify(mt.Keys[i], keys[i])
			if !ok {
				var pos srcpos.Spanned = m
				if len(m.Keys) == len(keys) {
					pos = m.Keys[i]
				} else if len(m.Keys) == 1 {
					pos = m.Keys[0] // a tuple standing for all the keys
				}
				mismatch(pos)
				return nil
			}
			mt.Keys[i] = u
		}
		mt.ownKeys = promoteKeys(mt.ownKeys, own)
	}
	if vt != nil && write != nil {
		if mt.Value == nil {
			mt.Value = vt
		} else {
			u, ok := unify(mt.Value, vt)
			if !ok && !(vt.IsAggregation() && mt.Value.Kind == vt.Kind && mt.Value.Kind != types.Lhist && mt.Value.Kind != types.Hist && mt.Value.Kind != types.Tseries) {
				c.errorf(write, "Type mismatch for %s: trying to assign value of type '%s' when map already has a type '%s'", m.Name, vt, mt.Value)
				return mt
			}
			if ok {
				mt.Value = u
			}
			if vt.IsAggregation() && vt.Kind == mt.Value.Kind && vt.Signed && !mt.Value.Signed {
				// an aggregation given signed and unsigned values is
				// signed, as in bpftrace 0.27
				st := *mt.Value
				st.Signed = true
				mt.Value = &st
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
	kt = types.Storage(kt)
	if kt.Kind == types.Bool {
		kt = &types.Type{Kind: types.Bool, Size: 8} // printed true/false, stored as a word
	}
	return kt
}

// keysString is bpftrace's spelling of a map's key type in errors: the
// type of its one key, or the tuple of its keys.
func keysString(keys []*types.Type) string {
	if len(keys) == 1 {
		return keys[0].String()
	}
	return types.NewTuple(keys, nil).String()
}

// promoteKeys promotes the own types of a map's keys (the types bpftrace
// gives them, before storage widens them) with those of another access.
func promoteKeys(old, keys []*types.Type) []*types.Type {
	if len(old) != len(keys) {
		return old
	}
	out := make([]*types.Type, len(old))
	for i, o := range old {
		out[i] = o
		switch {
		case o.Kind == types.Int && keys[i].Kind == types.Int:
			out[i] = promoteInt(o, keys[i])
		default:
			if u, ok := unify(o, keys[i]); ok {
				out[i] = u
			}
		}
	}
	return out
}
