package check

import (
	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/lang/types"
)

func (c *checker) block(b *ast.Block) {
	if b == nil {
		return
	}
	c.scopes = append(c.scopes, map[string]int{})
	for i, s := range b.Stmts {
		c.stmt(s)
		if i+1 < len(b.Stmts) && StmtEnds(s) {
			// As bpftrace: a warning on the first unreachable statement;
			// codegen leaves the rest out.
			c.warnOnce(b.Stmts[i+1].Pos(), "Unreachable statement.")
		}
	}
	c.scopes = c.scopes[:len(c.scopes)-1]
}

// warnOnce records a warning, once per position however many passes and
// probe instances check the statement.
func (c *checker) warnOnce(pos srcpos.Pos, msg string) {
	for _, w := range c.prog.Warnings {
		if w.Pos == pos && w.Msg == msg {
			return
		}
	}
	c.prog.Warnings = append(c.prog.Warnings, &syntax.Error{Pos: pos, Msg: msg})
}

// warnOnceSpan records a warning under a span, with its hints, once
// however many passes and probe instances check the statement.
func (c *checker) warnOnceSpan(sp srcpos.Span, msg string, hints ...string) {
	if c.quiet {
		return
	}
	for _, w := range c.prog.Warnings {
		if w.Pos == sp.Start && w.End == sp.End && w.Msg == msg {
			return
		}
	}
	c.prog.Warnings = append(c.prog.Warnings, &syntax.Error{Pos: sp.Start, End: sp.End, Msg: msg, Hints: hints})
}

// BlockEnds reports whether a block always leaves through one of its
// statements, so that the code after it is unreachable.
func BlockEnds(b *ast.Block) bool {
	for _, s := range b.Stmts {
		if StmtEnds(s) {
			return true
		}
	}
	return false
}

// StmtEnds reports whether s always leaves the probe or the loop iteration:
// return, exit(), break, continue, a block that ends, or an if whose
// branches all end.
func StmtEnds(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ReturnStmt, *ast.BranchStmt:
		return true
	case *ast.ExprStmt:
		c, ok := s.X.(*ast.Call)
		return ok && callEnds(c)
	case *ast.BlockStmt:
		return BlockEnds(s.Body)
	case *ast.IfStmt:
		return s.Else != nil && BlockEnds(s.Then) && StmtEnds(s.Else)
	}
	return false
}

// callEnds reports whether a call leaves the probe (builtin.Func.Ends:
// exit()).
func callEnds(c *ast.Call) bool {
	f := builtin.LookupFunc(c.Name)
	return f != nil && f.Ends
}

// lookupVar finds the declaration a variable name refers to.
func (c *checker) lookupVar(name string) (int, bool) {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if id, ok := c.scopes[i][name]; ok {
			return id, true
		}
	}
	return 0, false
}

// declareVar declares a variable in the innermost scope. Its type is
// inferred later from assignments (nil until then); pass 2 reuses the
// type pass 1 inferred for the same declaration.
func (c *checker) declareVar(v *ast.Var, t *types.Type) int {
	id := c.nextVar
	c.nextVar++
	for len(c.info.VarTypes) <= id {
		c.info.VarTypes = append(c.info.VarTypes, nil)
	}
	for len(c.info.VarOwnTypes) <= id {
		c.info.VarOwnTypes = append(c.info.VarOwnTypes, nil)
	}
	if t != nil {
		c.info.VarTypes[id] = t
	}
	c.scopes[len(c.scopes)-1][v.Name] = id
	c.info.VarIDs[v] = id
	return id
}

// useVar resolves a variable use; it returns its type, nil if unknown.
func (c *checker) useVar(v *ast.Var) *types.Type {
	id, ok := c.lookupVar(v.Name)
	if !ok {
		c.errorf(v, "variable %s is used before it is assigned", v.Name)
		return nil
	}
	c.info.VarIDs[v] = id
	t := c.info.VarTypes[id]
	switch t {
	case nil:
		c.errorf(v, "the type of %s is not known here: assign it a value first", v.Name)
	case poisoned:
		return nil // its assignment already failed
	}
	return t
}

// poisoned is the type of a variable whose initialisation failed to check.
var poisoned = &types.Type{Kind: types.Invalid}

// ownType is the type bpftrace gives the value of e (checked as t) before
// storage widens it: the smallest type holding an integer literal, a
// variable's own type, else t.
func (c *checker) ownType(e ast.Expr, t *types.Type) *types.Type {
	switch x := e.(type) {
	case *ast.Var:
		if id, ok := c.info.VarIDs[x]; ok && id < len(c.info.VarOwnTypes) && c.info.VarOwnTypes[id] != nil {
			return c.info.VarOwnTypes[id]
		}
	case *ast.MapRef:
		if mt := c.prog.Maps[x.Name]; mt != nil && mt.ownValue != nil && mt.ownValue.Kind == t.Kind {
			return mt.ownValue
		}
	case *ast.Paren:
		return c.ownType(x.X, t)
	case *ast.Unary:
		if (x.Op == "-" || x.Op == "~") && t.Kind == types.Int && !c.isLiteral(e) {
			// computed in the operand's width, but a 64-bit value to
			// bpftrace: sizeof(~(uint16)51) is 8, and $y = -$x holds
			// a uint64
			return types.NewInt(8, t.Signed)
		}
	}
	return c.tupleElem(e, t)
}

// assignOwnType unifies the own type of variable id with t, the own type
// of a value assigned to it, as bpftrace promotes a variable's type.
func (c *checker) assignOwnType(id int, t *types.Type) {
	c.info.VarOwnTypes[id] = promoteOwn(c.info.VarOwnTypes[id], t)
}

// promoteOwn is the own type of a variable or map of own type old (nil
// before its first assignment) after a value of own type t is assigned.
func promoteOwn(old, t *types.Type) *types.Type {
	if old == nil {
		return t
	}
	if old.Kind == types.Int && t.Kind == types.Int {
		return promoteInt(old, t)
	}
	if u, ok := unify(old, t); ok {
		return u
	}
	return old
}
