package check

import (
	"slices"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

// predeclare enters the maps of Options.Maps (a session's live maps) into
// the program before the script is checked: a use must agree with their
// types, as with a map the script used earlier.
func (c *checker) predeclare() {
	for name, mt := range c.opts.Maps {
		cp := *mt
		cp.Name = name
		cp.Keys = slices.Clone(mt.Keys)
		cp.ownKeys = slices.Clone(cmpOr(mt.ownKeys, mt.Keys))
		cp.keysSet = true
		cp.Pos = srcpos.Pos{}
		c.prog.Maps[name] = &cp
	}
}

func cmpOr(a, b []*types.Type) []*types.Type {
	if a != nil {
		return a
	}
	return b
}

// settlePredeclared drops the predeclared maps the script does not use,
// and reports, at its first use, a map the script used with types that
// would change the layout of the live map.
func (c *checker) settlePredeclared() {
	if len(c.opts.Maps) == 0 {
		return
	}
	first := map[string]ast.Node{}
	visit := func(n ast.Node) bool {
		if m, ok := n.(*ast.MapRef); ok {
			if _, seen := first[m.Name]; !seen {
				first[m.Name] = m
			}
		}
		return true
	}
	for _, p := range c.prog.Probes {
		ast.Inspect(p.AST, visit)
	}
	ast.Inspect(c.prog.File, visit)
	for name, want := range c.opts.Maps {
		use, used := first[name]
		got := c.prog.Maps[name]
		if !used || got == nil {
			delete(c.prog.Maps, name)
			continue
		}
		got.Pos = use.Pos()
		if !sameLayout(want, got) {
			c.errorf(use, "%s is a map of this session holding %s; this use makes it %s", name, mapString(want), mapString(got))
		}
	}
}

// sameLayout reports whether two map types lay out the same BPF map.
func sameLayout(a, b *MapType) bool {
	if len(a.Keys) != len(b.Keys) || (a.Keys == nil) != (b.Keys == nil) || !sameType(a.Value, b.Value) {
		return false
	}
	for i := range a.Keys {
		if !sameType(a.Keys[i], b.Keys[i]) {
			return false
		}
	}
	return true
}

func sameType(a, b *types.Type) bool {
	return types.Equal(a, b) && a.Size == b.Size
}

// mapString renders a map's types for an error: "[int64]count".
func mapString(mt *MapType) string {
	s := ""
	if mt.Keys != nil {
		s = "[" + keysString(mt.Keys) + "]"
	}
	if mt.Value == nil {
		return s + "nothing"
	}
	return s + mt.Value.String()
}
