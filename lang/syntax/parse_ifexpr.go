package syntax

import (
	"github.com/alecthomas/participle/v2"

	"github.com/gotrace/gotrace/lang/ast"
)

// ifExpr parses `if (c) { a } else { b }` used as a value (else if
// chains too): a ternary whose branches are block expressions.
func (p *exprParser) ifExpr() (ast.Expr, error) {
	kw := p.next()
	if err := p.enter(kw); err != nil {
		return nil, err
	}
	defer p.leave()
	cond, err := p.operand(p.expr)
	if err != nil {
		return nil, err
	}
	if !isPunct(p.peek(), "{") {
		return nil, p.unexpected(p.peek(), `"{"`)
	}
	then, err := p.blockExpr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.Type != tIdent || t.Value != "else" {
		return nil, p.errorf(t, "an if used as a value needs an else branch")
	}
	p.next()
	var els ast.Expr
	switch t := p.peek(); {
	case t.Type == tIdent && t.Value == "if":
		els, err = p.ifExpr()
	case isPunct(t, "{"):
		els, err = p.blockExpr()
	default:
		return nil, p.unexpected(t, `"{"`)
	}
	if err != nil {
		return nil, err
	}
	return &ast.Ternary{Span: span(toPos(kw.Pos), endOf(els)), Cond: ast.Unparen(cond), Then: then, Else: els}, nil
}

// blockExpr parses `{ stmts; value }` used as a value.
func (p *exprParser) blockExpr() (ast.Expr, error) {
	g, err := blockParser().ParseFromLexer(p.lex, participle.AllowTrailing(true))
	if err != nil {
		return nil, err
	}
	c := &converter{}
	b := c.block(g)
	if len(c.errs) > 0 {
		return nil, c.errs[0]
	}
	valueIf(b)
	return &ast.BlockExpr{Span: b.Span, Body: b}, nil
}

// valueIf turns an if-else ending a block used as a value into the if
// used as a value, when each of its branches ends with a value.
func valueIf(b *ast.Block) {
	if n := len(b.Stmts); n > 0 {
		if s, ok := b.Stmts[n-1].(*ast.IfStmt); ok {
			if x := ifValue(s); x != nil {
				b.Stmts[n-1] = &ast.ExprStmt{Span: s.Span, X: x}
			}
		}
	}
}

// ifValue is if-else s as a ternary of block expressions, or nil when a
// branch does not end with a value.
func ifValue(s *ast.IfStmt) ast.Expr {
	if s.Else == nil || !endsWithValue(s.Then) {
		return nil
	}
	var els ast.Expr
	switch e := s.Else.(type) {
	case *ast.IfStmt:
		els = ifValue(e)
	case *ast.BlockStmt:
		if endsWithValue(e.Body) {
			valueIf(e.Body)
			els = &ast.BlockExpr{Span: e.Body.Span, Body: e.Body}
		}
	}
	if els == nil {
		return nil
	}
	valueIf(s.Then)
	return &ast.Ternary{Span: s.Span, Cond: s.Cond, Then: &ast.BlockExpr{Span: s.Then.Span, Body: s.Then}, Else: els}
}

// endsWithValue reports whether b ends with an expression or with an
// if-else whose branches do.
func endsWithValue(b *ast.Block) bool {
	if len(b.Stmts) == 0 {
		return false
	}
	switch s := b.Stmts[len(b.Stmts)-1].(type) {
	case *ast.ExprStmt:
		return true
	case *ast.IfStmt:
		return ifValue(s) != nil
	}
	return false
}
