package lsp

import (
	"errors"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
)

// maxRecoveries bounds the items blanked out of one script.
const maxRecoveries = 64

// parseRecover parses src and, while it fails, blanks out the top-level
// item holding the first error and parses again, so that one probe being
// typed does not hide the rest of the script. It returns the tree of what
// parsed (nil when nothing did), the source that tree was parsed from
// (src with the broken items blanked, positions unchanged) and every
// parse error.
func parseRecover(name, src string) (*ast.File, string, syntax.ErrorList) {
	var errs syntax.ErrorList
	seen := map[string]bool{}
	cur := src
	for range maxRecoveries {
		f, err := syntax.Parse(name, cur)
		if err == nil {
			return f, cur, errs
		}
		var list syntax.ErrorList
		if !errors.As(err, &list) || len(list) == 0 {
			return nil, cur, append(errs, &syntax.Error{Pos: srcpos.Pos{Filename: name, Line: 1, Column: 1}, Msg: err.Error()})
		}
		for _, e := range list {
			if k := e.Error(); !seen[k] {
				seen[k] = true
				errs = append(errs, e)
			}
		}
		t := newText(cur)
		s, e := itemAt(cur, t.posOffset(list[0].Pos))
		if s >= e {
			return nil, cur, errs
		}
		cur = blank(cur, s, e)
	}
	return nil, cur, errs
}

// blank replaces src[s:e] with spaces, keeping its newlines, so that
// positions after it do not move.
func blank(src string, s, e int) string {
	b := []byte(src)
	for i := s; i < e; i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// itemAt returns the byte range of the top-level item (probe, macro,
// declaration, config block, preprocessor line) holding offset off; an
// item left open runs to the end of src.
func itemAt(src string, off int) (int, int) {
	items := topItems(src)
	for _, it := range items {
		if off < it[1] {
			return it[0], it[1]
		}
	}
	if n := len(items); n > 0 {
		return items[n-1][0], len(src)
	}
	return 0, len(src)
}

// topItems splits src into its top-level items by brace depth, skipping
// strings and comments.
func topItems(src string) [][2]int {
	var items [][2]int
	depth, start := 0, -1
	end := func(i int) {
		items = append(items, [2]int{start, i})
		start = -1
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			j := i + 2
			for j+1 < len(src) && !(src[j] == '*' && src[j+1] == '/') {
				j++
			}
			i = j + 1
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		}
		if start < 0 {
			start = i
			if c == '#' && depth == 0 {
				for i < len(src) && src[i] != '\n' {
					i++
				}
				end(i)
				continue
			}
		}
		switch c {
		case '"':
			i = skipString(src, i)
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
			}
			if depth == 0 {
				end(i + 1)
			}
		case ';':
			if depth == 0 {
				end(i + 1)
			}
		}
	}
	if start >= 0 {
		items = append(items, [2]int{start, len(src)})
	}
	return items
}

// skipString returns the offset of the quote closing the string opened
// at i (or the last byte).
func skipString(src string, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(src) - 1
}
