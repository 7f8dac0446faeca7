package check

import (
	"strings"

	"github.com/gotrace/gotrace/format"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
)

// printfFormat parses the format of a printf-style call (printf, errorf,
// warnf, system, cat) with the grammar the formatter prints with, and
// reports each conversion it rejects at the conversion's position.
func (c *checker) printfFormat(name string, lit *ast.StrLit) (*format.Format, bool) {
	f := format.Parse(lit.Value)
	errs := f.Check()
	for _, err := range errs {
		c.errorf(c.offsetInLiteral(lit, err.Offset), "%s(): %s", name, err.Msg)
	}
	return f, len(errs) == 0
}

// offsetInLiteral returns the position of byte off of a string literal's
// value, a '%' of a conversion: the same '%' in the source text (escapes
// never stand for a '%' in practice), or the literal's position when the
// source does not show it.
func (c *checker) offsetInLiteral(lit *ast.StrLit, off int) srcpos.Pos {
	start, end := lit.Span.Start, lit.Span.End
	src := start.FileText(c.prog.File.Src)
	if start.Offset < 0 || end.Offset > len(src) || start.Offset >= end.Offset || off > len(lit.Value) {
		return start
	}
	raw := src[start.Offset:end.Offset]
	k := strings.Count(lit.Value[:off], "%")
	i := 0
	for ; k >= 0; k-- {
		j := strings.IndexByte(raw[i:], '%')
		if j < 0 {
			return start
		}
		i += j + 1
	}
	i-- // the '%' itself
	if strings.ContainsRune(raw[:i], '\n') {
		return start
	}
	p := start
	p.Offset += i
	p.Column += i
	return p
}
