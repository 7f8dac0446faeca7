package lang

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// expandAttachMissing expands an attach point; with config missing_probes
// = warn or ignore, a probe that does not exist is dropped instead of
// being an error (when it is not the only one).
func (c *checker) expandAttachMissing(ap *ast.AttachPoint) []*AttachPoint {
	if c.prog.Config.MissingProbes == "" || c.prog.Config.MissingProbes == "error" {
		return c.expandAttach(ap)
	}
	before := len(c.errs)
	quiet := c.quiet
	pts := c.expandAttach(ap)
	if len(c.errs) > before {
		msg := c.errs[before].Msg
		c.errs = c.errs[:before]
		c.quiet = quiet
		if c.prog.Config.MissingProbes == "warn" {
			c.prog.Warnings.Add(ap, "%s Skipping.", msg)
		}
	}
	return pts
}

// sharesProgram reports whether attach points of a provider can share one
// instance (one program for kprobes and tracepoints, one set of checked
// instructions for trampolines).
func sharesProgram(provider string) bool {
	switch provider {
	case "tracepoint", "kprobe", "kretprobe", "fentry", "fexit", "rawtracepoint", "uprobe", "uretprobe":
		return true
	}
	return false
}

// usesIdent reports whether the probe's predicate or body mentions the bare
// identifier name.
func usesIdent(p *ast.Probe, name string) bool {
	found := false
	ast.Inspect(p, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

func (c *checker) checkProbe(pr *Probe) {
	var vars []*types.Type
	if pr.Info != nil {
		vars = pr.Info.VarTypes // keep variable types inferred in pass 1
	}
	pr.Info = &Info{
		Types:    map[ast.Expr]*types.Type{},
		Consts:   map[ast.Expr]Const{},
		VarIDs:   map[*ast.Var]int{},
		VarTypes: vars,
		Calls:    map[*ast.Call]*Func{},
		Idents:   map[*ast.Ident]*Builtin{},
		Members:  map[*ast.Field]types.Field{},
	}
	c.probe, c.info = pr, pr.Info
	c.scopes = []map[string]int{{}}
	c.nextVar = 0
	pt := pr.Points[0]
	if len(pr.Points) == 1 {
		switch pt.Provider {
		case "tracepoint":
			c.info.ArgsType = c.tracepointArgs(pt)
			c.info.UserArgs = pt.Category == "syscalls"
		case "kprobe", "kretprobe", "fentry", "fexit", "rawtracepoint":
			if pt.Provider != "kretprobe" {
				c.info.ArgsType, c.info.ArgsErr = c.kfuncArgs(pt)
			}
		case "uprobe", "uretprobe":
			c.info.ArgsErr = "args needs DWARF debug information for user functions, which gotrace does not read: use arg0...arg5"
		}
	}
	if p := pt.Provider; p == "uprobe" || p == "uretprobe" {
		c.info.UserArgs = true // pointers in registers are user memory
	}
	if pr.AST.Pred != nil {
		t := c.expr(pr.AST.Pred)
		if t != nil && !isCondition(t) {
			c.errorf(pr.AST.Pred, "predicate must be an integer, bool or pointer, not %s", t)
		}
	}
	c.block(pr.AST.Body)
}
