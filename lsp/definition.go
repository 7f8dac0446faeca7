package lsp

import (
	"os"
	"path/filepath"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
)

// definition finds where the macro, map or import under the cursor is
// defined: a macro's definition, a map's declaration (let @m = ...) or
// else its first assignment, an imported file.
func (s *Server) definition(_ *glsp.Context, p *protocol.DefinitionParams) (any, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil || d.file == nil {
		return nil, err
	}
	off := d.text.offset(p.Position)
	f := d.file
	for _, imp := range f.Imports {
		if covers(d.text, imp.Span, off) {
			return importLocation(d, imp.Path), nil
		}
	}
	var target ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if target != nil || !covers(d.text, n.GetSpan(), off) {
			return target == nil
		}
		switch n := n.(type) {
		case *ast.Call:
			for _, m := range f.Macros {
				if m.Name == n.Name && nameCovers(d.text, n.Start, n.Name, off) {
					target = m
				}
			}
		case *ast.Ident:
			for _, m := range f.Macros {
				if m.Name == n.Name {
					target = m
				}
			}
		case *ast.MapRef:
			if nameCovers(d.text, n.Start, n.Name, off) {
				target = mapDefinition(f, n.Name)
			}
		}
		return true
	})
	if target == nil {
		return nil, nil
	}
	return protocol.Location{URI: d.uri, Range: d.text.rangeOf(target.GetSpan())}, nil
}

// mapDefinition is a map's declaration, or else its first assignment.
func mapDefinition(f *ast.File, name string) ast.Node {
	for _, m := range f.MapDecls {
		if m.Name == name {
			return m
		}
	}
	var first ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if first != nil {
			return false
		}
		if a, ok := n.(*ast.AssignStmt); ok {
			if m, ok := a.Lhs.(*ast.MapRef); ok && m.Name == name {
				first = a
			}
		}
		return true
	})
	return first
}

// importLocation is the file an import names, relative to the script's
// directory; nil for the standard library and files that do not exist.
func importLocation(d *document, path string) any {
	dir := filepath.Dir(uriPath(d.uri))
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	return protocol.Location{URI: fileURI(path)}
}

// covers reports whether byte offset off is inside span sp (its end
// included, so a cursor just after a name is on it).
func covers(t *text, sp srcpos.Span, off int) bool {
	if sp.Start.Line == 0 {
		return false
	}
	s := t.posOffset(sp.Start)
	e := s
	if sp.End.Line > 0 {
		e = t.posOffset(sp.End)
	}
	return off >= s && off <= e
}

// nameCovers reports whether off is on the name written at p.
func nameCovers(t *text, p srcpos.Pos, name string, off int) bool {
	s := t.posOffset(p)
	return off >= s && off <= s+len(name)
}
