package syntax

import (
	"math"
	"math/bits"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gotrace/gotrace/lang/ast"
)

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
