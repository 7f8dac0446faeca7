package syntax

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"
)

// peekWord returns the identifier starting at the current offset, if any.
func (s *scanner) peekWord() string {
	i := s.off
	if i >= len(s.src) || !isIdentStart(s.src[i]) {
		return ""
	}
	for i < len(s.src) && isIdentChar(s.src[i]) {
		i++
	}
	return s.src[s.off:i]
}

// lexTop handles the start of a top-level item: a preprocessor line, a C
// definition, `config =`, `import "`, `macro`, `let @`, or an attach point.
func (s *scanner) lexTop() *Error {
	c := s.src[s.off]
	if c == '#' {
		start := s.pos()
		for s.off < len(s.src) {
			ch := s.src[s.off]
			if ch == '\n' {
				break
			}
			if ch == '\\' && s.at(1) == '\n' {
				s.advance(2)
				continue
			}
			if ch == '\\' && s.at(1) == '\r' && s.at(2) == '\n' {
				s.advance(3)
				continue
			}
			s.advance(1)
		}
		s.toks = append(s.toks, lexer.Token{Type: tCDef, Value: strings.TrimRight(s.src[start.Offset:s.off], " \t\r"), Pos: start})
		return nil
	}
	word := s.peekWord()
	after := skipLayoutAt(s.src, s.off+len(word))
	next := byte(0)
	if after < len(s.src) {
		next = s.src[after]
	}
	switch word {
	case "struct", "union", "enum", "typedef":
		if word == "typedef" || s.looksLikeCDef() {
			return s.lexCDef(word)
		}
	case "config":
		if next == '=' {
			s.mode = modeNormal
			return s.lexToken()
		}
	case "import":
		if next == '"' {
			s.mode = modeNormal
			return s.lexToken()
		}
	case "macro":
		if isIdentStart(next) {
			s.mode = modeNormal
			return s.lexToken()
		}
	case "let":
		if next == '@' {
			s.mode = modeNormal
			return s.lexToken()
		}
	}
	if s.startsAttach() {
		return s.lexAttach()
	}
	s.mode = modeNormal
	return s.lexToken()
}

// looksLikeCDef reports whether a struct/union/enum keyword at the current
// offset starts a C definition (keyword, identifiers, then '{') rather than
// an attach point.
func (s *scanner) looksLikeCDef() bool {
	i := s.off
	for i < len(s.src) {
		i = skipLayoutAt(s.src, i)
		if i >= len(s.src) {
			return false
		}
		c := s.src[i]
		switch {
		case c == '{':
			return true
		case isIdentStart(c):
			for i < len(s.src) && isIdentChar(s.src[i]) {
				i++
			}
		case c == '(' || c == ')':
			// __attribute__((packed))
			i++
		default:
			return false
		}
	}
	return false
}

// lexCDef consumes a C definition up to and including its terminating ';'
// at brace depth zero.
func (s *scanner) lexCDef(word string) *Error {
	start := s.pos()
	depth := 0
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case c == '/' && (s.at(1) == '/' || s.at(1) == '*'):
			if err := s.skipLayout(); err != nil {
				return err
			}
			continue
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 && word != "typedef" {
				// `struct foo { ... }` may omit the ';', also after
				// attributes: `} __attribute__((packed))`.
				end := attributesEnd(s.src, s.off+1)
				i := skipLayoutAt(s.src, end)
				if i >= len(s.src) || s.src[i] != ';' {
					s.advance(end - s.off)
					s.emit(tCDef, start)
					return nil
				}
			}
		case c == ';' && depth <= 0:
			s.advance(1)
			s.emit(tCDef, start)
			return nil
		}
		s.advance(1)
	}
	return s.errorf(start, "unterminated C definition: missing ';'")
}

// attributesEnd returns the offset past the `__attribute__((...))`
// specifiers (with layout between them) starting at or after off, or off
// when there are none.
func attributesEnd(src string, off int) int {
	for {
		i := skipLayoutAt(src, off)
		if !strings.HasPrefix(src[i:], "__attribute__") {
			return off
		}
		j := skipLayoutAt(src, i+len("__attribute__"))
		if j >= len(src) || src[j] != '(' {
			return off
		}
		depth := 0
		for ; j < len(src); j++ {
			if src[j] == '(' {
				depth++
			} else if src[j] == ')' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if j >= len(src) {
			return off
		}
		off = j + 1
	}
}

func (s *scanner) startsAttach() bool {
	c := s.src[s.off]
	// `$1 { }`: a positional parameter holds the whole attach point
	return isIdentStart(c) || isDigit(c) || c == '*' || c == '?' || c == '"' || c == '.' || c == '$' && isDigit(s.at(1))
}

// lexAttach consumes one attach point. It ends at whitespace, ',', '{' (unless
// the brace opens a `{a,b}` wildcard alternation), or a '/' that precedes
// any ':' (the start of a predicate, as in `BEGIN/x/`).
func (s *scanner) lexAttach() *Error {
	start := s.pos()
	sawColon := false
	for s.off < len(s.src) {
		c := s.src[s.off]
		if isSpace(c) || c == ',' {
			break
		}
		if c == '{' {
			n := s.wildcardBraceLen()
			if n == 0 {
				break
			}
			s.advance(n)
			continue
		}
		if c == '/' && !sawColon {
			break
		}
		if c == ':' {
			sawColon = true
		}
		if c == '"' {
			qstart := s.pos()
			s.advance(1)
			for {
				if s.off >= len(s.src) || s.src[s.off] == '\n' {
					return s.errorf(qstart, "unterminated string literal")
				}
				if s.src[s.off] == '\\' {
					s.advance(2)
					continue
				}
				if s.src[s.off] == '"' {
					s.advance(1)
					break
				}
				s.advance(1)
			}
			continue
		}
		s.advance(1)
	}
	s.emit(tAttach, start)
	s.mode = modeAfterAttach
	return nil
}

// wildcardBraceLen returns the length of a `{a,b}` alternation at the current
// offset, or 0 if the brace opens a block instead. An alternation contains at
// least one ',' and only attach-point characters.
func (s *scanner) wildcardBraceLen() int {
	comma := false
	for i := s.off + 1; i < len(s.src); i++ {
		c := s.src[i]
		switch {
		case c == '}':
			if comma && i > s.off+1 {
				return i - s.off + 1
			}
			return 0
		case c == ',':
			comma = true
		case isIdentChar(c) || c == '*' || c == '?' || c == '.' || c == '-' || c == '+':
		default:
			return 0
		}
	}
	return 0
}

func (s *scanner) lexAfterAttach() *Error {
	c := s.src[s.off]
	switch c {
	case ',':
		start := s.pos()
		s.advance(1)
		s.emit(tPunct, start)
		s.mode = modeAttach
		return nil
	case '/':
		start := s.pos()
		s.advance(1)
		s.emit(tPredOpen, start)
		s.inPred = true
		s.mode = modeNormal
		return nil
	}
	s.mode = modeNormal
	return s.lexToken()
}
