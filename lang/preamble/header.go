package preamble

import (
	"strings"
	"unicode"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
)

// headerDefs splits an imported C header into the items a script's
// preamble holds, each positioned in the header: its preprocessor lines
// (with their continuations) and its type definitions (struct, union and
// enum definitions, typedefs). Its other declarations (function
// prototypes and definitions, variables, forward declarations) are left
// out: gotrace has no C functions, and types need their definitions.
func headerDefs(src *srcpos.Source) []*ast.CDef {
	h := &headerScanner{src: src, line: 1, col: 1}
	var defs []*ast.CDef
	for {
		h.skipLayout()
		if h.off >= len(src.Text) {
			return defs
		}
		start := h.pos()
		var keep bool
		if src.Text[h.off] == '#' {
			h.directive()
			keep = true
		} else {
			keep = typeDefinition(h.declaration())
		}
		if keep {
			text := strings.TrimRight(src.Text[start.Offset:h.off], " \t\r")
			end := start.Advance(text)
			defs = append(defs, &ast.CDef{Span: srcpos.Span{Start: start, End: end}, Text: text})
		}
	}
}

// typeDefinition reports whether a declaration of a header defines a
// type: a struct, union or enum with a body, or a typedef that is not of a
// function type (which scripts cannot use).
func typeDefinition(decl string) bool {
	toks := CTokens(decl)
	if len(toks) == 0 {
		return false
	}
	switch toks[0] {
	case "typedef", "struct", "union", "enum":
	default:
		return false
	}
	// The first '{', '(' or ';' outside attributes and braces decides.
	depth := 0
	for i := 0; i < len(toks); i++ {
		switch t := toks[i]; {
		case t == "__attribute__":
			// Skip its parenthesized arguments.
			n := 0
			for i++; i < len(toks); i++ {
				if toks[i] == "(" {
					n++
				} else if toks[i] == ")" {
					n--
					if n == 0 {
						break
					}
				}
			}
		case t == "{":
			if toks[0] != "typedef" {
				return true
			}
			depth++
		case t == "}":
			depth--
		case depth > 0:
		case t == "(":
			return false
		case t == ";":
			return toks[0] == "typedef"
		}
	}
	return toks[0] == "typedef"
}

// headerScanner walks a header's text, keeping the line and column.
type headerScanner struct {
	src       *srcpos.Source
	off       int
	line, col int
}

func (h *headerScanner) pos() srcpos.Pos {
	return srcpos.Pos{Filename: h.src.Name, Offset: h.off, Line: h.line, Column: h.col, Src: h.src}
}

// advance moves past n bytes.
func (h *headerScanner) advance(n int) {
	for ; n > 0 && h.off < len(h.src.Text); n-- {
		if h.src.Text[h.off] == '\n' {
			h.line++
			h.col = 1
		} else {
			h.col++
		}
		h.off++
	}
}

func (h *headerScanner) at(i int) byte {
	if h.off+i < len(h.src.Text) {
		return h.src.Text[h.off+i]
	}
	return 0
}

// skipLayout moves past white space and comments.
func (h *headerScanner) skipLayout() {
	for h.off < len(h.src.Text) {
		switch c := h.at(0); {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			h.advance(1)
		case c == '/' && h.at(1) == '/':
			for h.off < len(h.src.Text) && h.at(0) != '\n' {
				h.advance(1)
			}
		case c == '/' && h.at(1) == '*':
			h.skipBlockComment()
		default:
			return
		}
	}
}

func (h *headerScanner) skipBlockComment() {
	h.advance(2)
	for h.off < len(h.src.Text) && !(h.at(0) == '*' && h.at(1) == '/') {
		h.advance(1)
	}
	h.advance(2)
}

// directive moves past a preprocessor line and its continuations.
func (h *headerScanner) directive() {
	for h.off < len(h.src.Text) && h.at(0) != '\n' {
		switch {
		case h.at(0) == '\\' && h.at(1) == '\n':
			h.advance(2)
		case h.at(0) == '\\' && h.at(1) == '\r' && h.at(2) == '\n':
			h.advance(3)
		case h.at(0) == '/' && h.at(1) == '*':
			// A comment may continue the line.
			h.skipBlockComment()
		default:
			h.advance(1)
		}
	}
}

// declaration moves past a C declaration: up to the ';' that ends it at
// brace depth zero, or the '}' that closes a function's body. It returns
// the declaration's text.
func (h *headerScanner) declaration() string {
	start := h.off
	depth := 0
	function := false // a ')' before the first '{': a function's body
	for h.off < len(h.src.Text) {
		switch c := h.at(0); {
		case c == '/' && (h.at(1) == '/' || h.at(1) == '*'):
			h.skipLayout()
			continue
		case c == '"' || c == '\'':
			h.advance(1)
			for h.off < len(h.src.Text) && h.at(0) != c && h.at(0) != '\n' {
				if h.at(0) == '\\' {
					h.advance(1)
				}
				h.advance(1)
			}
		case c == ')' && depth == 0:
			function = true
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth <= 0 && function {
				h.advance(1)
				return h.src.Text[start:h.off]
			}
		case c == ';' && depth <= 0:
			h.advance(1)
			return h.src.Text[start:h.off]
		case c == '#' && depth <= 0 && h.lineStart():
			// A preprocessor line ends an unterminated declaration.
			return h.src.Text[start:h.off]
		}
		h.advance(1)
	}
	return h.src.Text[start:h.off]
}

// lineStart reports whether only white space precedes the current byte on
// its line.
func (h *headerScanner) lineStart() bool {
	for i := h.off - 1; i >= 0; i-- {
		switch h.src.Text[i] {
		case '\n':
			return true
		case ' ', '\t':
		default:
			return false
		}
	}
	return true
}

// CTokens splits C source into identifiers, numbers and punctuation.
func CTokens(src string) []string {
	toks, _ := CTokenOffsets(src)
	return toks
}

// CTokenOffsets is CTokens with the byte offset in src of each token.
func CTokenOffsets(src string) (toks []string, offs []int) {
	for i := 0; i < len(src); {
		r := rune(src[i])
		switch {
		case unicode.IsSpace(r):
			i++
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				i = len(src)
			} else {
				i += end + 4
			}
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			j := i
			for j < len(src) && (src[j] == '_' || unicode.IsLetter(rune(src[j])) || unicode.IsDigit(rune(src[j]))) {
				j++
			}
			toks, offs = append(toks, src[i:j]), append(offs, i)
			i = j
		default:
			toks, offs = append(toks, src[i:i+1]), append(offs, i)
			i++
		}
	}
	return toks, offs
}
