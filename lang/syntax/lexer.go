package syntax

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gotrace/gotrace/lang/srcpos"
)

// Token types produced by the script lexer. The lexer is hand-written because
// bpftrace's lexing is context sensitive: attach points (which may contain
// '/', '*', ':' and quoted paths), the '/' delimiters of a predicate, and raw
// C definitions in the preamble all depend on where in the script we are.
const (
	tEOF       lexer.TokenType = lexer.EOF
	tIdent     lexer.TokenType = iota + 1 // foo, if, struct, ...
	tVar                                  // $name
	tPosParam                             // $1, $#
	tMap                                  // @name or @
	tInt                                  // 123, 0x1f, 10ms, 1_000
	tChar                                 // 'a'
	tString                               // "..." (raw, with quotes)
	tPunct                                // operators and punctuation
	tAttach                               // an attach point, verbatim
	tPredOpen                             // the '/' opening a predicate
	tPredClose                            // the '/' closing a predicate
	tCDef                                 // a raw C definition or preprocessor line
	tShebang                              // "#!..." first line
)

var tokenSymbols = map[string]lexer.TokenType{
	"EOF":       tEOF,
	"Ident":     tIdent,
	"Var":       tVar,
	"PosParam":  tPosParam,
	"Map":       tMap,
	"Int":       tInt,
	"Char":      tChar,
	"String":    tString,
	"Punct":     tPunct,
	"Attach":    tAttach,
	"PredOpen":  tPredOpen,
	"PredClose": tPredClose,
	"CDef":      tCDef,
	"Shebang":   tShebang,
}

// maxBlockDepth bounds '{' nesting so hostile input cannot exhaust the stack.
const maxBlockDepth = 256

// maxTokens bounds the tokens of a script: far above any real script (the
// largest bpftrace tools have a few thousand), and low enough that a
// hostile one (a 1M-term chain, 2M tokens; 200k statements, 800k) stops
// here rather than in the stages after the lexer, whose memory grows with
// the tokens (about 1 GB per million).
const maxTokens = 500_000

// lexDefinition is the participle lexer.Definition for scripts. Parse does
// not call Lex through participle (it lexes first, to report lexical errors
// with positions itself), but participle needs the symbol table.
type lexDefinition struct{}

func (lexDefinition) Symbols() map[string]lexer.TokenType {
	out := make(map[string]lexer.TokenType, len(tokenSymbols))
	for k, v := range tokenSymbols {
		out[k] = v
	}
	return out
}

func (lexDefinition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", filename, err)
	}
	toks, lerr := lexScript(filename, string(b))
	if lerr != nil {
		return nil, lerr
	}
	return &sliceLexer{toks: toks}, nil
}

// sliceLexer replays a token slice; the last token must be EOF.
type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (l *sliceLexer) Next() (lexer.Token, error) {
	t := l.toks[l.i]
	if l.i < len(l.toks)-1 {
		l.i++
	}
	return t, nil
}

// lexMode says what the lexer expects at the current point of a script.
type lexMode int

const (
	modeTop         lexMode = iota // start of a top-level item
	modeAttach                     // after ',' in an attach point list
	modeAfterAttach                // after an attach point: ',', '/' or '{'
	modeNormal                     // ordinary tokens
)

type scanner struct {
	name string
	src  string
	off  int
	line int
	col  int

	mode   lexMode
	depth  int  // '{' nesting
	inPred bool // between the '/' delimiters of a predicate
	toks   []lexer.Token
}

// lexScript tokenises a whole script.
func lexScript(name, src string) ([]lexer.Token, *Error) {
	s := &scanner{name: name, src: src, line: 1, col: 1, mode: modeTop}
	return s.run()
}

// lexExpr tokenises a lone expression (no probes, no attach points).
func lexExpr(name, src string) ([]lexer.Token, *Error) {
	s := &scanner{name: name, src: src, line: 1, col: 1, mode: modeNormal, depth: 1}
	return s.run()
}

func (s *scanner) pos() lexer.Position {
	return lexer.Position{Filename: s.name, Offset: s.off, Line: s.line, Column: s.col}
}

func (s *scanner) errorf(p lexer.Position, format string, args ...any) *Error {
	return &Error{Pos: toPos(p), Msg: fmt.Sprintf(format, args...)}
}

// advance moves n bytes forward, tracking line and column (columns count bytes).
func (s *scanner) advance(n int) {
	for i := 0; i < n && s.off < len(s.src); i++ {
		if s.src[s.off] == '\n' {
			s.line++
			s.col = 1
		} else {
			s.col++
		}
		s.off++
	}
}

func (s *scanner) at(i int) byte {
	if s.off+i < len(s.src) && s.off+i >= 0 {
		return s.src[s.off+i]
	}
	return 0
}

func (s *scanner) emit(typ lexer.TokenType, start lexer.Position) {
	s.toks = append(s.toks, lexer.Token{Type: typ, Value: s.src[start.Offset:s.off], Pos: start})
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipLayout skips whitespace and comments starting at byte offset i and
// returns the offset of the next significant byte. It does not move the scanner.
func skipLayoutAt(src string, i int) int {
	for i < len(src) {
		c := src[i]
		switch {
		case isSpace(c):
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				return len(src)
			}
			i += 2 + end + 2
		default:
			return i
		}
	}
	return i
}

// skipLayout consumes whitespace and comments.
func (s *scanner) skipLayout() *Error {
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case isSpace(c):
			s.advance(1)
		case c == '/' && s.at(1) == '/':
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.advance(1)
			}
		case c == '/' && s.at(1) == '*':
			start := s.pos()
			end := strings.Index(s.src[s.off+2:], "*/")
			if end < 0 {
				return s.errorf(start, "unterminated comment")
			}
			s.advance(2 + end + 2)
		default:
			return nil
		}
	}
	return nil
}

func (s *scanner) run() ([]lexer.Token, *Error) {
	// About one token per 4 bytes of script: sized once, the token slice
	// is not copied over and over as a large script is read.
	s.toks = make([]lexer.Token, 0, min(len(s.src)/4+16, maxTokens+1))
	if strings.HasPrefix(s.src, "#!") && s.mode == modeTop {
		start := s.pos()
		for s.off < len(s.src) && s.src[s.off] != '\n' {
			s.advance(1)
		}
		// Drop a trailing '\r' from the token so the shebang is clean.
		s.toks = append(s.toks, lexer.Token{Type: tShebang, Value: strings.TrimRight(s.src[:s.off], "\r"), Pos: start})
	}
	for {
		if err := s.skipLayout(); err != nil {
			return nil, err
		}
		if s.off >= len(s.src) {
			s.toks = append(s.toks, lexer.EOFToken(s.pos()))
			return s.toks, nil
		}
		var err *Error
		switch {
		case s.mode == modeTop && s.depth == 0:
			err = s.lexTop()
		case s.mode == modeAttach && s.depth == 0:
			if s.startsAttach() {
				err = s.lexAttach()
			} else {
				s.mode = modeNormal
				err = s.lexToken()
			}
		case s.mode == modeAfterAttach:
			err = s.lexAfterAttach()
		default:
			err = s.lexToken()
		}
		if err != nil {
			return nil, err
		}
		if len(s.toks) > maxTokens {
			return nil, s.errorf(s.toks[len(s.toks)-1].Pos, "program too long: more than %d tokens", maxTokens)
		}
	}
}

// puncts lists operators, longest first within each leading byte.
var puncts = []string{
	"<<=", ">>=",
	"->", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
	"<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "..",
	"+", "-", "*", "/", "%", "&", "|", "^", "!", "~", "<", ">", "=", "?",
	":", ";", ",", ".", "(", ")", "[", "]", "{", "}",
}

// lexToken lexes one ordinary token.
func (s *scanner) lexToken() *Error {
	start := s.pos()
	c := s.src[s.off]
	switch {
	case isIdentStart(c):
		for s.off < len(s.src) && isIdentChar(s.src[s.off]) {
			s.advance(1)
		}
		s.emit(tIdent, start)
		return nil
	case isDigit(c):
		for s.off < len(s.src) && isIdentChar(s.src[s.off]) {
			s.advance(1)
		}
		s.emit(tInt, start)
		return nil
	case c == '$':
		s.advance(1)
		switch {
		case s.at(0) == '#':
			s.advance(1)
			s.emit(tPosParam, start)
		case isDigit(s.at(0)):
			for s.off < len(s.src) && isDigit(s.src[s.off]) {
				s.advance(1)
			}
			if isIdentStart(s.at(0)) {
				return s.errorf(start, "invalid variable name %q", s.src[start.Offset:s.off+1])
			}
			s.emit(tPosParam, start)
		case isIdentStart(s.at(0)):
			for s.off < len(s.src) && isIdentChar(s.src[s.off]) {
				s.advance(1)
			}
			s.emit(tVar, start)
		default:
			return s.errorf(start, "expected a variable name after '$'")
		}
		return nil
	case c == '@':
		s.advance(1)
		for s.off < len(s.src) && isIdentChar(s.src[s.off]) {
			s.advance(1)
		}
		s.emit(tMap, start)
		return nil
	case c == '"':
		// A string may span lines, as in bpftrace.
		s.advance(1)
		for {
			if s.off >= len(s.src) {
				return s.errorf(start, "unterminated string literal")
			}
			ch := s.src[s.off]
			if ch == '\\' {
				if s.off+1 >= len(s.src) {
					return s.errorf(start, "unterminated string literal")
				}
				s.advance(2)
				continue
			}
			s.advance(1)
			if ch == '"' {
				break
			}
		}
		s.emit(tString, start)
		return nil
	case c == '\'':
		s.advance(1)
		for {
			if s.off >= len(s.src) || s.src[s.off] == '\n' {
				return s.errorf(start, "unterminated character literal")
			}
			ch := s.src[s.off]
			if ch == '\\' {
				s.advance(2)
				continue
			}
			s.advance(1)
			if ch == '\'' {
				break
			}
		}
		s.emit(tChar, start)
		return nil
	}
	if c == '/' && s.inPred {
		// A '/' followed by '{' closes the predicate; anything else divides.
		i := skipLayoutAt(s.src, s.off+1)
		if i < len(s.src) && s.src[i] == '{' {
			s.advance(1)
			s.emit(tPredClose, start)
			s.inPred = false
			return nil
		}
	}
	for _, p := range puncts {
		if strings.HasPrefix(s.src[s.off:], p) {
			s.advance(len(p))
			s.emit(tPunct, start)
			switch p {
			case "{":
				s.depth++
				if s.depth > maxBlockDepth {
					return s.errorf(start, "blocks nested too deeply")
				}
			case "}":
				if s.depth > 0 {
					s.depth--
				}
				if s.depth == 0 {
					s.mode = modeTop
					s.inPred = false
				}
			case ";":
				if s.depth == 0 {
					s.mode = modeTop
				}
			}
			return nil
		}
	}
	if c >= 0x80 {
		r, _ := utf8.DecodeRuneInString(s.src[s.off:])
		return s.errorf(start, "unexpected character %q", r)
	}
	if c < 0x20 || c == 0x7f {
		return s.errorf(start, "unexpected character %q", rune(c))
	}
	return s.errorf(start, "unexpected character '%c'", c)
}

// toPos converts a participle position to an ast position.
func toPos(p lexer.Position) srcpos.Pos {
	return srcpos.Pos{Filename: p.Filename, Offset: p.Offset, Line: p.Line, Column: p.Column}
}

// tokEnd returns the position just past token t. Columns count bytes.
func tokEnd(t *lexer.Token) srcpos.Pos {
	p := toPos(t.Pos)
	v := t.Value
	p.Offset += len(v)
	if i := strings.LastIndexByte(v, '\n'); i >= 0 {
		p.Line += strings.Count(v, "\n")
		p.Column = len(v) - i
	} else {
		p.Column += len(v)
	}
	return p
}
