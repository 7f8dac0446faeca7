package builtin_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// enumUseAllowed are the places outside the definitions that still name a
// value of one of the provider package's enums (a context kind, a phase),
// as "path Name" (path from the repository root), with why the value is
// the right primitive there. The list only shrinks: a stage asks the
// definition (a field, a hook, a method such as CtxKind.ArgsInRegs or
// Provider.Attaches) rather than comparing kinds.
var enumUseAllowed = map[string]string{
	"runtime/runtime.go Begin": "the runtime's schedule: it runs each phase's probes at that phase",
	"runtime/runtime.go End":   "the runtime's schedule: it runs each phase's probes at that phase",
	"runtime/runtime.go Bench": "the runtime's schedule: it runs each phase's probes at that phase",
	"runtime/runtime.go Test":  "the runtime's schedule: it runs each phase's probes at that phase",
}

// TestNoEnumCompares checks that the packages outside provider/ (the
// stages, the builtins, the tools) never name a constant of an enum type the provider package declares
// (CtxKind, Phase): what a stage needs to know about a provider is a fact
// its definition declares, as TestNoNameCompares keeps the names.
func TestNoEnumCompares(t *testing.T) {
	enums := providerEnums(t)
	if len(enums) == 0 {
		t.Fatal("no typed constants found in the provider package")
	}
	found := map[string]bool{}
	stageFiles(t, []string{"lang", "codegen", "runtime", "cmd", "lsp", "builtin", "object", "output", "format", "internal", "metrics", "bench", "e2e", "vmtest"}, func(rel, path string) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "provider" || enums[sel.Sel.Name] == "" {
				return true
			}
			key := rel + " " + sel.Sel.Name
			found[key] = true
			if enumUseAllowed[key] == "" {
				p := fset.Position(sel.Pos())
				t.Errorf("%s:%d:%d names the %s value provider.%s; ask the definition", rel, p.Line, p.Column, enums[sel.Sel.Name], sel.Sel.Name)
			}
			return true
		})
	})
	staleKeys(t, found, "names the value", enumUseAllowed)
}

// providerEnums returns the typed constants the provider package declares
// (iota continuations included), each with its type's name.
func providerEnums(t *testing.T) map[string]string {
	dir := filepath.Join("..", "provider")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			typ := "" // the type an iota continuation repeats
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				if vs.Type != nil || len(vs.Values) > 0 {
					typ = ""
					if id, ok := vs.Type.(*ast.Ident); ok {
						typ = id.Name
					}
				}
				if typ == "" {
					continue
				}
				for _, n := range vs.Names {
					out[n.Name] = typ
				}
			}
		}
	}
	return out
}
