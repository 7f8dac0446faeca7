package lsp

import (
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/gotrace/gotrace/lang/srcpos"
)

// text is a document's content with its line starts, converting between
// byte offsets and LSP positions (lines and UTF-16 code units).
type text struct {
	src   string
	lines []int // byte offset of each line's start
}

func newText(src string) *text {
	t := &text{src: src, lines: []int{0}}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			t.lines = append(t.lines, i+1)
		}
	}
	return t
}

// offset returns the byte offset of an LSP position, clamped to the text.
func (t *text) offset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(t.lines) {
		return len(t.src)
	}
	off := t.lines[line]
	end := len(t.src)
	if line+1 < len(t.lines) {
		end = t.lines[line+1] - 1
	}
	for units := int(p.Character); units > 0 && off < end; {
		r, n := utf8.DecodeRuneInString(t.src[off:end])
		off += n
		units--
		if r >= 0x10000 {
			units--
		}
	}
	return off
}

// position returns the LSP position of a byte offset.
func (t *text) position(off int) protocol.Position {
	off = max(0, min(off, len(t.src)))
	line := 0
	lo, hi := 0, len(t.lines)-1
	for lo <= hi {
		m := (lo + hi) / 2
		if t.lines[m] <= off {
			line, lo = m, m+1
		} else {
			hi = m - 1
		}
	}
	units := 0
	for _, r := range t.src[t.lines[line]:off] {
		units++
		if r >= 0x10000 {
			units++
		}
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(units)}
}

// posOffset returns the byte offset of a script position (line and byte
// column), which is exact even where Offset was not set.
func (t *text) posOffset(p srcpos.Pos) int {
	if p.Line < 1 {
		return 0
	}
	if p.Line > len(t.lines) {
		return len(t.src)
	}
	return min(t.lines[p.Line-1]+p.Column-1, len(t.src))
}

// rangeOf returns the LSP range of a span; an empty or unknown end covers
// one character.
func (t *text) rangeOf(sp srcpos.Span) protocol.Range {
	start := t.posOffset(sp.Start)
	end := start + 1
	if sp.End.Line > 0 {
		if e := t.posOffset(sp.End); e > start {
			end = e
		}
	}
	end = min(end, len(t.src))
	return protocol.Range{Start: t.position(start), End: t.position(max(start, end))}
}
