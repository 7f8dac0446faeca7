package cmacro

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrNotConstant is returned by Eval when an expression is not an integer
// constant expression it can evaluate (a cast, a call, a string, an unknown
// name outside #if).
var ErrNotConstant = errors.New("not an integer constant expression")

// Defs returns the body of an object-like macro and whether it is
// defined.
type Defs func(name string) (body string, ok bool)

// Eval evaluates expr, an integer constant expression in C syntax, with
// 64-bit arithmetic. Identifiers are expanded through lookup, recursively.
// With cond set, expr is the condition of an #if: `defined X` and
// `defined(X)` test lookup, and names that are not macros count as 0, as in
// C; otherwise an unknown name is an error wrapping ErrNotConstant.
func Eval(expr string, lookup Defs, cond bool) (int64, error) {
	e := &evaluator{lookup: lookup, cond: cond, active: map[string]bool{}}
	return e.eval(expr)
}

// MaxExpansions bounds the macro expansions of one Eval: macros that each
// name the next twice double at every level (#define A1 (A0 + A0)), and
// forty levels would take hours.
const MaxExpansions = 10_000

// ErrTooManyExpansions is returned by Eval past MaxExpansions.
var ErrTooManyExpansions = fmt.Errorf("macro expansion exceeds %d expansions (macros naming macros several times grow exponentially)", MaxExpansions)

type evaluator struct {
	lookup     Defs
	cond       bool
	active     map[string]bool // macros being expanded, against recursion
	expansions int
}

func (e *evaluator) eval(expr string) (int64, error) {
	toks, err := tokenize(expr)
	if err != nil {
		return 0, err
	}
	p := &parser{e: e, toks: toks}
	v, err := p.ternary()
	if err != nil {
		return 0, err
	}
	if p.i != len(p.toks) {
		return 0, fmt.Errorf("unexpected %q: %w", p.toks[p.i], ErrNotConstant)
	}
	return v, nil
}

// tokenize splits a C expression into identifiers, numbers, character
// literals and operators.
func tokenize(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\':
			i++
		case isIdentStart(c) || isDigit(c):
			j := i
			for j < len(s) && (isIdentStart(s[j]) || isDigit(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		case c == '\'':
			j := i + 1
			for j < len(s) && s[j] != '\'' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated character literal: %w", ErrNotConstant)
			}
			toks = append(toks, s[i:j+1])
			i = j + 1
		default:
			op := ""
			for _, o := range []string{"<<", ">>", "<=", ">=", "==", "!=", "&&", "||"} {
				if strings.HasPrefix(s[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				if !strings.ContainsRune("()!~-+*/%<>&^|?:,", rune(c)) {
					return nil, fmt.Errorf("unexpected character %q: %w", c, ErrNotConstant)
				}
				op = s[i : i+1]
			}
			toks = append(toks, op)
			i += len(op)
		}
	}
	return toks, nil
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// parser is a precedence-climbing evaluator over tokens.
type parser struct {
	e    *evaluator
	toks []string
	i    int
}

func (p *parser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *parser) next() string {
	t := p.peek()
	p.i++
	return t
}

func (p *parser) expect(t string) error {
	if got := p.next(); got != t {
		return fmt.Errorf("expected %q, got %q: %w", t, got, ErrNotConstant)
	}
	return nil
}

func (p *parser) ternary() (int64, error) {
	c, err := p.binary(0)
	if err != nil || p.peek() != "?" {
		return c, err
	}
	p.next()
	a, err := p.ternary()
	if err != nil {
		return 0, err
	}
	if err := p.expect(":"); err != nil {
		return 0, err
	}
	b, err := p.ternary()
	if err != nil {
		return 0, err
	}
	if c != 0 {
		return a, nil
	}
	return b, nil
}

// binaryPrec lists the binary operators from the loosest binding.
var binaryPrec = [][]string{
	{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="},
	{"<", "<=", ">", ">="}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"},
}

func (p *parser) binary(level int) (int64, error) {
	if level == len(binaryPrec) {
		return p.unary()
	}
	x, err := p.binary(level + 1)
	if err != nil {
		return 0, err
	}
	for {
		op := p.peek()
		found := false
		for _, o := range binaryPrec[level] {
			if o == op {
				found = true
			}
		}
		if !found {
			return x, nil
		}
		p.next()
		y, err := p.binary(level + 1)
		if err != nil {
			return 0, err
		}
		if x, err = apply(op, x, y); err != nil {
			return 0, err
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func apply(op string, x, y int64) (int64, error) {
	switch op {
	case "||":
		return b2i(x != 0 || y != 0), nil
	case "&&":
		return b2i(x != 0 && y != 0), nil
	case "|":
		return x | y, nil
	case "^":
		return x ^ y, nil
	case "&":
		return x & y, nil
	case "==":
		return b2i(x == y), nil
	case "!=":
		return b2i(x != y), nil
	case "<":
		return b2i(x < y), nil
	case "<=":
		return b2i(x <= y), nil
	case ">":
		return b2i(x > y), nil
	case ">=":
		return b2i(x >= y), nil
	case "<<":
		return x << uint64(y&63), nil
	case ">>":
		return x >> uint64(y&63), nil
	case "+":
		return x + y, nil
	case "-":
		return x - y, nil
	case "*":
		return x * y, nil
	case "/", "%":
		if y == 0 {
			return 0, fmt.Errorf("division by zero: %w", ErrNotConstant)
		}
		if op == "/" {
			return x / y, nil
		}
		return x % y, nil
	}
	return 0, fmt.Errorf("unknown operator %q: %w", op, ErrNotConstant)
}

func (p *parser) unary() (int64, error) {
	switch op := p.peek(); op {
	case "!", "~", "-", "+":
		p.next()
		x, err := p.unary()
		if err != nil {
			return 0, err
		}
		switch op {
		case "!":
			return b2i(x == 0), nil
		case "~":
			return ^x, nil
		case "-":
			return -x, nil
		}
		return x, nil
	}
	return p.primary()
}

func (p *parser) primary() (int64, error) {
	t := p.next()
	switch {
	case t == "(":
		v, err := p.ternary()
		if err != nil {
			return 0, err
		}
		return v, p.expect(")")
	case t == "":
		return 0, fmt.Errorf("unexpected end of expression: %w", ErrNotConstant)
	case isDigit(t[0]):
		return parseInt(t)
	case t[0] == '\'':
		return parseChar(t)
	case t == "defined" && p.e.cond:
		paren := p.peek() == "("
		if paren {
			p.next()
		}
		name := p.next()
		if name == "" || !isIdentStart(name[0]) {
			return 0, fmt.Errorf("defined needs a macro name: %w", ErrNotConstant)
		}
		if paren {
			if err := p.expect(")"); err != nil {
				return 0, err
			}
		}
		_, ok := p.e.lookup(name)
		return b2i(ok), nil
	case isIdentStart(t[0]):
		return p.e.ident(t)
	}
	return 0, fmt.Errorf("unexpected %q: %w", t, ErrNotConstant)
}

func (e *evaluator) ident(name string) (int64, error) {
	body, ok := e.lookup(name)
	if !ok || e.active[name] {
		if e.cond {
			return 0, nil
		}
		return 0, fmt.Errorf("%s is not a constant: %w", name, ErrNotConstant)
	}
	if e.expansions++; e.expansions > MaxExpansions {
		return 0, ErrTooManyExpansions
	}
	e.active[name] = true
	defer delete(e.active, name)
	return e.eval(body)
}

// parseInt reads a C integer literal: decimal, octal, hex or binary, with
// optional u/l suffixes.
func parseInt(t string) (int64, error) {
	s := strings.TrimRight(t, "uUlL")
	base := 10
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		base, s = 16, s[2:]
	case strings.HasPrefix(s, "0b") || strings.HasPrefix(s, "0B"):
		base, s = 2, s[2:]
	case len(s) > 1 && s[0] == '0':
		base, s = 8, s[1:]
	}
	n, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return 0, fmt.Errorf("bad integer %q: %w", t, ErrNotConstant)
	}
	return int64(n), nil
}

// parseChar reads a C character literal such as 'a' or '\n'.
func parseChar(t string) (int64, error) {
	s, err := strconv.Unquote(t)
	if err != nil || len(s) != 1 {
		return 0, fmt.Errorf("bad character literal %s: %w", t, ErrNotConstant)
	}
	return int64(s[0]), nil
}
