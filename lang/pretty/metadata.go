package pretty

import (
	"github.com/gotrace/gotrace/lang/srcpos"
)

// note is one piece of layout the printer keeps: a comment (one line of
// one, for a block comment) or a run of blank lines. Its position orders
// it among the nodes.
type note struct {
	line, col int
	comment   bool
	text      string // the comment's text, without its markers
	vspace    int    // the blank lines, when not a comment
}

// notes is the layout not yet printed, in source order.
type notes struct {
	list []note
}

// before removes and returns the notes at or before p.
func (n *notes) before(p srcpos.Pos) *notes {
	i := 0
	for i < len(n.list) {
		x := n.list[i]
		if x.line > p.Line || (x.line == p.Line && x.col > p.Column) {
			break
		}
		i++
	}
	out := &notes{list: n.list[:i:i]}
	n.list = n.list[i:]
	return out
}

// beforeStart removes and returns the notes before p.
func (n *notes) beforeStart(p srcpos.Pos) *notes {
	i := 0
	for i < len(n.list) && (n.list[i].line < p.Line || n.list[i].line == p.Line && n.list[i].col < p.Column) {
		i++
	}
	out := &notes{list: n.list[:i:i]}
	n.list = n.list[i:]
	return out
}

// hasComments reports whether any note is a comment.
func (n *notes) hasComments() bool {
	for _, x := range n.list {
		if x.comment {
			return true
		}
	}
	return false
}

// collectNotes reads the comments and blank lines of src from its layout
// spans (lang.Trivia), as bpftrace's parser records them: a line comment's
// text starts after "//" and one space; a block comment gives one note per
// line, with the leading spaces and '*'s of continuation lines removed and
// an empty note for an empty line; a newline is a blank line unless it ends
// a comment's line or follows ';', '{' or '}' (spaces and tabs skipped).
func collectNotes(src string, gaps []srcpos.Span) *notes {
	n := &notes{}
	for _, g := range gaps {
		sc := layoutScanner{src: src, off: g.Start.Offset, end: g.End.Offset, line: g.Start.Line, col: g.Start.Column, out: n}
		sc.run()
	}
	return n
}

type layoutScanner struct {
	src           string
	off, end      int
	line, col     int
	out           *notes
	justCommented bool
}

func (s *layoutScanner) peek(i int) byte {
	if s.off+i < s.end {
		return s.src[s.off+i]
	}
	return 0
}

func (s *layoutScanner) advance(k int) {
	for ; k > 0 && s.off < s.end; k-- {
		if s.src[s.off] == '\n' {
			s.line++
			s.col = 1
		} else {
			s.col++
		}
		s.off++
	}
}

func isHSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// prevNonHSpace is the byte before the current one, spaces and tabs skipped.
func (s *layoutScanner) prevNonHSpace() byte {
	for p := s.off - 1; p >= 0; p-- {
		if c := s.src[p]; !isHSpace(c) {
			return c
		}
	}
	return 0
}

func (s *layoutScanner) addComment(line, col int, text string) {
	s.out.list = append(s.out.list, note{line: line, col: col, comment: true, text: text})
}

func (s *layoutScanner) run() {
	for s.off < s.end {
		c := s.peek(0)
		switch {
		case isHSpace(c) || c == '\f' || c == '\v':
			s.advance(1)
		case c == '\n':
			line, col := s.line, s.col
			suppress := s.justCommented
			if !suppress {
				p := s.prevNonHSpace()
				suppress = p == ';' || p == '{' || p == '}'
			}
			s.advance(1)
			if !suppress {
				s.out.list = append(s.out.list, note{line: line, col: col, vspace: 1})
			}
			s.justCommented = false
		case c == '/' && s.peek(1) == '/':
			s.lineComment()
			s.justCommented = true
		case c == '/' && s.peek(1) == '*':
			s.blockComment()
			s.justCommented = true
		default:
			// Not layout: the lexer's gaps hold nothing else.
			s.advance(1)
		}
	}
}

func (s *layoutScanner) lineComment() {
	s.advance(2)
	if s.peek(0) == ' ' {
		s.advance(1)
	}
	line, col, start := s.line, s.col, s.off
	for s.off < s.end && s.src[s.off] != '\n' {
		s.advance(1)
	}
	s.addComment(line, col, s.src[start:s.off])
}

func (s *layoutScanner) blockComment() {
	s.advance(2)
	if s.peek(0) == ' ' {
		s.advance(1)
	}
	for s.off < s.end {
		line, col, start := s.line, s.col, s.off
		for s.off < s.end {
			c := s.peek(0)
			if c == '\n' || (c == '*' && s.peek(1) == '/') {
				break
			}
			s.advance(1)
		}
		if s.off > start {
			s.addComment(line, col, s.src[start:s.off])
		}
		if s.peek(0) == '*' && s.peek(1) == '/' {
			s.advance(2)
			return
		}
		if s.off >= s.end {
			return
		}
		s.advance(1) // the newline
		for s.off < s.end && isHSpace(s.peek(0)) {
			s.advance(1)
		}
		if s.peek(0) == '*' && s.peek(1) == '/' {
			continue
		}
		stars := false
		for s.off < s.end && s.peek(0) == '*' {
			stars = true
			s.advance(1)
		}
		if stars && s.peek(0) == ' ' {
			s.advance(1)
		}
		if c := s.peek(0); c == '\n' || (c == '*' && s.peek(1) == '/') {
			s.addComment(s.line, s.col, "")
		}
	}
}

// dropBlank drops the first blank-line note on each of lines.
func (n *notes) dropBlank(lines map[int]bool) {
	out := n.list[:0]
	for _, x := range n.list {
		if !x.comment && lines[x.line] {
			delete(lines, x.line)
			continue
		}
		out = append(out, x)
	}
	n.list = out
}
