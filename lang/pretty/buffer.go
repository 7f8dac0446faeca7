package pretty

import "strings"

// indentWidth is the indentation of a block's contents.
const indentWidth = 2

// A segment is one piece of a line: text, or a comment that prints as
// "// text" at the end of the line and as "/* text */" before more text.
type segment struct {
	text    string
	comment bool
}

// line is one output line, as segments.
type line []segment

// String renders the line.
func (l line) String() string {
	var b strings.Builder
	blank := true
	for i, s := range l {
		if !s.comment {
			b.WriteString(s.text)
			blank = blank && strings.TrimSpace(s.text) == ""
			continue
		}
		if !blank && !strings.HasSuffix(b.String(), " ") {
			b.WriteByte(' ')
		}
		switch {
		case i < len(l)-1:
			// A line comment's "*/" would end the block comment.
			b.WriteString("/* " + strings.ReplaceAll(s.text, "*/", "* /") + " */")
		case s.text == "":
			b.WriteString("//")
		default:
			b.WriteString("// " + s.text)
		}
	}
	return b.String()
}

// columns is the printed width of the line in bytes.
func (l line) columns() uint { return uint(len(l.String())) }

// Buffer is formatted output under construction: lines of segments, the
// last one open. Widths are uint, as bpftrace's are size_t: a width budget
// that goes below zero wraps to a huge one, and the choices that follow
// from it are bpftrace's.
type Buffer struct {
	lines []line
}

func newBuffer() *Buffer { return &Buffer{lines: []line{nil}} }

func (b *Buffer) last() *line { return &b.lines[len(b.lines)-1] }

// text appends s to the open line.
func (b *Buffer) text(s string) *Buffer {
	*b.last() = append(*b.last(), segment{text: s})
	return b
}

// comment appends a comment to the open line.
func (b *Buffer) comment(s string) *Buffer {
	*b.last() = append(*b.last(), segment{text: s, comment: true})
	return b
}

// lineBreak opens a new line.
func (b *Buffer) lineBreak() *Buffer {
	b.lines = append(b.lines, nil)
	return b
}

// append adds o's lines to b. With indent 0 the first line of o continues
// b's open line and, when align is set, o's later lines start at the
// column it had reached, so that call arguments line up:
//
//	printf("%d %d\n",
//	       a, b);
//
// With indent > 0, o starts on a new line and every line of it is indented
// by indent columns, and a new line is opened after it.
func (b *Buffer) append(o *Buffer, indent uint, align bool) *Buffer {
	if o.numLines() == 0 {
		return b
	}
	col := b.last().columns()
	if indent > 0 {
		b.lines = append(b.lines, nil)
		col = indent
	}
	for i, l := range o.lines {
		if align && col != 0 && len(*b.last()) == 0 {
			*b.last() = append(*b.last(), segment{text: strings.Repeat(" ", int(col))})
		}
		*b.last() = append(*b.last(), l...)
		if indent > 0 || i < len(o.lines)-1 {
			b.lines = append(b.lines, nil)
		}
	}
	return b
}

// add appends o aligned at the current column (append with indent 0).
func (b *Buffer) add(o *Buffer) *Buffer { return b.append(o, 0, true) }

// indented appends o on new lines indented by one level.
func (b *Buffer) indented(o *Buffer) *Buffer { return b.append(o, indentWidth, true) }

// width is the width of the widest line.
func (b *Buffer) width() uint {
	var w uint
	for _, l := range b.lines {
		w = max(w, l.columns())
	}
	return w
}

// numLines is the number of lines, not counting an empty open line.
func (b *Buffer) numLines() int {
	if len(*b.last()) == 0 {
		return len(b.lines) - 1
	}
	return len(b.lines)
}

// String renders the buffer, each line right-trimmed and ending in a newline.
func (b *Buffer) String() string {
	var s strings.Builder
	for _, l := range b.lines[:b.numLines()] {
		s.WriteString(strings.TrimRight(l.String(), " \t\r\n"))
		s.WriteByte('\n')
	}
	return s.String()
}

// metadata prints notes as lines of their own: min empty lines first, then
// each comment on its own line and each blank line as an empty line (the
// first min blank lines counting toward those already printed).
func (b *Buffer) metadata(n *notes, min int) *Buffer {
	for range min {
		b.lines = append(b.lines, nil)
	}
	vspace := 0
	for _, x := range n.list {
		if x.comment {
			b.comment(x.text)
			b.lines = append(b.lines, nil)
			continue
		}
		for range x.vspace {
			if vspace >= min {
				b.lines = append(b.lines, nil)
			}
			vspace++
		}
	}
	return b
}

// metadataInline prints the comments of n on the open line and drops its
// blank lines.
func (b *Buffer) metadataInline(n *notes) *Buffer {
	for _, x := range n.list {
		if x.comment {
			b.comment(x.text)
		}
	}
	return b
}
