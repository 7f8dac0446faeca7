package ast

import (
	goast "go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDumpEveryNode(t *testing.T) {
	i := func(v uint64) *IntLit { return &IntLit{Value: v} }
	v := func(name string) *Var { return &Var{Name: name} }
	block := func(s ...Stmt) *Block { return &Block{Stmts: s} }
	for _, tt := range []struct {
		n    Node
		want string
	}{
		{&CDef{Text: "struct a { int x; };"}, `(cdef "struct a { int x; };")`},
		{&Import{Path: "stdlib/task"}, `(import "stdlib/task")`},
		{&Config{Entries: []*ConfigEntry{{Key: "k", Value: i(1)}, {Key: "m", Value: &Ident{Name: "perf"}}}}, "(config (entry k (int 1)) (entry m (ident perf)))"},
		{&ConfigEntry{Key: "k", Value: &StrLit{Value: "v"}}, `(entry k (str "v"))`},
		{&Macro{Name: "m", Params: []*MacroParam{{Name: "$a"}, {Name: "@b"}, {Name: "c"}}, Body: block()}, "(macro m ($a @b c) (block))"},
		{&MacroParam{Name: "$a"}, "(macroparam $a)"},
		{&MapDecl{Name: "@m", Kind: "lruhash", Args: []Expr{i(10)}}, "(mapdecl @m lruhash (int 10))"},
		{&Probe{Attach: []*AttachPoint{{Raw: "BEGIN"}, {Raw: "kprobe:f"}}, Pred: &Ident{Name: "pid"}, Body: block()},
			`(probe (attach "BEGIN") (attach "kprobe:f") (pred (ident pid)) (block))`},
		{&Probe{Attach: []*AttachPoint{{Raw: "END"}}, Body: block()}, `(probe (attach "END") (block))`},
		{&AttachPoint{Raw: `uprobe:"/a b":f`}, `(attach "uprobe:\"/a b\":f")`},
		{block(&ExprStmt{X: i(1)}, &BranchStmt{Tok: "break"}), "(block (expr (int 1)) (break))"},
		{&AssignStmt{Op: "+=", Lhs: v("$x"), Rhs: i(2)}, "(assign += (var $x) (int 2))"},
		{&IncDecStmt{Op: "++", X: v("$x")}, "(incdec post ++ (var $x))"},
		{&IncDecStmt{Op: "--", Prefix: true, X: v("$x")}, "(incdec pre -- (var $x))"},
		{&LetStmt{Var: v("$x")}, "(let (var $x))"},
		{&LetStmt{Var: v("$x"), Type: &TypeExpr{Name: "uint8", IsArray: true, ArrayLen: 4}, Init: i(0)}, "(let (var $x) (type uint8[4]) (int 0))"},
		{&IfStmt{Cond: i(1), Then: block()}, "(if (int 1) (block))"},
		{&IfStmt{Cond: i(1), Then: block(), Else: &IfStmt{Cond: i(2), Then: block(), Else: &BlockStmt{Body: block()}}},
			"(if (int 1) (block) (else (if (int 2) (block) (else (block)))))"},
		{&ForRangeStmt{Var: v("$i"), Lo: i(0), Hi: i(5), Body: block()}, "(for (var $i) (range (int 0) (int 5)) (block))"},
		{&ForMapStmt{Var: v("$kv"), Map: &MapRef{Name: "@m"}, Body: block()}, "(for (var $kv) (map @m) (block))"},
		{&WhileStmt{Cond: i(1), Body: block()}, "(while (int 1) (block))"},
		{&UnrollStmt{Count: i(3), Body: block()}, "(unroll (int 3) (block))"},
		{&BranchStmt{Tok: "continue"}, "(continue)"},
		{&ReturnStmt{}, "(return)"},
		{&ReturnStmt{X: i(1)}, "(return (int 1))"},
		{&BlockStmt{Body: block(&ExprStmt{X: i(1)})}, "(block (expr (int 1)))"},
		{&IntLit{Text: "10ms", Value: 10, Suffix: "ms"}, "(int 10 ms)"},
		{&StrLit{Value: "a\"\n"}, `(str "a\"\n")`},
		{&BoolLit{Value: true}, "(bool true)"},
		{&Ident{Name: "comm"}, "(ident comm)"},
		{&PosParam{Index: 2}, "(posparam $2)"},
		{&PosParam{Index: -1}, "(posparam $#)"},
		{&MapRef{Name: "@"}, "(map @)"},
		{&MapRef{Name: "@x", Keys: []Expr{v("$a"), &StrLit{Value: "b"}}}, `(map @x (var $a) (str "b"))`},
		{&Discard{}, "(discard)"},
		{&Call{Name: "printf", Args: []Expr{&StrLit{Value: "%d"}, i(1)}}, `(call printf (str "%d") (int 1))`},
		{&Binary{Op: "+", X: i(1), Y: &Binary{Op: "*", X: i(2), Y: i(3)}}, "(binary + (int 1) (binary * (int 2) (int 3)))"},
		{&Unary{Op: "-", X: i(1)}, "(unary - (int 1))"},
		{&Unary{Op: "++", X: v("$x"), Postfix: true}, "(postfix ++ (var $x))"},
		{&Ternary{Cond: i(1), Then: i(2), Else: i(3)}, "(ternary (int 1) (int 2) (int 3))"},
		{&Field{X: &Ident{Name: "args"}, Name: "filename"}, "(field (ident args) .filename)"},
		{&Field{X: v("$t"), Name: "pid", Arrow: true}, "(field (var $t) ->pid)"},
		{&Index{X: v("$a"), Index: i(0)}, "(index (var $a) (int 0))"},
		{&Cast{Type: &TypeExpr{Name: "struct task_struct", Pointers: 1}, X: &Ident{Name: "curtask"}}, "(cast (type struct task_struct *) (ident curtask))"},
		{&Tuple{Elems: []Expr{i(1), &StrLit{Value: "a"}}}, `(tuple (int 1) (str "a"))`},
		{&Tuple{Elems: []Expr{i(1), i(2)}, Names: []string{"a", "b"}}, "(record (a (int 1)) (b (int 2)))"},
		{&Paren{X: i(1)}, "(paren (int 1))"},
		{&BlockExpr{Body: block(&ExprStmt{X: i(1)})}, "(blockexpr (block (expr (int 1))))"},
		{&SizeofExpr{Type: &TypeExpr{Name: "uint32"}}, "(sizeof (type uint32))"},
		{&SizeofExpr{X: v("$x")}, "(sizeof (var $x))"},
		{&OffsetofExpr{Type: &TypeExpr{Name: "struct x"}, Field: []string{"a", "b"}}, "(offsetof (type struct x) a.b)"},
		{&OffsetofExpr{X: v("$x"), Field: []string{"a"}}, "(offsetof (var $x) a)"},
		{&TypeExpr{Name: "char", Pointers: 2}, "(type char **)"},
		{&TypeExpr{Name: "int8", IsArray: true}, "(type int8[])"},
		{&File{}, "(file)"},
		{&File{Shebang: "#!/bin/bpftrace", Preamble: []*CDef{{Text: "#include <a.h>"}},
			Config: &Config{}, Macros: []*Macro{{Name: "m", Body: block()}},
			MapDecls: []*MapDecl{{Name: "@m", Kind: "hash", Args: []Expr{i(1)}}},
			Probes:   []*Probe{{Attach: []*AttachPoint{{Raw: "BEGIN"}}, Body: block()}}},
			"(file\n  (shebang \"#!/bin/bpftrace\")\n  (cdef \"#include <a.h>\")\n  (config)\n  (macro m () (block))\n  (mapdecl @m hash (int 1))\n  (probe (attach \"BEGIN\") (block)))"},
	} {
		if got := Dump(tt.n); got != tt.want {
			t.Errorf("Dump(%T)\n got  %s\n want %s", tt.n, got, tt.want)
		}
	}
}

// TestDumpNil checks that nil and typed-nil nodes never panic.
func TestDumpNil(t *testing.T) {
	var nilBinary *Binary
	for _, tt := range []struct {
		n    Node
		want string
	}{
		{nil, "<nil>"},
		{nilBinary, "<nil>"},
		{&Binary{Op: "+"}, "(binary + <nil> <nil>)"},
		{&AssignStmt{Op: "="}, "(assign = <nil> <nil>)"},
		{&Probe{}, "(probe <nil>)"},
		{&Macro{Name: "m", Params: []*MacroParam{nil}}, "(macro m (<nil>) <nil>)"},
		{&Tuple{Elems: []Expr{nil}, Names: []string{}}, "(record (<nil> <nil>))"},
	} {
		if got := Dump(tt.n); got != tt.want {
			t.Errorf("Dump(%#v) = %s, want %s", tt.n, got, tt.want)
		}
	}
}

// TestDumpComplete makes sure no node type falls through to Dump's default
// case. The node types are found in the package's source, so a new one
// cannot be forgotten: every named type whose pointer implements Node.
func TestDumpComplete(t *testing.T) {
	nodes := []Node{
		&File{}, &CDef{}, &Import{}, &Config{}, &ConfigEntry{}, &Macro{}, &MacroParam{}, &MapDecl{},
		&Probe{}, &AttachPoint{}, &Block{}, &ExprStmt{}, &AssignStmt{}, &IncDecStmt{},
		&LetStmt{}, &IfStmt{}, &ForRangeStmt{}, &ForMapStmt{}, &WhileStmt{}, &UnrollStmt{},
		&BranchStmt{}, &ReturnStmt{}, &BlockStmt{}, &IntLit{}, &StrLit{}, &BoolLit{},
		&Ident{}, &Var{}, &PosParam{}, &MapRef{}, &Discard{}, &Call{}, &Binary{}, &Unary{},
		&Ternary{}, &Field{}, &Index{}, &Cast{}, &Tuple{}, &Paren{}, &SizeofExpr{},
		&OffsetofExpr{}, &TypeExpr{}, &BlockExpr{}, &TypeArg{},
	}
	listed := map[string]bool{}
	for _, n := range nodes {
		listed[reflect.TypeOf(n).Elem().Name()] = true
		if got := Dump(n); strings.Contains(got, "unknown") {
			t.Errorf("Dump(%T) = %s", n, got)
		}
	}
	found := nodeTypes(t)
	if len(found) < len(nodes) {
		t.Fatalf("found only %d node types in the package: %v", len(found), found)
	}
	for _, name := range found {
		if !listed[name] {
			t.Errorf("node type %s is not in this test's list: add it here and to Dump", name)
		}
	}
}

// nodeTypes type-checks the package's source and returns the names of its
// node types: the named types (Span itself aside) whose pointer implements
// Node.
func nodeTypes(t *testing.T) []string {
	t.Helper()
	fset := token.NewFileSet()
	matches, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*goast.File
	for _, name := range matches {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check("ast", fset, files, nil)
	if err != nil {
		t.Fatal(err)
	}
	node := pkg.Scope().Lookup("Node").Type().Underlying().(*types.Interface)
	var names []string
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || name == "Span" || types.IsInterface(tn.Type()) {
			continue
		}
		if types.Implements(types.NewPointer(tn.Type()), node) {
			names = append(names, name)
		}
	}
	return names
}
