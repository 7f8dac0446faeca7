package syntax

import (
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gotrace/gotrace/lang/ast"
)

// typeOrExpr parses the first operand of sizeof/offsetof: a type when it is
// certainly one (a keyword-introduced or builtin name, or a pointer),
// otherwise an expression. A bare identifier is an expression (*ast.Ident);
// the checker decides whether it names a type.
func (p *exprParser) typeOrExpr() (*ast.TypeExpr, ast.Expr, error) {
	cp := p.lex.MakeCheckpoint()
	ty, strong, ok, err := p.typeExpr()
	if err != nil {
		return nil, nil, err
	}
	if ok && (strong || ty.Pointers > 0) {
		return ty, nil, nil
	}
	p.lex.LoadCheckpoint(cp)
	x, err := p.operand(p.expr)
	return nil, x, err
}

// parenOperand parses "(" typeOrExpr ")", the operand of sizeof and
// typeinfo, and returns the closing parenthesis.
func (p *exprParser) parenOperand() (*ast.TypeExpr, ast.Expr, *lexer.Token, error) {
	p.next() // (
	ty, x, err := p.typeOrExpr()
	if err != nil {
		return nil, nil, nil, err
	}
	end, err := p.expect(")")
	return ty, x, end, err
}

func (p *exprParser) sizeof(name *lexer.Token) (ast.Expr, error) {
	ty, x, end, err := p.parenOperand()
	if err != nil {
		return nil, err
	}
	return &ast.SizeofExpr{Span: span(toPos(name.Pos), tokEnd(end)), Type: ty, X: x}, nil
}

// typeinfo parses typeinfo(type) and typeinfo(expr): a call whose one
// argument is a type (ast.TypeArg) or an expression.
func (p *exprParser) typeinfo(name *lexer.Token) (ast.Expr, error) {
	ty, x, end, err := p.parenOperand()
	if err != nil {
		return nil, err
	}
	if ty != nil {
		x = &ast.TypeArg{Span: ty.Span, Type: ty}
	}
	return &ast.Call{Span: span(toPos(name.Pos), tokEnd(end)), Name: name.Value, Args: []ast.Expr{x}}, nil
}

func (p *exprParser) offsetof(name *lexer.Token) (ast.Expr, error) {
	p.next() // (
	ty, x, err := p.typeOrExpr()
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(","); err != nil {
		return nil, err
	}
	fields, err := p.memberPath("field name")
	if err != nil {
		return nil, err
	}
	end, err := p.expect(")")
	if err != nil {
		return nil, err
	}
	return &ast.OffsetofExpr{Span: span(toPos(name.Pos), tokEnd(end)), Type: ty, X: x, Field: fields}, nil
}

// memberPath parses the member names of offsetof and container_of,
// a.b.c; what names what is wanted in the error.
func (p *exprParser) memberPath(what string) ([]string, error) {
	var fields []string
	for {
		f := p.peek()
		if f.Type != tIdent && f.Type != tInt {
			return nil, p.unexpected(f, what)
		}
		p.next()
		fields = append(fields, f.Value)
		if !isPunct(p.peek(), ".") {
			return fields, nil
		}
		p.next()
	}
}

// containerOf parses container_of(ptr, type, member) as bpftrace's stdlib
// macro (after 0.26) expands it: (type *)((void *)ptr - offsetof(type,
// member)), a pointer to the type holding *ptr as its member.
func (p *exprParser) containerOf(name *lexer.Token) (ast.Expr, error) {
	p.next() // (
	ptr, err := p.operand(p.expr)
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(","); err != nil {
		return nil, err
	}
	at := p.peek()
	ty, x, err := p.typeOrExpr()
	if err != nil {
		return nil, err
	}
	if x != nil {
		id, ok := x.(*ast.Ident)
		if !ok {
			return nil, p.unexpected(at, "type")
		}
		ty = &ast.TypeExpr{Span: id.Span, Name: id.Name}
	}
	if _, err := p.expect(","); err != nil {
		return nil, err
	}
	fields, err := p.memberPath("member name")
	if err != nil {
		return nil, err
	}
	end, err := p.expect(")")
	if err != nil {
		return nil, err
	}
	sp := span(toPos(name.Pos), tokEnd(end))
	ptrType := ast.Clone(ty)
	ptrType.Pointers++
	ptrType.Span = sp
	void := &ast.TypeExpr{Span: ptr.GetSpan(), Name: "void", Pointers: 1}
	diff := &ast.Binary{Span: sp, Op: "-",
		X: &ast.Cast{Span: ptr.GetSpan(), Type: void, X: ptr},
		Y: &ast.OffsetofExpr{Span: sp, Type: ty, Field: fields}}
	return &ast.Cast{Span: sp, Type: ptrType, X: &ast.Paren{Span: sp, X: diff}}, nil
}
