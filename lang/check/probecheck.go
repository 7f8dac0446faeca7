package check

import (
	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// expandAttachMissing expands an attach point; with config missing_probes
// = warn or ignore, a probe that does not exist is dropped instead of
// being an error (when it is not the only one). dropped is a stand-in
// point for a dropped attach point of a known provider (nil otherwise),
// for typing the probe's body (droppedProbe).
func (c *checker) expandAttachMissing(ap *ast.AttachPoint) (pts []*provider.Point, dropped *provider.Point) {
	if c.prog.Config.MissingProbes == "" || c.prog.Config.MissingProbes == "error" {
		return c.expandAttach(ap), nil
	}
	before := len(c.errs)
	quiet := c.quiet
	pts = c.expandAttach(ap)
	if len(c.errs) > before {
		msg := c.errs[before].Msg
		c.errs = c.errs[:before]
		c.quiet = quiet
		dropped = c.missingProbe(ap, msg)
	}
	return pts, dropped
}

// missingProbe reports an attach point that does not exist as config
// missing_probes says (an error, a warning, or nothing) and returns its
// stand-in when it is dropped (see expandAttachMissing).
func (c *checker) missingProbe(ap *ast.AttachPoint, msg string) (dropped *provider.Point) {
	switch c.prog.Config.MissingProbes {
	case "", "error":
		c.errorf(ap, "%s", msg)
		return nil
	case "warn":
		c.prog.Warnings.Add(ap, "%s Skipping.", msg)
	}
	parts := provider.SplitAttach(ap.Raw)
	if def := provider.Lookup(parts[0]); def != nil && def.Supported() {
		dropped = &provider.Point{Name: ap.Raw, Provider: def.Name, Pos: ap.Pos()}
	}
	return dropped
}

// usesPerPoint reports whether the probe's predicate or body uses a builtin
// variable that differs between its attach points (builtin.Var.PerPoint).
func usesPerPoint(p *ast.Probe) bool {
	return usesPointDep(p, func(d builtin.PointDep) bool { return d != builtin.SamePoint })
}

// usesPointName reports whether the probe reads a builtin whose value is
// the attach point's name (probe).
func usesPointName(p *ast.Probe) bool {
	return usesPointDep(p, func(d builtin.PointDep) bool { return d == builtin.PointName })
}

// usesPointDep reports whether the probe's predicate or body uses a builtin
// variable whose dependence on the attach point satisfies dep.
func usesPointDep(p *ast.Probe, dep func(builtin.PointDep) bool) bool {
	found := false
	ast.Inspect(p, func(n ast.Node) bool {
		if v := builtin.VarOf(n); v != nil && dep(v.PerPoint) {
			found = true
		}
		return !found
	})
	return found
}

func (c *checker) checkProbe(pr *Probe) {
	var vars, own []*types.Type
	if pr.Info != nil {
		// keep variable types inferred in pass 1
		vars, own = pr.Info.VarTypes, pr.Info.VarOwnTypes
	}
	pr.Info = &Info{
		Types:       map[ast.Expr]*types.Type{},
		Consts:      map[ast.Expr]builtin.Const{},
		Uaddrs:      map[*ast.Call]Uaddr{},
		VarIDs:      map[*ast.Var]int{},
		VarTypes:    vars,
		VarOwnTypes: own,
		Calls:       map[*ast.Call]*builtin.Func{},
		Idents:      map[*ast.Ident]*builtin.Var{},
		Members:     map[*ast.Field]types.Field{},
		Records:     map[string]*ast.Tuple{},
		CastWidths:  map[*ast.Cast]int{},
		FlexVals:    map[ast.Expr]bool{},
	}
	c.probe, c.info = pr, pr.Info
	c.scopes = []map[string]int{{}}
	c.nextVar = 0
	c.declared = map[int]*types.Type{}
	pt := pr.Points[0]
	def := pr.Def()
	c.info.UserArgs = def.UserArgs(pt)
	if pr.AST.Pred != nil {
		t := c.expr(pr.AST.Pred)
		if t != nil && !isCondition(t) {
			c.errorf(pr.AST.Pred, "predicate must be an integer, bool or pointer, not %s", t)
		}
	}
	c.block(pr.AST.Body)
}
