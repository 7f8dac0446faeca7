package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// Trampolines (fentry, fexit: provider.Provider.SharesByShape) of one
// probe share one instance when what its body reads is laid out and
// typed alike in each function: every args field it reads in the same
// argument slot (provider.ArgSlots, the layout of a single trampoline's
// context) with the same type, and retval with the same type. The
// instance is then one program over all of them (one tracing_multi link,
// or one checked program copied to each function's trampoline); the body
// is typed by the first point's prototype. A body that reads args as a
// whole value, or the probe builtin, keeps one instance per function.

// shapeUse is what a probe's body reads that depends on the function.
type shapeUse struct {
	ok     bool     // the body can share: args only by field, no probe builtin
	fields []string // the args fields read, sorted
	retval bool
}

// reads reports whether the body reads anything that depends on the
// function (then its instance is Probe.Shaped).
func (u shapeUse) reads() bool { return len(u.fields) > 0 || u.retval }

// shapeUses finds the args fields and retval that p's predicate and body
// read.
func shapeUses(p *ast.Probe) shapeUse {
	u := shapeUse{ok: !usesPointName(p)}
	ast.Inspect(p, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Field:
			if builtin.IsFields(n.X) {
				if !slices.Contains(u.fields, n.Name) {
					u.fields = append(u.fields, n.Name)
				}
				return false
			}
		case *ast.Ident:
			if v := builtin.VarOf(n); v != nil {
				u.retval = u.retval || v.ByProto
				u.ok = u.ok && !v.Fields // args as a whole value
			}
		case *ast.Call: // a variable in the call form, retval()
			if v := builtin.LookupVar(n.Name); v != nil {
				u.retval = u.retval || v.ByProto
				u.ok = u.ok && !v.Fields
			}
		}
		return u.ok
	})
	slices.Sort(u.fields)
	return u
}

// pointShape is the shape of what u reads at point pt: points of equal
// shapes can share an instance. ok is false when pt cannot share (no
// prototype, a field it lacks): it then has its own, which reports the
// error.
func (c *checker) pointShape(u shapeUse, def *provider.Provider, pt *provider.Point) (string, bool) {
	var b strings.Builder
	if u.reads() {
		b.WriteString(pt.Module) // types of the same name in two modules may differ
	}
	if len(u.fields) > 0 {
		if def.ArgsType == nil {
			return "", false
		}
		rec, _ := def.ArgsType(c, pt)
		if rec == nil {
			return "", false
		}
		for _, name := range u.fields {
			i := slices.IndexFunc(rec.Fields, func(f types.Field) bool { return f.Name == name })
			if i < 0 {
				return "", false
			}
			f := rec.Fields[i]
			fmt.Fprintf(&b, "|%s@%d:%s", name, f.Offset, f.Type)
		}
	}
	if u.retval && def.RetvalType != nil {
		t, _ := def.RetvalType(c, []*provider.Point{pt})
		if t == nil {
			return "", false
		}
		fmt.Fprintf(&b, "|retval:%s", t)
	}
	return b.String(), true
}
