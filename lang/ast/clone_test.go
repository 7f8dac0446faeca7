package ast

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"sort"
	"testing"

	"github.com/gotrace/gotrace/lang/srcpos"
)

// allNodes holds one value of every node type; TestAllNodesListed keeps it
// complete, so a new node type is cloned and checked here too.
var allNodes = []Node{
	&File{}, &CDef{}, &Import{}, &Config{}, &ConfigEntry{}, &Macro{}, &MacroParam{},
	&MapDecl{}, &Probe{}, &AttachPoint{}, &Block{},
	&ExprStmt{}, &AssignStmt{}, &IncDecStmt{}, &LetStmt{}, &IfStmt{},
	&ForRangeStmt{}, &ForMapStmt{}, &WhileStmt{}, &UnrollStmt{},
	&BranchStmt{}, &ReturnStmt{}, &BlockStmt{},
	&IntLit{}, &StrLit{}, &BoolLit{}, &Ident{}, &Var{}, &PosParam{},
	&MapRef{}, &Discard{}, &Call{}, &Binary{}, &Unary{}, &Ternary{},
	&Field{}, &Index{}, &Cast{}, &Tuple{}, &Paren{}, &BlockExpr{},
	&SizeofExpr{}, &OffsetofExpr{}, &TypeExpr{}, &TypeArg{},
}

// TestAllNodesListed parses this package's sources and checks that every
// struct type embedding Span is in allNodes.
func TestAllNodesListed(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, n := range allNodes {
		listed[reflect.TypeOf(n).Elem().Name()] = true
	}
	var missing []string
	for _, f := range pkgs["ast"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				if sel, ok := fl.Type.(*ast.SelectorExpr); ok && len(fl.Names) == 0 && sel.Sel.Name == "Span" && !listed[ts.Name.Name] {
					missing = append(missing, ts.Name.Name)
				}
			}
			return true
		})
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("node types missing from allNodes: %v", missing)
	}
}

// TestClone fills every field of every node type with non-zero values,
// clones it, and checks the copy is equal and shares no pointer or slice
// with the original.
func TestClone(t *testing.T) {
	for _, n := range allNodes {
		name := reflect.TypeOf(n).Elem().Name()
		orig := reflect.New(reflect.TypeOf(n).Elem())
		fill(orig.Elem(), 2)
		node := orig.Interface().(Node)
		cp := Clone(node)
		if !reflect.DeepEqual(node, cp) {
			t.Errorf("%s: clone differs:\n%s\n%s", name, Dump(node), Dump(cp))
		}
		orig0 := addrs(reflect.ValueOf(node), map[uintptr]bool{})
		for a := range addrs(reflect.ValueOf(cp), map[uintptr]bool{}) {
			if orig0[a] {
				t.Errorf("%s: clone shares memory with the original", name)
				break
			}
		}
	}
}

func TestCloneKeepsSharing(t *testing.T) {
	x := &Ident{Name: "pid"}
	b := &Binary{Op: "+", X: x, Y: x}
	cp := Clone(b)
	if cp.X != cp.Y || cp.X == Expr(x) {
		t.Errorf("a node reached twice must be copied once")
	}
}

// TestCloneSharesSource: the copy of a position in an imported file points
// to the same Source.
func TestCloneSharesSource(t *testing.T) {
	src := &srcpos.Source{Name: "lib.bt", Text: "x"}
	id := &Ident{Span: srcpos.Span{Start: srcpos.Pos{Filename: "lib.bt", Line: 1, Column: 1, Src: src}}, Name: "x"}
	if cp := Clone(id); cp.Start.Src != src || cp == id {
		t.Errorf("clone: Src %p, want %p", cp.Start.Src, src)
	}
}

// TestSetSource fills every node type, sets a Source and checks that every
// position reachable from the node has it.
func TestSetSource(t *testing.T) {
	src := &srcpos.Source{Name: "lib.bt"}
	for _, n := range allNodes {
		name := reflect.TypeOf(n).Elem().Name()
		v := reflect.New(reflect.TypeOf(n).Elem())
		fill(v.Elem(), 2)
		SetSource(v.Interface().(Node), src)
		count := 0
		eachPos(v, map[uintptr]bool{}, func(p srcpos.Pos) {
			count++
			if p.Src != src {
				t.Errorf("%s: a position has Src %p, want %p", name, p.Src, src)
			}
		})
		if count == 0 {
			t.Errorf("%s: no positions", name)
		}
	}
}

// eachPos calls f with each position reachable from v.
func eachPos(v reflect.Value, seen map[uintptr]bool, f func(srcpos.Pos)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == sourceType || seen[v.Pointer()] {
			return
		}
		seen[v.Pointer()] = true
		eachPos(v.Elem(), seen, f)
	case reflect.Interface:
		if !v.IsNil() {
			eachPos(v.Elem(), seen, f)
		}
	case reflect.Slice:
		for i := range v.Len() {
			eachPos(v.Index(i), seen, f)
		}
	case reflect.Struct:
		if p, ok := v.Interface().(srcpos.Pos); ok {
			f(p)
			return
		}
		for i := range v.NumField() {
			eachPos(v.Field(i), seen, f)
		}
	}
}

// fill sets every field of v to a non-zero value; interface fields get a
// node that has children itself, down to depth.
func fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("s")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), depth)
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		if depth > 0 {
			fill(p.Elem(), depth-1)
		}
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(s.Index(i), depth)
		}
		v.Set(s)
	case reflect.Interface:
		var n Node
		switch v.Type() {
		case reflect.TypeOf((*Expr)(nil)).Elem():
			n = &Binary{}
		case reflect.TypeOf((*Stmt)(nil)).Elem():
			n = &ExprStmt{}
		default:
			n = &Ident{}
		}
		if depth > 0 {
			fill(reflect.ValueOf(n).Elem(), depth-1)
		}
		v.Set(reflect.ValueOf(n))
	default:
		panic("fill: unexpected kind " + v.Kind().String())
	}
}

// addrs collects the addresses of the pointers and slice arrays reachable
// from v, but for the Sources of positions, which copies share.
func addrs(v reflect.Value, seen map[uintptr]bool) map[uintptr]bool {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == sourceType || seen[v.Pointer()] {
			return seen
		}
		seen[v.Pointer()] = true
		addrs(v.Elem(), seen)
	case reflect.Interface:
		if !v.IsNil() {
			addrs(v.Elem(), seen)
		}
	case reflect.Slice:
		if v.Len() > 0 {
			seen[v.Pointer()] = true
		}
		for i := range v.Len() {
			addrs(v.Index(i), seen)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			addrs(v.Field(i), seen)
		}
	}
	return seen
}
