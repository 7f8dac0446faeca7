package ast

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Dump renders n as a compact, deterministic S-expression, for golden tests
// and debugging. Spans are not shown. Examples:
//
//	(binary + (int 1) (binary * (int 2) (int 3)))
//	(map @x (var $a) (str "b"))
//	(probe (attach "BEGIN") (pred (ident pid)) (block (expr (call exit))))
//
// A *File is rendered with one top-level item per line; everything else is
// on a single line. Nil nodes render as "<nil>".
func Dump(n Node) string {
	var d dumper
	d.node(n)
	return d.b.String()
}

type dumper struct {
	b strings.Builder
}

func (d *dumper) s(parts ...string) {
	for _, p := range parts {
		d.b.WriteString(p)
	}
}

// open writes "(tag" and close writes ")"; children are written with a
// leading space by the callers.
func (d *dumper) open(tag string) { d.s("(", tag) }
func (d *dumper) close()          { d.s(")") }

func (d *dumper) kid(n Node) {
	d.s(" ")
	d.node(n)
}

func (d *dumper) word(w string) { d.s(" ", w) }

func isNil(n Node) bool {
	if n == nil {
		return true
	}
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func (d *dumper) exprs(xs []Expr) {
	for _, x := range xs {
		d.kid(x)
	}
}

func (d *dumper) node(n Node) {
	if isNil(n) {
		d.s("<nil>")
		return
	}
	switch n := n.(type) {
	case *File:
		d.open("file")
		item := func(n Node) {
			d.s("\n  ")
			d.node(n)
		}
		if n.Shebang != "" {
			d.s("\n  (shebang ", strconv.Quote(n.Shebang), ")")
		}
		for _, c := range n.Preamble {
			item(c)
		}
		if n.Config != nil {
			item(n.Config)
		}
		for _, im := range n.Imports {
			item(im)
		}
		for _, m := range n.Macros {
			item(m)
		}
		for _, m := range n.MapDecls {
			item(m)
		}
		for _, p := range n.Probes {
			item(p)
		}
		d.close()
	case *CDef:
		d.s("(cdef ", strconv.Quote(n.Text), ")")
	case *Import:
		d.s("(import ", strconv.Quote(n.Path), ")")
	case *Config:
		d.open("config")
		for _, e := range n.Entries {
			d.kid(e)
		}
		d.close()
	case *ConfigEntry:
		d.open("entry")
		d.word(n.Key)
		d.kid(n.Value)
		d.close()
	case *Macro:
		d.open("macro")
		d.word(n.Name)
		d.s(" (")
		for i, p := range n.Params {
			if i > 0 {
				d.s(" ")
			}
			if p == nil {
				d.s("<nil>")
			} else {
				d.s(p.Name)
			}
		}
		d.s(")")
		d.kid(n.Body)
		d.close()
	case *MacroParam:
		d.s("(macroparam ", n.Name, ")")
	case *MapDecl:
		d.open("mapdecl")
		d.word(n.Name)
		d.word(n.Kind)
		d.exprs(n.Args)
		d.close()
	case *Probe:
		d.open("probe")
		for _, a := range n.Attach {
			d.kid(a)
		}
		if !isNil(n.Pred) {
			d.s(" (pred")
			d.kid(n.Pred)
			d.s(")")
		}
		d.kid(n.Body)
		d.close()
	case *AttachPoint:
		if n.Name != "" {
			d.s("(attach ", n.Name, "= ", strconv.Quote(n.Raw), ")")
		} else {
			d.s("(attach ", strconv.Quote(n.Raw), ")")
		}
	case *Block:
		d.open("block")
		for _, s := range n.Stmts {
			d.kid(s)
		}
		d.close()

	// Statements.
	case *ExprStmt:
		d.open("expr")
		d.kid(n.X)
		d.close()
	case *AssignStmt:
		d.open("assign")
		d.word(n.Op)
		d.kid(n.Lhs)
		d.kid(n.Rhs)
		d.close()
	case *IncDecStmt:
		if n.Prefix {
			d.open("incdec pre")
		} else {
			d.open("incdec post")
		}
		d.word(n.Op)
		d.kid(n.X)
		d.close()
	case *LetStmt:
		d.open("let")
		d.kid(n.Var)
		if n.Type != nil {
			d.kid(n.Type)
		}
		if !isNil(n.Init) {
			d.kid(n.Init)
		}
		d.close()
	case *IfStmt:
		d.open("if")
		d.kid(n.Cond)
		d.kid(n.Then)
		if !isNil(n.Else) {
			d.s(" (else")
			d.kid(n.Else)
			d.s(")")
		}
		d.close()
	case *ForRangeStmt:
		d.open("for")
		d.kid(n.Var)
		d.s(" (range")
		d.kid(n.Lo)
		d.kid(n.Hi)
		d.s(")")
		d.kid(n.Body)
		d.close()
	case *ForMapStmt:
		d.open("for")
		d.kid(n.Var)
		d.kid(n.Map)
		d.kid(n.Body)
		d.close()
	case *WhileStmt:
		d.open("while")
		d.kid(n.Cond)
		d.kid(n.Body)
		d.close()
	case *UnrollStmt:
		d.open("unroll")
		d.kid(n.Count)
		d.kid(n.Body)
		d.close()
	case *BranchStmt:
		d.s("(", n.Tok, ")")
	case *ReturnStmt:
		d.open("return")
		if !isNil(n.X) {
			d.kid(n.X)
		}
		d.close()
	case *BlockStmt:
		d.node(n.Body)

	// Expressions.
	case *IntLit:
		d.open("int")
		d.word(strconv.FormatUint(n.Value, 10))
		if n.Suffix != "" {
			d.word(n.Suffix)
		}
		d.close()
	case *StrLit:
		d.s("(str ", strconv.Quote(n.Value), ")")
	case *BoolLit:
		d.s("(bool ", strconv.FormatBool(n.Value), ")")
	case *Ident:
		d.s("(ident ", n.Name, ")")
	case *Var:
		d.s("(var ", n.Name, ")")
	case *PosParam:
		if n.Index < 0 {
			d.s("(posparam $#)")
		} else {
			d.s("(posparam $", strconv.Itoa(n.Index), ")")
		}
	case *MapRef:
		d.open("map")
		d.word(n.Name)
		d.exprs(n.Keys)
		d.close()
	case *Discard:
		d.s("(discard)")
	case *Call:
		d.open("call")
		d.word(n.Name)
		d.exprs(n.Args)
		d.close()
	case *Binary:
		d.open("binary")
		d.word(n.Op)
		d.kid(n.X)
		d.kid(n.Y)
		d.close()
	case *Unary:
		if n.Postfix {
			d.open("postfix")
		} else {
			d.open("unary")
		}
		d.word(n.Op)
		d.kid(n.X)
		d.close()
	case *Ternary:
		d.open("ternary")
		d.kid(n.Cond)
		d.kid(n.Then)
		d.kid(n.Else)
		d.close()
	case *Field:
		d.open("field")
		d.kid(n.X)
		if n.Arrow {
			d.word("->" + n.Name)
		} else {
			d.word("." + n.Name)
		}
		d.close()
	case *Index:
		d.open("index")
		d.kid(n.X)
		d.kid(n.Index)
		d.close()
	case *Cast:
		d.open("cast")
		d.kid(n.Type)
		d.kid(n.X)
		d.close()
	case *Tuple:
		if n.Names != nil {
			d.open("record")
			for i, x := range n.Elems {
				name := "<nil>"
				if i < len(n.Names) {
					name = n.Names[i]
				}
				d.s(" (", name)
				d.kid(x)
				d.s(")")
			}
		} else {
			d.open("tuple")
			d.exprs(n.Elems)
		}
		d.close()
	case *Paren:
		d.open("paren")
		d.kid(n.X)
		d.close()
	case *BlockExpr:
		d.open("blockexpr")
		d.kid(n.Body)
		d.close()
	case *SizeofExpr:
		d.open("sizeof")
		if n.Type != nil {
			d.kid(n.Type)
		}
		if !isNil(n.X) {
			d.kid(n.X)
		}
		d.close()
	case *TypeArg:
		d.open("typearg")
		d.kid(n.Type)
		d.close()
	case *OffsetofExpr:
		d.open("offsetof")
		if n.Type != nil {
			d.kid(n.Type)
		}
		if !isNil(n.X) {
			d.kid(n.X)
		}
		d.word(strings.Join(n.Field, "."))
		d.close()
	case *TypeExpr:
		if n.Of != nil {
			d.open("typeof")
			d.kid(n.Of)
			d.close()
			return
		}
		if n.Typeof {
			d.s("(typeof (type ", n.Name)
			if n.Pointers > 0 {
				d.s(" ", strings.Repeat("*", n.Pointers))
			}
			d.close()
			d.close()
			return
		}
		d.s("(type ", n.Name)
		if n.Pointers > 0 {
			d.s(" ", strings.Repeat("*", n.Pointers))
		}
		if n.IsArray {
			if n.ArrayLen > 0 {
				d.s("[", strconv.Itoa(n.ArrayLen), "]")
			} else {
				d.s("[]")
			}
		}
		d.close()
	default:
		d.s(fmt.Sprintf("(unknown %T)", n))
	}
}
