package preamble

import (
	"fmt"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
)

// maxMacroDepth bounds nested macro expansion (and catches recursion).
const maxMacroDepth = 32

// MaxMacroNodes bounds the total size of macro expansions in a script, in
// syntax tree nodes copied from macro bodies: macros that each call the
// next twice double at every level, which the depth limit alone lets
// grow to 2^32 copies.
const MaxMacroNodes = 200_000

// ExpandMacros inlines macro calls in every probe, before checking:
//   - a call used as a statement becomes the macro's body, as a block;
//   - a call used as a value must name a macro whose body is a single
//     expression, which replaces the call.
//
// Parameters are substituted by name: `$x` parameters alias the caller's
// variable, `@m` parameters the caller's map, and bare parameters stand for
// the argument expression. A macro without parameters may also be used as
// a bare identifier (`if errname { ... }`), as in bpftrace.
func (c *Preamble) ExpandMacros(file *ast.File) {
	if len(file.Macros) == 0 {
		return
	}
	c.macros = map[string][]*ast.Macro{}
	for _, m := range file.Macros {
		dup := false
		for _, o := range c.macros[m.Name] {
			dup = dup || len(o.Params) == len(m.Params)
		}
		if dup {
			c.errorf(m, "macro %s is defined twice with %d parameter%s", m.Name, len(m.Params), plural(m.Params))
			continue
		}
		c.macros[m.Name] = append(c.macros[m.Name], m)
	}
	budget := &macroBudget{}
	for _, p := range file.Probes {
		ex := &expander{c: c, budget: budget}
		if p.Pred != nil {
			p.Pred = ex.expr(p.Pred)
		}
		p.Body = ex.block(p.Body)
	}
}

// macroBudget counts the nodes copied from macro bodies in a script, and
// the expansions, which number the variables local to each.
type macroBudget struct {
	nodes      int
	exceeded   bool
	expansions int
}

type expander struct {
	c      *Preamble
	budget *macroBudget
	depth  int
	// subst maps parameter names to their replacement in the macro body
	// being copied: an expression, a variable name or a map name.
	subst map[string]ast.Expr
	// sites are the macro uses being expanded, innermost first.
	sites []srcpos.Span
	// macro is the macro whose body is being copied (nil in a probe),
	// id numbers this expansion, and locals renames the variables of
	// the body that are not parameters, so that they neither clobber
	// nor shadow the caller's.
	macro  *ast.Macro
	id     int
	locals map[string]string
}

// call returns the expansion of a macro call, or nil when name is not a
// macro. A macro's name may also name several macros of different
// arities, or a builtin (cpu, comm) used with an arity no macro has.
func (ex *expander) lookup(name string, args []ast.Expr, pos srcpos.Span) (*ast.Macro, map[string]ast.Expr) {
	ms := ex.c.macros[name]
	if len(ms) == 0 {
		return nil, nil
	}
	var m *ast.Macro
	for _, o := range ms {
		if len(o.Params) == len(args) {
			m = o
		}
	}
	if m == nil {
		ex.c.errorf(pos, "macro %s takes %d argument%s, got %d", name, len(ms[0].Params), plural(ms[0].Params), len(args))
		return nil, nil
	}
	if ex.depth >= maxMacroDepth {
		ex.c.errorf(pos, "macro %s: expansion too deep (recursive macro?)", name)
		return nil, nil
	}
	if ex.budget.nodes > MaxMacroNodes {
		if !ex.budget.exceeded {
			ex.budget.exceeded = true
			ex.c.errorf(pos, "macro %s: macro expansions exceed %d syntax nodes (macros calling macros several times grow exponentially)", name, MaxMacroNodes)
		}
		return nil, nil
	}
	subst := map[string]ast.Expr{}
	for i, p := range m.Params {
		a := args[i]
		switch p.Name[0] {
		case '$':
			if _, ok := a.(*ast.Var); !ok {
				ex.c.errorf(a, "macro %s expects a scratch variable for %s", name, p.Name)
				return nil, nil
			}
		case '@':
			if mr, ok := a.(*ast.MapRef); !ok || mr.Keys != nil {
				ex.c.errorf(a, "macro %s expects a map for %s", name, p.Name)
				return nil, nil
			}
		}
		subst[p.Name] = a
	}
	return m, subst
}

// inner returns an expander for the body of the macro used at site, with
// its substitutions; the arguments were already expanded in the caller's
// context.
func (ex *expander) inner(m *ast.Macro, subst map[string]ast.Expr, site srcpos.Span) *expander {
	sites := append([]srcpos.Span{site}, ex.sites...)
	ex.budget.expansions++
	return &expander{c: ex.c, budget: ex.budget, depth: ex.depth + 1, subst: subst, sites: sites,
		macro: m, id: ex.budget.expansions, locals: map[string]string{}}
}

// isMacro reports whether a use of name with nargs arguments is a macro
// use: a builtin of that name with another arity stays the builtin.
func (ex *expander) isMacro(name string, nargs int) bool {
	ms := ex.c.macros[name]
	if len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		if len(m.Params) == nargs {
			return true
		}
	}
	return builtin.LookupFunc(name) == nil && builtin.LookupVar(name) == nil
}

func (ex *expander) block(b *ast.Block) *ast.Block {
	if b == nil {
		return nil
	}
	out := &ast.Block{Span: b.Span}
	for _, s := range b.Stmts {
		out.Stmts = append(out.Stmts, ex.stmt(s))
	}
	return out
}

// count charges one copied node to the budget when inside a macro body.
func (ex *expander) count() {
	if ex.depth > 0 {
		ex.budget.nodes++
	}
}

func (ex *expander) stmt(s ast.Stmt) ast.Stmt {
	ex.count()
	switch s := s.(type) {
	case *ast.ExprStmt:
		if name, args, pos, ok := macroUse(s.X); ok && ex.isMacro(name, len(args)) {
			args = ex.exprs(args)
			if m, subst := ex.lookup(name, args, pos); m != nil {
				body := ex.inner(m, subst, pos).block(m.Body)
				return &ast.BlockStmt{Span: s.Span, Body: body}
			}
		}
		return &ast.ExprStmt{Span: s.Span, X: ex.expr(s.X)}
	case *ast.AssignStmt:
		return &ast.AssignStmt{Span: s.Span, Op: s.Op, Lhs: ex.expr(s.Lhs), Rhs: ex.expr(s.Rhs), OpPos: s.OpPos}
	case *ast.IncDecStmt:
		return &ast.IncDecStmt{Span: s.Span, Op: s.Op, Prefix: s.Prefix, X: ex.expr(s.X)}
	case *ast.LetStmt:
		n := &ast.LetStmt{Span: s.Span, Var: ex.varRef(s.Var), Type: ex.typeExpr(s.Type)}
		if s.Init != nil {
			n.Init = ex.expr(s.Init)
		}
		return n
	case *ast.IfStmt:
		n := &ast.IfStmt{Span: s.Span, Cond: ex.expr(s.Cond), Then: ex.block(s.Then)}
		if s.Else != nil {
			n.Else = ex.stmt(s.Else)
		}
		return n
	case *ast.ForRangeStmt:
		return &ast.ForRangeStmt{Span: s.Span, Var: ex.varRef(s.Var), Lo: ex.expr(s.Lo), Hi: ex.expr(s.Hi), Body: ex.block(s.Body)}
	case *ast.ForMapStmt:
		return &ast.ForMapStmt{Span: s.Span, Var: ex.varRef(s.Var), Map: ex.expr(s.Map).(*ast.MapRef), Body: ex.block(s.Body)}
	case *ast.WhileStmt:
		return &ast.WhileStmt{Span: s.Span, Cond: ex.expr(s.Cond), Body: ex.block(s.Body)}
	case *ast.UnrollStmt:
		return &ast.UnrollStmt{Span: s.Span, Count: ex.expr(s.Count), Body: ex.block(s.Body)}
	case *ast.ReturnStmt:
		n := &ast.ReturnStmt{Span: s.Span}
		if s.X != nil {
			n.X = ex.expr(s.X)
		}
		return n
	case *ast.BlockStmt:
		return &ast.BlockStmt{Span: s.Span, Body: ex.block(s.Body)}
	case *ast.BranchStmt:
		cp := *s
		return &cp
	}
	return s
}

// macroUse recognises a possible macro use: a call, or a bare identifier.
func macroUse(e ast.Expr) (string, []ast.Expr, srcpos.Span, bool) {
	switch e := e.(type) {
	case *ast.Call:
		return e.Name, e.Args, e.Span, true
	case *ast.Ident:
		return e.Name, nil, e.Span, true
	}
	return "", nil, srcpos.Span{}, false
}

func (ex *expander) exprs(list []ast.Expr) []ast.Expr {
	if list == nil {
		return nil
	}
	out := make([]ast.Expr, len(list))
	for i, e := range list {
		out[i] = ex.expr(e)
	}
	return out
}

// varRef substitutes a `$x` parameter by the caller's variable; inside a
// macro body, any other variable is the expansion's own, renamed
// ("$y" becomes "$y@inc.3" in the third expansion, of macro inc).
func (ex *expander) varRef(v *ast.Var) *ast.Var {
	if r, ok := ex.subst[v.Name].(*ast.Var); ok {
		return &ast.Var{Span: v.Span, Name: r.Name}
	}
	cp := *v
	if ex.macro != nil {
		n, ok := ex.locals[v.Name]
		if !ok {
			n = fmt.Sprintf("%s@%s.%d", v.Name, ex.macro.Name, ex.id)
			ex.locals[v.Name] = n
		}
		cp.Name = n
	}
	return &cp
}

func (ex *expander) expr(e ast.Expr) ast.Expr {
	ex.count()
	switch e := e.(type) {
	case nil:
		return nil
	case *ast.Var:
		return ex.varRef(e)
	case *ast.Ident:
		if r, ok := ex.subst[e.Name]; ok {
			// each use of the parameter is a copy of the argument
			return ast.Clone(r)
		}
		if name, _, pos, _ := macroUse(e); ex.isMacro(name, 0) {
			return ex.value(name, nil, pos)
		}
		cp := *e
		return &cp
	case *ast.Call:
		args := ex.exprs(e.Args)
		if ex.isMacro(e.Name, len(args)) {
			return ex.value(e.Name, args, e.Span)
		}
		call := &ast.Call{Span: e.Span, Name: e.Name, Args: args}
		if len(ex.sites) > 0 {
			if ex.c.Expansions == nil {
				ex.c.Expansions = map[*ast.Call][]srcpos.Span{}
			}
			ex.c.Expansions[call] = ex.sites
		}
		return call
	case *ast.MapRef:
		name := e.Name
		if r, ok := ex.subst[name].(*ast.MapRef); ok {
			name = r.Name
		}
		return &ast.MapRef{Span: e.Span, Name: name, Keys: ex.exprs(e.Keys)}
	case *ast.Binary:
		return &ast.Binary{Span: e.Span, Op: e.Op, X: ex.expr(e.X), Y: ex.expr(e.Y)}
	case *ast.Unary:
		return &ast.Unary{Span: e.Span, Op: e.Op, X: ex.expr(e.X), Postfix: e.Postfix}
	case *ast.Ternary:
		return &ast.Ternary{Span: e.Span, Cond: ex.expr(e.Cond), Then: ex.expr(e.Then), Else: ex.expr(e.Else)}
	case *ast.Field:
		return &ast.Field{Span: e.Span, X: ex.expr(e.X), Name: e.Name, Arrow: e.Arrow}
	case *ast.Index:
		return &ast.Index{Span: e.Span, X: ex.expr(e.X), Index: ex.expr(e.Index)}
	case *ast.Cast:
		return &ast.Cast{Span: e.Span, Type: ex.typeExpr(e.Type), X: ex.expr(e.X)}
	case *ast.Tuple:
		return &ast.Tuple{Span: e.Span, Elems: ex.exprs(e.Elems), Names: e.Names}
	case *ast.Paren:
		return &ast.Paren{Span: e.Span, X: ex.expr(e.X)}
	case *ast.SizeofExpr:
		return &ast.SizeofExpr{Span: e.Span, Type: ex.typeExpr(e.Type), X: ex.expr(e.X)}
	case *ast.BlockExpr:
		return &ast.BlockExpr{Span: e.Span, Body: ex.block(e.Body)}
	case *ast.OffsetofExpr:
		return &ast.OffsetofExpr{Span: e.Span, Type: e.Type, X: ex.expr(e.X), Field: e.Field}
	case *ast.IntLit:
		cp := *e
		return &cp
	case *ast.StrLit:
		cp := *e
		return &cp
	case *ast.BoolLit:
		cp := *e
		return &cp
	case *ast.PosParam:
		cp := *e
		return &cp
	case *ast.Discard:
		cp := *e
		return &cp
	}
	return e
}

// typeExpr copies a type: typeof(x) of a parameter x is the type of
// the argument.
func (ex *expander) typeExpr(t *ast.TypeExpr) *ast.TypeExpr {
	if t == nil || !t.Typeof {
		return t
	}
	cp := *t
	if t.Of != nil {
		cp.Of = ex.expr(t.Of)
	} else if r, ok := ex.subst[t.Name]; ok && t.Pointers == 0 && !t.IsArray {
		cp.Of, cp.Name = ast.Clone(r), ""
	}
	return &cp
}

// value expands a macro used as a value: its body must be one expression.
func (ex *expander) value(name string, args []ast.Expr, pos srcpos.Span) ast.Expr {
	m, subst := ex.lookup(name, args, pos)
	if m == nil {
		return &ast.Ident{Span: pos, Name: name}
	}
	n := len(m.Body.Stmts)
	if n == 0 {
		ex.c.errorf(pos, "macro %s is used as a value, but its body is empty", name)
		return &ast.IntLit{Span: pos, Text: "0"}
	}
	if _, ok := m.Body.Stmts[n-1].(*ast.ExprStmt); !ok {
		ex.c.errorf(pos, "macro %s is used as a value, but its body does not end with an expression", name)
		return &ast.IntLit{Span: pos, Text: "0"}
	}
	in := ex.inner(m, subst, pos)
	if n == 1 {
		return in.expr(m.Body.Stmts[0].(*ast.ExprStmt).X)
	}
	// statements, then the value: a block expression
	return &ast.BlockExpr{Span: pos, Body: in.block(m.Body)}
}

// plural is "s" unless params has one element.
func plural(params []*ast.MacroParam) string {
	if len(params) == 1 {
		return ""
	}
	return "s"
}
