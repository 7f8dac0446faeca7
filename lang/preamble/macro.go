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
		// Overloads differ in their number of parameters and in their
		// kinds ($x, @m, bare), as in bpftrace 0.27: a definition that an
		// earlier one would take the place of (f($x) after f(x)) is a
		// redefinition; the more precise one first (f($x), then f(x)) is
		// not.
		kinds := make([]paramKind, len(m.Params))
		for i, p := range m.Params {
			kinds[i] = kindOfParam(p.Name)
		}
		if o := firstMatch(c.macros[m.Name], kinds); o != nil {
			c.errorf(macroHead(m), "Redefinition of macro: %s", m.Name)
			c.errs.Note(macroHead(o), "This is the original definition.")
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
	kinds := make([]paramKind, len(args))
	for i, a := range args {
		kinds[i] = kindOfArg(a)
	}
	m := firstMatch(ms, kinds)
	if m == nil {
		ex.mismatch(name, ms, args, kinds, pos)
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
		subst[p.Name] = args[i]
	}
	return m, subst
}

// paramKind is what a macro parameter takes, or what an argument is: a
// scratch variable ($x), a map (@m, without keys) or any expression.
type paramKind uint8

const (
	kindExpr paramKind = iota
	kindVar
	kindMap
)

func kindOfParam(name string) paramKind {
	switch name[0] {
	case '$':
		return kindVar
	case '@':
		return kindMap
	}
	return kindExpr
}

func kindOfArg(a ast.Expr) paramKind {
	switch a := a.(type) {
	case *ast.Var:
		return kindVar
	case *ast.MapRef:
		if a.Keys == nil {
			return kindMap
		}
	}
	return kindExpr
}

// distance is how far the arguments of kinds are from what macro m
// takes, as bpftrace scores it: 1024 for each argument too many or too
// few, 1 for each argument a $x or @m parameter cannot take; 0 is a
// match.
func distance(m *ast.Macro, kinds []paramKind) int {
	d := 1024 * max(len(m.Params)-len(kinds), len(kinds)-len(m.Params))
	for i := 0; i < len(m.Params) && i < len(kinds); i++ {
		if k := kindOfParam(m.Params[i].Name); k != kindExpr && k != kinds[i] {
			d++
		}
	}
	return d
}

// firstMatch returns the first of ms, in definition order, that takes
// arguments of kinds, or nil.
func firstMatch(ms []*ast.Macro, kinds []paramKind) *ast.Macro {
	for _, m := range ms {
		if distance(m, kinds) == 0 {
			return m
		}
	}
	return nil
}

// mismatch reports a use of macro name whose arguments no definition
// takes, with bpftrace's errors: the closest definition's number of
// parameters, or each argument it cannot take.
func (ex *expander) mismatch(name string, ms []*ast.Macro, args []ast.Expr, kinds []paramKind, pos srcpos.Span) {
	closest := ms[0]
	for _, m := range ms[1:] {
		if distance(m, kinds) < distance(closest, kinds) {
			closest = m
		}
	}
	ex.c.errorf(pos, "Call to %s() has arguments that do not match any definition.", name)
	if len(closest.Params) != len(args) {
		ex.c.errs.Note(macroHead(closest), "The closest definition of %s() has a different number of arguments. Expected: %d but got %d", name, len(closest.Params), len(args))
		return
	}
	what := [...]string{kindExpr: "an expression", kindVar: "a variable", kindMap: "a map"}
	for i, p := range closest.Params {
		if k := kindOfParam(p.Name); k != kindExpr && k != kinds[i] {
			ex.c.errorf(args[i], "Mismatched arg. %s() expects %s for arg %s but got %s.", name, what[k], p.Name, what[kinds[i]])
			ex.c.errs.Note(p, "This is the argument in the closest definition.")
		}
	}
}

// macroHead is the span of "macro name" in a macro's definition, where
// bpftrace points at a definition.
func macroHead(m *ast.Macro) srcpos.Span {
	end := m.Start
	end.Offset += len("macro ") + len(m.Name)
	end.Column += len("macro ") + len(m.Name)
	return srcpos.Span{Start: m.Start, End: end}
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
		n := &ast.SizeofExpr{Span: e.Span, Type: ex.typeExpr(e.Type), X: ex.expr(e.X)}
		if ta, ok := n.X.(*ast.TypeArg); ok {
			// sizeof(t) of a parameter given typeof(...)
			n.Type, n.X = ta.Type, nil
		}
		return n
	case *ast.TypeArg:
		return &ast.TypeArg{Span: e.Span, Type: ex.typeExpr(e.Type)}
	case *ast.BlockExpr:
		return &ast.BlockExpr{Span: e.Span, Body: ex.block(e.Body)}
	case *ast.OffsetofExpr:
		n := &ast.OffsetofExpr{Span: e.Span, Type: ex.typeExpr(e.Type), X: ex.expr(e.X), Field: e.Field}
		if ta, ok := n.X.(*ast.TypeArg); ok {
			n.Type, n.X = ta.Type, nil
		}
		return n
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
	if t == nil {
		return nil
	}
	if ta, ok := ex.subst[t.Name].(*ast.TypeArg); ok && !t.Typeof && !(t.IsArray && ta.Type.IsArray) {
		// a bare parameter given typeof(...), used as a type: that type,
		// with the pointers and array length written here
		cp := *ast.Clone(ta.Type)
		cp.Span = t.Span
		cp.Pointers += t.Pointers
		if t.IsArray {
			cp.IsArray, cp.ArrayLen = true, t.ArrayLen
		}
		return &cp
	}
	if !t.Typeof {
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
