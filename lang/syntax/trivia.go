package syntax

import (
	"github.com/gotrace/gotrace/lang/srcpos"
)

// Trivia returns the spans of a script's layout: the whitespace and
// comments between its tokens (and before the first and after the last),
// in source order, empty gaps left out. The formatter reads comments and
// blank lines from them; they come from the parser's own lexer, so text
// inside a string, an attach point or a C definition is never taken for a
// comment. It fails with the lexer's positioned error.
func Trivia(name, src string) ([]srcpos.Span, error) {
	toks, lerr := lexScript(name, src)
	if lerr != nil {
		return nil, ErrorList{lerr}
	}
	var out []srcpos.Span
	start := srcpos.Pos{Filename: name, Line: 1, Column: 1}
	for i := range toks {
		t := &toks[i]
		p := toPos(t.Pos)
		if p.Offset > start.Offset {
			out = append(out, srcpos.Span{Start: start, End: p})
		}
		start = tokEnd(t)
	}
	return out, nil
}
