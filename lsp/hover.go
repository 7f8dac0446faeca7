package lsp

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// maxLayoutMembers bounds the members a struct's layout shows.
const maxLayoutMembers = 400

// hover answers textDocument/hover: a builtin's documentation (and its
// type in this probe), a struct's layout on a type, a member's type and
// offset, else the type of the innermost expression under the cursor.
func (s *Server) hover(_ *glsp.Context, p *protocol.HoverParams) (*protocol.Hover, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil || d.file == nil {
		return nil, err
	}
	off := d.text.offset(p.Position)
	var inner ast.Node
	var typ *ast.TypeExpr
	ast.Inspect(d.file, func(n ast.Node) bool {
		if !covers(d.text, n.GetSpan(), off) {
			return false
		}
		inner = n
		switch n := n.(type) {
		case *ast.Cast:
			if n.Type != nil && covers(d.text, n.Type.Span, off) {
				typ = n.Type
			}
		case *ast.SizeofExpr:
			if n.Type != nil {
				typ = n.Type
			}
		case *ast.OffsetofExpr:
			if n.Type != nil {
				typ = n.Type
			}
		case *ast.LetStmt:
			if n.Type != nil && covers(d.text, n.Type.Span, off) {
				typ = n.Type
			}
		}
		return true
	})
	var md string
	switch {
	case typ != nil:
		md = s.layout(typ.Name)
	case inner != nil:
		md = s.describe(d, inner)
	}
	if md == "" {
		return nil, nil
	}
	r := d.text.rangeOf(inner.GetSpan())
	if typ != nil {
		r = d.text.rangeOf(typ.Span)
	}
	return &protocol.Hover{Contents: protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: md}, Range: &r}, nil
}

// describe is the hover text of node n.
func (s *Server) describe(d *document, n ast.Node) string {
	x, _ := n.(ast.Expr)
	t, member := s.typeOf(d, x)
	switch n := n.(type) {
	case *ast.Call:
		if builtin.LookupFunc(n.Name) != nil {
			doc := builtin.Docs(n.Name).Markdown()
			if t != nil && t.Kind != types.Void {
				doc = "`" + typeString(t) + "`\n\n" + doc
			}
			return doc
		}
		for _, m := range d.file.Macros {
			if m.Name == n.Name {
				var ps []string
				for _, p := range m.Params {
					ps = append(ps, p.Name)
				}
				return "```\nmacro " + m.Name + "(" + strings.Join(ps, ", ") + ")\n```"
			}
		}
	case *ast.Ident:
		if builtin.LookupVar(n.Name) != nil {
			doc := builtin.Docs(n.Name).Markdown()
			if t != nil {
				doc = "`" + n.Name + ": " + typeString(t) + "` in this probe\n\n" + doc
			}
			return doc
		}
	case *ast.Field:
		if t != nil {
			s := "`" + n.Name + ": " + typeString(t) + "`"
			if member != nil {
				s += fmt.Sprintf(" at offset %d", member.Offset)
				if member.BitSize > 0 {
					s += fmt.Sprintf(", bits %d..%d", member.BitOffset, member.BitOffset+member.BitSize-1)
				}
			}
			if l := s2layout(t); l != "" {
				s += "\n\n" + l
			}
			return s
		}
	}
	if t != nil {
		return "`" + typeString(t) + "`"
	}
	return ""
}

// typeOf finds the type the checker gave x (the same span in its clone of
// the script), and x's member when x is a field access.
func (s *Server) typeOf(d *document, x ast.Expr) (*types.Type, *types.Field) {
	if d.prog == nil || x == nil {
		return nil, nil
	}
	sp := x.GetSpan()
	for _, pr := range d.prog.Probes {
		if pr.Info == nil {
			continue
		}
		for e, t := range pr.Info.Types {
			es := e.GetSpan()
			if es.Start.Offset == sp.Start.Offset && es.End.Offset == sp.End.Offset && t != nil {
				if f, ok := e.(*ast.Field); ok {
					if m, ok := pr.Info.Members[f]; ok {
						return t, &m
					}
				}
				return t, nil
			}
		}
	}
	return nil, nil
}

// s2layout is the layout of the struct a type is or points to.
func s2layout(t *types.Type) string {
	for t != nil && t.Kind == types.Pointer {
		t = t.Elem
	}
	if t == nil || t.BTF == nil {
		return ""
	}
	return btfLayout(t.BTF)
}

// layout is the layout of a named kernel type ("struct task_struct").
func (s *Server) layout(name string) string {
	spec, err := s.env.BTF()
	if err != nil {
		return ""
	}
	kind, n, _ := strings.Cut(name, " ")
	var t btf.Type
	switch kind {
	case "struct":
		var st *btf.Struct
		if spec.TypeByName(n, &st) == nil {
			t = st
		}
	case "union":
		var u *btf.Union
		if spec.TypeByName(n, &u) == nil {
			t = u
		}
	default:
		ts, err := spec.AnyTypesByName(name)
		if err == nil && len(ts) > 0 {
			t = ts[0]
		}
	}
	if t == nil {
		return ""
	}
	return btfLayout(t)
}

// btfLayout shows a struct's or union's members with their offsets and
// sizes, as C with comments.
func btfLayout(t btf.Type) string {
	u := btf.UnderlyingType(t)
	var name string
	var size uint32
	switch v := u.(type) {
	case *btf.Struct:
		name, size = "struct "+v.Name, v.Size
	case *btf.Union:
		name, size = "union "+v.Name, v.Size
	default:
		sz, err := btf.Sizeof(t)
		if err != nil {
			return ""
		}
		return "```c\n" + provider.CType(t) + " /* size " + strconv.Itoa(sz) + " */\n```"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "```c\n%s { /* size %d */\n", name, size)
	for i, m := range btfMembers(u) {
		if i == maxLayoutMembers {
			b.WriteString("\t...\n")
			break
		}
		sz, _ := btf.Sizeof(m.Type)
		bits := ""
		if m.BitfieldSize > 0 {
			bits = fmt.Sprintf(" : %d", m.BitfieldSize)
		}
		fmt.Fprintf(&b, "\t%s %s%s; /* offset %d, size %d */\n", provider.CType(m.Type), m.Name, bits, m.Offset.Bytes(), sz)
	}
	b.WriteString("}\n```")
	return b.String()
}
