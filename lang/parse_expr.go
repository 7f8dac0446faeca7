package lang

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gotrace/gotrace/lang/ast"
)

// This file implements expressions and types as participle Parseable grammar
// elements: participle drives the statement-level grammar and hands the token
// stream to these precedence-climbing parsers at every expression position.

// gExpr is an expression in the grammar.
type gExpr struct {
	X ast.Expr
}

// Parse implements participle.Parseable.
func (g *gExpr) Parse(lex *lexer.PeekingLexer) error {
	p := &exprParser{lex: lex}
	if !p.startsExpr(lex.Peek()) {
		return participle.NextMatch
	}
	if isPunct(lex.Peek(), "{") && isPunct(p.peekN(1), "}") {
		// `{}` is an empty block, never a value (`if { }` lacks a condition)
		return participle.NextMatch
	}
	x, err := p.expr()
	if err != nil {
		return err
	}
	g.X = x
	return nil
}

// gType is a type in the grammar (`let $x: uint32`).
type gType struct {
	T *ast.TypeExpr
}

// Parse implements participle.Parseable.
func (g *gType) Parse(lex *lexer.PeekingLexer) error {
	p := &exprParser{lex: lex}
	cp := lex.MakeCheckpoint()
	t, _, ok, err := p.typeExpr()
	if err != nil {
		return err
	}
	if !ok {
		lex.LoadCheckpoint(cp)
		return participle.NextMatch
	}
	g.T = t
	return nil
}

// maxExprDepth bounds expression nesting so hostile input cannot exhaust the stack.
const maxExprDepth = 1000

type exprParser struct {
	lex   *lexer.PeekingLexer
	depth int
}

// keywords cannot be used as identifiers in expressions.
var keywords = map[string]bool{
	"if": true, "else": true, "for": true, "while": true, "unroll": true,
	"return": true, "break": true, "continue": true, "let": true,
}

// builtinTypes are type names that make `(name)x` a cast and `sizeof(name)`
// a type operand without further context.
var builtinTypes = map[string]bool{
	"int8": true, "int16": true, "int32": true, "int64": true,
	"uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"bool": true, "string": true, "void": true, "buffer": true,
	"inet": true, "usym_t": true, "ksym_t": true, "timestamp": true,
	"cgroup_path_t": true, "strerror_t": true, "macaddr_t": true,
}

// cTypeWords combine into multi-word C type names such as "unsigned long".
var cTypeWords = map[string]bool{
	"unsigned": true, "signed": true, "char": true, "short": true,
	"int": true, "long": true, "float": true, "double": true,
}

// binaryPrec gives the precedence of each binary operator; higher binds
// tighter. The ternary operator has precedence 1.
var binaryPrec = map[string]int{
	"||": 2, "&&": 3, "|": 4, "^": 5, "&": 6,
	"==": 7, "!=": 7,
	"<": 8, "<=": 8, ">": 8, ">=": 8,
	"<<": 9, ">>": 9,
	"+": 10, "-": 10,
	"*": 11, "/": 11, "%": 11,
}

const precTernary = 1

func (p *exprParser) peek() *lexer.Token { return p.lex.Peek() }
func (p *exprParser) next() *lexer.Token { return p.lex.Next() }

// peekN returns the token n positions ahead (0 is the next token).
func (p *exprParser) peekN(n int) *lexer.Token {
	cp := p.lex.MakeCheckpoint()
	defer p.lex.LoadCheckpoint(cp)
	for i := 0; i < n; i++ {
		p.lex.Next()
	}
	t := *p.lex.Peek()
	return &t
}

func isPunct(t *lexer.Token, v string) bool { return t.Type == tPunct && t.Value == v }

func isKeyword(t *lexer.Token) bool { return t.Type == tIdent && keywords[t.Value] }

// describe renders a token for error messages.
func describe(t *lexer.Token) string {
	if t.EOF() {
		return "end of input"
	}
	v := t.Value
	if len(v) > 40 {
		v = v[:40] + "..."
	}
	return fmt.Sprintf("token %q", v)
}

func (p *exprParser) errorf(t *lexer.Token, format string, args ...any) error {
	return participle.Errorf(t.Pos, format, args...)
}

func (p *exprParser) unexpected(t *lexer.Token, want string) error {
	return p.errorf(t, "unexpected %s, expected %s", describe(t), want)
}

func (p *exprParser) expect(v string) (*lexer.Token, error) {
	t := p.peek()
	if !isPunct(t, v) {
		return nil, p.unexpected(t, fmt.Sprintf("%q", v))
	}
	return p.next(), nil
}

// ifValueNext reports whether the token after an "if" starts the
// condition of an if used as a value: `if (c)` or `if comptime c`.
func (p *exprParser) ifValueNext() bool {
	n := p.peekN(1)
	return isPunct(n, "(") || n.Type == tIdent && n.Value == "comptime"
}

// startsExpr reports whether t can begin an expression.
func (p *exprParser) startsExpr(t *lexer.Token) bool {
	switch t.Type {
	case tIdent:
		// `if (c) { a } else { b }` is also a value; as a statement,
		// the grammar tries an if statement first.
		return !keywords[t.Value] || t.Value == "if" && p.ifValueNext()
	case tVar, tPosParam, tMap, tInt, tChar, tString:
		return true
	case tPunct:
		switch t.Value {
		case "(", "!", "~", "-", "*", "&", "++", "--", "{":
			return true
		}
	}
	return false
}

// startsOperand reports whether t unambiguously begins an operand, i.e. it
// cannot continue an expression. Used to tell `(name)x` casts from `(name)`.
func startsOperand(t *lexer.Token) bool {
	switch t.Type {
	case tIdent:
		return !keywords[t.Value]
	case tVar, tPosParam, tMap, tInt, tChar, tString:
		return true
	}
	return isPunct(t, "(")
}

func span(start, end ast.Pos) ast.Span { return ast.Span{Start: start, End: end} }

func startOf(n ast.Node) ast.Pos { return n.GetSpan().Start }
func endOf(n ast.Node) ast.Pos   { return n.GetSpan().End }

func (p *exprParser) enter(t *lexer.Token) error {
	p.depth++
	if p.depth > maxExprDepth {
		return p.errorf(t, "expression nested too deeply")
	}
	return nil
}

func (p *exprParser) leave() { p.depth-- }

// expr parses a full expression.
func (p *exprParser) expr() (ast.Expr, error) { return p.binary(precTernary) }

// binary parses operators of precedence >= minPrec by precedence climbing.
func (p *exprParser) binary(minPrec int) (ast.Expr, error) {
	if err := p.enter(p.peek()); err != nil {
		return nil, err
	}
	defer p.leave()
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.Type != tPunct {
			return x, nil
		}
		if t.Value == "?" {
			if minPrec > precTernary {
				return x, nil
			}
			p.next()
			var then ast.Expr
			if isPunct(p.peek(), ":") {
				// a ?: b is a ? a : b
				then = ast.Clone(x)
			} else if then, err = p.operand(p.expr); err != nil {
				return nil, err
			}
			if _, err := p.expect(":"); err != nil {
				return nil, err
			}
			els, err := p.operand(func() (ast.Expr, error) { return p.binary(precTernary) })
			if err != nil {
				return nil, err
			}
			x = &ast.Ternary{Span: span(startOf(x), endOf(els)), Cond: x, Then: then, Else: els}
			continue
		}
		prec, ok := binaryPrec[t.Value]
		if !ok || prec < minPrec {
			return x, nil
		}
		p.next()
		y, err := p.operand(func() (ast.Expr, error) { return p.binary(prec + 1) })
		if err != nil {
			return nil, err
		}
		x = &ast.Binary{Span: span(startOf(x), endOf(y)), Op: t.Value, X: x, Y: y}
	}
}

// operand runs f after checking that an expression can start here, so that
// a missing operand reports "expected expression" at the right token.
func (p *exprParser) operand(f func() (ast.Expr, error)) (ast.Expr, error) {
	t := p.peek()
	if !p.startsExpr(t) {
		return nil, p.unexpected(t, "expression")
	}
	return f()
}

// unary parses prefix operators and casts.
func (p *exprParser) unary() (ast.Expr, error) {
	t := p.peek()
	if t.Type == tPunct {
		switch t.Value {
		case "!", "~", "-", "*", "&", "++", "--":
			if err := p.enter(t); err != nil {
				return nil, err
			}
			defer p.leave()
			p.next()
			x, err := p.operand(p.unary)
			if err != nil {
				return nil, err
			}
			return &ast.Unary{Span: span(toPos(t.Pos), endOf(x)), Op: t.Value, X: x}, nil
		case "(":
			if cast, err := p.tryCast(); err != nil || cast != nil {
				return cast, err
			}
		}
	}
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	return p.postfix(x)
}

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

// primary parses literals, names, calls, maps and parenthesised forms.
func (p *exprParser) primary() (ast.Expr, error) {
	t := p.peek()
	if t.Value == "{" {
		return p.blockExpr()
	}
	switch t.Type {
	case tInt, tChar:
		p.next()
		return intLit(t)
	case tString:
		p.next()
		v, err := unquote(t)
		if err != nil {
			return nil, err
		}
		return &ast.StrLit{Span: span(toPos(t.Pos), tokEnd(t)), Value: v}, nil
	case tVar:
		p.next()
		return &ast.Var{Span: span(toPos(t.Pos), tokEnd(t)), Name: t.Value}, nil
	case tPosParam:
		p.next()
		idx := -1
		if t.Value != "$#" {
			n, err := strconv.Atoi(t.Value[1:])
			if err != nil || n > 1<<20 {
				return nil, p.errorf(t, "invalid positional parameter %s", t.Value)
			}
			if n == 0 {
				return nil, p.errorf(t, "invalid positional parameter $0: parameters start at $1")
			}
			idx = n
		}
		return &ast.PosParam{Span: span(toPos(t.Pos), tokEnd(t)), Index: idx}, nil
	case tMap:
		p.next()
		m := &ast.MapRef{Span: span(toPos(t.Pos), tokEnd(t)), Name: t.Value}
		if isPunct(p.peek(), "[") {
			p.next()
			keys, end, err := p.list("]")
			if err != nil {
				return nil, err
			}
			if len(keys) == 0 {
				return nil, p.errorf(end, "empty map key: expected expression")
			}
			m.Keys = keys
			m.End = tokEnd(end)
		}
		return m, nil
	case tIdent:
		if t.Value == "if" && p.ifValueNext() {
			return p.ifExpr()
		}
		if keywords[t.Value] {
			return nil, p.unexpected(t, "expression")
		}
		if n := p.peekN(1); t.Value == "comptime" && !isPunct(n, "(") && p.startsExpr(n) {
			// comptime x is comptime(x): an operand evaluated at compile
			// time (bpftrace 0.26's `if comptime kfunc_allowed("f")`)
			p.next()
			x, err := p.operand(p.unary)
			if err != nil {
				return nil, err
			}
			return &ast.Call{Span: span(toPos(t.Pos), endOf(x)), Name: t.Value, Args: []ast.Expr{x}}, nil
		}
		p.next()
		sp := span(toPos(t.Pos), tokEnd(t))
		switch t.Value {
		case "true", "false":
			return &ast.BoolLit{Span: sp, Value: t.Value == "true"}, nil
		case "_":
			return &ast.Discard{Span: sp}, nil
		}
		if !isPunct(p.peek(), "(") {
			return &ast.Ident{Span: sp, Name: t.Value}, nil
		}
		switch t.Value {
		case "sizeof":
			return p.sizeof(t)
		case "offsetof":
			return p.offsetof(t)
		case "container_of":
			return p.containerOf(t)
		}
		p.next() // (
		args, end, err := p.list(")")
		if err != nil {
			return nil, err
		}
		return &ast.Call{Span: span(sp.Start, tokEnd(end)), Name: t.Value, Args: args}, nil
	case tPunct:
		if t.Value == "(" {
			return p.paren()
		}
	}
	return nil, p.unexpected(t, "expression")
}

// list parses `e, e, ...` up to and including the closing token.
func (p *exprParser) list(closing string) ([]ast.Expr, *lexer.Token, error) {
	var out []ast.Expr
	if isPunct(p.peek(), closing) {
		return nil, p.next(), nil
	}
	for {
		x, err := p.operand(p.expr)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, x)
		t := p.peek()
		if isPunct(t, ",") {
			p.next()
			continue
		}
		if isPunct(t, closing) {
			return out, p.next(), nil
		}
		return nil, nil, p.unexpected(t, fmt.Sprintf("\",\" or %q", closing))
	}
}

// paren parses `(x)`, tuples `(a, b)` and records `(a=1, b=2)`.
func (p *exprParser) paren() (ast.Expr, error) {
	open := p.next()
	if err := p.enter(open); err != nil {
		return nil, err
	}
	defer p.leave()
	if t := p.peek(); isPunct(t, ")") {
		// () is the empty tuple
		p.next()
		return &ast.Tuple{Span: span(toPos(open.Pos), tokEnd(t)), Elems: []ast.Expr{}}, nil
	}
	if p.peek().Type == tIdent && isPunct(p.peekN(1), "=") {
		return p.record(open)
	}
	first, err := p.operand(p.expr)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); isPunct(t, ")") {
		p.next()
		return &ast.Paren{Span: span(toPos(open.Pos), tokEnd(t)), X: first}, nil
	}
	if !isPunct(p.peek(), ",") {
		return nil, p.unexpected(p.peek(), "\")\"")
	}
	p.next()
	// (a,) is a one-element tuple; (a, b,) may end with a comma too
	elems := []ast.Expr{first}
	for {
		if t := p.peek(); isPunct(t, ")") {
			p.next()
			return &ast.Tuple{Span: span(toPos(open.Pos), tokEnd(t)), Elems: elems}, nil
		}
		x, err := p.operand(p.expr)
		if err != nil {
			return nil, err
		}
		elems = append(elems, x)
		t := p.peek()
		if isPunct(t, ",") {
			p.next()
			continue
		}
		if !isPunct(t, ")") {
			return nil, p.unexpected(t, "\",\" or \")\"")
		}
	}
}

func (p *exprParser) record(open *lexer.Token) (ast.Expr, error) {
	tup := &ast.Tuple{Names: []string{}}
	for {
		name := p.peek()
		if name.Type != tIdent {
			return nil, p.unexpected(name, "field name")
		}
		p.next()
		if _, err := p.expect("="); err != nil {
			return nil, err
		}
		x, err := p.operand(p.expr)
		if err != nil {
			return nil, err
		}
		tup.Names = append(tup.Names, name.Value)
		tup.Elems = append(tup.Elems, x)
		t := p.peek()
		if isPunct(t, ",") {
			p.next()
			continue
		}
		if isPunct(t, ")") {
			p.next()
			tup.Span = span(toPos(open.Pos), tokEnd(t))
			return tup, nil
		}
		return nil, p.unexpected(t, "\",\" or \")\"")
	}
}

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

func (p *exprParser) sizeof(name *lexer.Token) (ast.Expr, error) {
	p.next() // (
	ty, x, err := p.typeOrExpr()
	if err != nil {
		return nil, err
	}
	end, err := p.expect(")")
	if err != nil {
		return nil, err
	}
	return &ast.SizeofExpr{Span: span(toPos(name.Pos), tokEnd(end)), Type: ty, X: x}, nil
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

// postfix parses field access, indexing and postfix ++/-- after x.
func (p *exprParser) postfix(x ast.Expr) (ast.Expr, error) {
	for {
		t := p.peek()
		if t.Type != tPunct {
			return x, nil
		}
		switch t.Value {
		case ".", "->":
			p.next()
			f := p.peek()
			if f.Type != tIdent && !(f.Type == tInt && t.Value == ".") {
				return nil, p.unexpected(f, "field name")
			}
			p.next()
			x = &ast.Field{Span: span(startOf(x), tokEnd(f)), X: x, Name: f.Value, Arrow: t.Value == "->"}
		case "[":
			p.next()
			i, err := p.operand(p.expr)
			if err != nil {
				return nil, err
			}
			end, err := p.expect("]")
			if err != nil {
				return nil, err
			}
			x = &ast.Index{Span: span(startOf(x), tokEnd(end)), X: x, Index: i}
		case "++", "--":
			p.next()
			x = &ast.Unary{Span: span(startOf(x), tokEnd(t)), Op: t.Value, X: x, Postfix: true}
		default:
			return x, nil
		}
	}
}

// durationSuffixes are the unit suffixes accepted on decimal integer literals.
var durationSuffixes = []string{"ns", "us", "ms", "s", "m", "h", "d"}

// cIntSuffixes are C's integer suffixes that bpftrace 0.26 accepts and
// ignores but for the range they allow (u: 32 bits, l and ll: 63, ul and
// ull: 64), its documentation's 123UL in either case.
var cIntSuffixes = []string{"ull", "ul", "ll", "u", "l"}

// splitCIntSuffix splits a C integer suffix, in lower case, off a literal.
func splitCIntSuffix(text string) (body, suffix string) {
	for _, s := range cIntSuffixes {
		n := len(text) - len(s)
		if n > 0 && strings.EqualFold(text[n:], s) && isHexDigit(text[n-1]) {
			return text[:n], s
		}
	}
	return text, ""
}

func isHexDigit(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// intLit converts an Int or Char token to an IntLit.
func intLit(t *lexer.Token) (lit *ast.IntLit, err error) {
	lit = &ast.IntLit{Span: span(toPos(t.Pos), tokEnd(t)), Text: t.Value}
	if t.Type == tChar {
		v, err := unquoteChar(t)
		if err != nil {
			return nil, err
		}
		lit.Value = v
		return lit, nil
	}
	bad := func() error { return participle.Errorf(t.Pos, "invalid integer literal %q", t.Value) }
	text, csuffix := splitCIntSuffix(t.Value)
	if strings.HasSuffix(text, "_") || strings.Contains(text, "__") {
		return nil, bad()
	}
	defer func() {
		// 1u holds 32 bits, 1l and 1ll 63: beyond is out of range
		if lit != nil && err == nil && (csuffix == "u" && lit.Value > math.MaxUint32 || csuffix[:min(1, len(csuffix))] == "l" && lit.Value > math.MaxInt64) {
			lit, err = nil, participle.Errorf(t.Pos, "integer literal %q out of range", t.Value)
		}
	}()
	base := 10
	digits := text
	switch {
	case len(text) > 2 && (text[:2] == "0x" || text[:2] == "0X"):
		base, digits = 16, text[2:]
	case len(text) > 2 && (text[:2] == "0b" || text[:2] == "0B"):
		base, digits = 2, text[2:]
	}
	digits = strings.ReplaceAll(digits, "_", "")
	if base == 10 {
		// Split a duration suffix or exponent off the decimal digits.
		i := 0
		for i < len(digits) && isDigit(digits[i]) {
			i++
		}
		rest := digits[i:]
		digits = digits[:i]
		exp := 0
		if len(rest) > 1 && (rest[0] == 'e' || rest[0] == 'E') && isAllDigits(rest[1:]) {
			n, err := strconv.Atoi(rest[1:])
			if err != nil || n > 19 {
				return nil, participle.Errorf(t.Pos, "integer literal %q out of range", t.Value)
			}
			exp, rest = n, ""
		}
		if rest != "" {
			found := false
			for _, s := range durationSuffixes {
				if rest == s {
					found = true
				}
			}
			if !found {
				return nil, bad()
			}
			lit.Suffix = rest
		}
		if len(digits) > 1 && digits[0] == '0' && exp == 0 && lit.Suffix == "" {
			base = 8
		}
		v, err := strconv.ParseUint(digits, base, 64)
		if err != nil {
			if base == 8 {
				return nil, bad()
			}
			return nil, participle.Errorf(t.Pos, "integer literal %q out of range", t.Value)
		}
		for ; exp > 0; exp-- {
			hi, lo := bits.Mul64(v, 10)
			if hi != 0 {
				return nil, participle.Errorf(t.Pos, "integer literal %q out of range", t.Value)
			}
			v = lo
		}
		lit.Value = v
		return lit, nil
	}
	if digits == "" {
		return nil, bad()
	}
	v, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return nil, participle.Errorf(t.Pos, "integer literal %q out of range", t.Value)
		}
		return nil, bad()
	}
	lit.Value = v
	return lit, nil
}

func isAllDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}

// unquote decodes a string literal token with C escapes.
func unquote(t *lexer.Token) (string, error) {
	raw := t.Value
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", participle.Errorf(t.Pos, "unterminated string literal")
	}
	return unescape(t, raw[1:len(raw)-1], 1)
}

func unquoteChar(t *lexer.Token) (uint64, error) {
	raw := t.Value
	if len(raw) < 2 || raw[len(raw)-1] != '\'' {
		return 0, participle.Errorf(t.Pos, "unterminated character literal")
	}
	s, err := unescape(t, raw[1:len(raw)-1], 1)
	if err != nil {
		return 0, err
	}
	if len(s) != 1 {
		return 0, participle.Errorf(t.Pos, "character literal %s must contain exactly one byte", raw)
	}
	return uint64(s[0]), nil
}

// unescape decodes C escapes in s, which starts at byte offset base inside
// token t (used to position errors).
func unescape(t *lexer.Token, s string, base int) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		at := posIn(t, base+i)
		if i+1 >= len(s) {
			return "", participle.Errorf(at, "invalid escape sequence at end of string")
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case 'e':
			b.WriteByte(0x1b)
		case '\\', '"', '\'', '?':
			b.WriteByte(e)
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				return "", participle.Errorf(at, `invalid escape sequence "\x": expected hex digits`)
			}
			v, _ := strconv.ParseUint(s[i+1:j], 16, 8)
			b.WriteByte(byte(v))
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i:j], 8, 16)
			if v > 255 {
				return "", participle.Errorf(at, "octal escape sequence \\%s out of range", s[i:j])
			}
			b.WriteByte(byte(v))
			i = j - 1
		default:
			return "", participle.Errorf(at, "invalid escape sequence \"\\%c\"", e)
		}
	}
	return b.String(), nil
}

// posIn is the position of byte n of token t's text: a string literal
// may hold newlines, after which lines and columns start again.
func posIn(t *lexer.Token, n int) lexer.Position {
	at := t.Pos
	at.Offset += n
	text := t.Value
	if n > len(text) {
		n = len(text)
	}
	if k := strings.LastIndexByte(text[:n], '\n'); k >= 0 {
		at.Line += strings.Count(text[:n], "\n")
		at.Column = n - k
		return at
	}
	at.Column += n
	return at
}

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// blockParser parses a block inside an expression (a block expression):
// the statement grammar is participle's, driven from here.
var blockParser = sync.OnceValue(func() *participle.Parser[gBlock] {
	return participle.MustBuild[gBlock](
		participle.Lexer(lexDefinition{}),
		participle.UseLookahead(0),
	)
})

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
	return &ast.Ternary{Span: span(toPos(kw.Pos), endOf(els)), Cond: unparen(cond), Then: then, Else: els}, nil
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
