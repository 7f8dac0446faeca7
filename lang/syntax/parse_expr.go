package syntax

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
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

// maxChainLength bounds the operators of an expression that are chained
// rather than nested (1 + 1 + ... + 1): each makes the tree one level
// deeper for every later stage, which walks it recursively.
const maxChainLength = 20000

type exprParser struct {
	lex   *lexer.PeekingLexer
	depth int
	chain int // operators chained in the expressions being parsed
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

func span(start, end srcpos.Pos) srcpos.Span { return srcpos.Span{Start: start, End: end} }

func startOf(n ast.Node) srcpos.Pos { return n.GetSpan().Start }
func endOf(n ast.Node) srcpos.Pos   { return n.GetSpan().End }

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
	chained := p.chain
	defer func() { p.chain = chained }()
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
		if p.chain++; p.chain > maxChainLength {
			return nil, p.errorf(t, "expression too long: more than %d operators in a chain", maxChainLength)
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
		if t.Value == "typeof" && isPunct(p.peekN(1), "(") {
			// a type as a value: a macro's argument
			ty, _, _, err := p.typeofExpr()
			if err != nil {
				return nil, err
			}
			return &ast.TypeArg{Span: ty.Span, Type: ty}, nil
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
		case "typeinfo":
			return p.typeinfo(t)
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

// blockParser parses a block inside an expression (a block expression):
// the statement grammar is participle's, driven from here.
var blockParser = sync.OnceValue(func() *participle.Parser[gBlock] {
	return participle.MustBuild[gBlock](
		participle.Lexer(lexDefinition{}),
		participle.UseLookahead(0),
	)
})
