package syntax

import (
	"math"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
)

// tryCast parses `(type)operand` at a '(' if it is one, and otherwise leaves
// the lexer untouched and returns nil.
func (p *exprParser) tryCast() (ast.Expr, error) {
	cp := p.lex.MakeCheckpoint()
	open := p.next() // (
	ty, strong, ok, err := p.typeExpr()
	if err != nil || !ok || !isPunct(p.peek(), ")") {
		p.lex.LoadCheckpoint(cp)
		return nil, nil
	}
	p.next() // )
	after := p.peek()
	if !(strong || ty.Pointers > 0) && !startsOperand(after) {
		p.lex.LoadCheckpoint(cp)
		return nil, nil
	}
	if err := p.enter(open); err != nil {
		return nil, err
	}
	defer p.leave()
	x, err := p.operand(p.unary)
	if err != nil {
		return nil, err
	}
	return &ast.Cast{Span: span(toPos(open.Pos), endOf(x)), Type: ty, X: x}, nil
}

// typeExpr parses a type: a base name (`uint32`, `struct foo`, `unsigned
// long`, or any identifier), '*'s, and an optional `[N]`. strong reports
// whether the base name is certainly a type (a keyword-introduced name or a
// builtin type) rather than an identifier that might be a value. ok is false
// (with no error) when the tokens do not form a type; the caller restores the
// lexer.
func (p *exprParser) typeExpr() (ty *ast.TypeExpr, strong, ok bool, err error) {
	first := p.peek()
	if first.Type != tIdent || keywords[first.Value] {
		return nil, false, false, nil
	}
	if first.Value == "typeof" && isPunct(p.peekN(1), "(") {
		return p.typeofExpr()
	}
	last := first
	var name string
	switch {
	case first.Value == "struct" || first.Value == "union" || first.Value == "enum":
		p.next()
		id := p.peek()
		if id.Type != tIdent {
			return nil, false, false, nil
		}
		last = p.next()
		name = first.Value + " " + id.Value
		strong = true
	case cTypeWords[first.Value]:
		var words []string
		for p.peek().Type == tIdent && cTypeWords[p.peek().Value] {
			last = p.next()
			words = append(words, last.Value)
		}
		name = strings.Join(words, " ")
		strong = true
	default:
		last = p.next()
		name = first.Value
		strong = builtinTypes[name]
	}
	ty = &ast.TypeExpr{Name: name}
	for isPunct(p.peek(), "*") {
		last = p.next()
		ty.Pointers++
	}
	if isPunct(p.peek(), "[") {
		p.next()
		if n := p.peek(); n.Type == tInt {
			lit, err := intLit(p.next())
			if err != nil {
				return nil, false, false, err
			}
			if lit.Suffix != "" || lit.Value > math.MaxInt32 {
				return nil, false, false, p.errorf(n, "invalid array length %s", n.Value)
			}
			ty.ArrayLen = int(lit.Value)
		}
		if !isPunct(p.peek(), "]") {
			return nil, false, false, nil
		}
		last = p.next()
		ty.IsArray = true
	}
	ty.Span = span(toPos(first.Pos), tokEnd(last))
	return ty, strong, true, nil
}

// typeofExpr parses `typeof(T)` or `typeof(expr)`: a type written as
// such (a name followed by ")"), else an expression.
func (p *exprParser) typeofExpr() (ty *ast.TypeExpr, strong, ok bool, err error) {
	kw := p.next()
	p.next() // (
	cp := p.lex.MakeCheckpoint()
	if t, _, ok, err := p.typeExpr(); err == nil && ok && isPunct(p.peek(), ")") {
		end := p.next()
		t.Typeof = true
		t.Span = span(toPos(kw.Pos), tokEnd(end))
		return t, true, true, nil
	}
	p.lex.LoadCheckpoint(cp)
	x, err := p.operand(p.expr)
	if err != nil {
		return nil, false, false, err
	}
	end, err := p.expect(")")
	if err != nil {
		return nil, false, false, err
	}
	return &ast.TypeExpr{Span: span(toPos(kw.Pos), tokEnd(end)), Typeof: true, Of: x}, true, true, nil
}
