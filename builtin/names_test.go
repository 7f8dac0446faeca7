package builtin_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/provider"
)

// nameCompareAllowed are the places that still compare a builtin's or a
// provider's name outside its definition, as "path name" (path from the
// repository root). The list only shrinks: a stage that needs to know
// something about a builtin or a provider asks its definition.
var nameCompareAllowed = map[string]string{}

// notNames are string compares that spell a builtin's or a provider's name
// but mean something else, with what they mean.
var notNames = map[string]string{
	"cmd/gotrace/main.go bench":          "the --mode value",
	"cmd/gotrace/main.go test":           "the --mode value",
	"cmd/gotrace/repl.go exit":           "the REPL's quit command",
	"cmd/kbench/main.go fentry":          "a benchmark method",
	"cmd/kbench/main.go kprobe":          "a benchmark method",
	"lang/syntax/lex_top.go config":      "the config block's keyword",
	"lang/syntax/literals.go u":          "a C integer suffix",
	"lang/syntax/parse_expr.go comptime": "the comptime operator's keyword",
	"lang/syntax/parse_expr.go typeinfo": "parsed as sizeof is: its operand may be a type",
	"lang/pretty/format.go comptime":     "the comptime operator's keyword, which the formatter writes as bpftrace does",
	"runtime/features.go pid":            "a task_struct member",
}

// TestNoNameCompares checks that lang/, codegen/, runtime/ and cmd/ never
// compare a string with the name of a builtin or a provider (==, != or a
// switch case): what a stage needs to know about a definition is a field or
// a hook of the definition, as the deps test keeps the stages' imports.
func TestNoNameCompares(t *testing.T) {
	names := map[string]string{}
	for _, f := range builtin.Funcs() {
		names[f.Name] = "builtin function"
	}
	for _, v := range builtin.Vars() {
		names[v.Name] = "builtin variable"
	}
	for _, p := range provider.All() {
		names[p.Name] = "provider"
		for _, a := range p.Aliases {
			names[a] = "provider"
		}
	}
	found := map[string]bool{}
	stageFiles(t, []string{"lang", "codegen", "runtime", "cmd"}, func(rel, path string) {
		for _, c := range nameCompares(t, path, names) {
			key := rel + " " + c.name
			found[key] = true
			if nameCompareAllowed[key] == "" && notNames[key] == "" {
				t.Errorf("%s: %s compares the %s name %q; ask its definition", rel, c.pos, names[c.name], c.name)
			}
		}
	})
	staleKeys(t, found, "compares the name", nameCompareAllowed, notNames)
}

// staleKeys fails for each key of the lists that was not found: what it
// says is gone.
func staleKeys(t *testing.T, found map[string]bool, what string, lists ...map[string]string) {
	var gone []string
	for _, list := range lists {
		for key := range list {
			if !found[key] {
				gone = append(gone, key)
			}
		}
	}
	sort.Strings(gone)
	for _, key := range gone {
		t.Errorf("%q no longer %s: remove it from the list", key, what)
	}
}

// stageFiles calls f with each non-test Go file under the directories
// (from the repository root), as its path from the root and from here.
func stageFiles(t *testing.T, dirs []string, f func(rel, path string)) {
	for _, dir := range dirs {
		root := filepath.Join("..", dir)
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel("..", path)
			f(filepath.ToSlash(rel), path)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

type nameCompare struct {
	pos  string
	name string
}

// nameCompares returns the string literals in names that the file compares
// with == or != or lists in a switch case.
func nameCompares(t *testing.T, path string, names map[string]string) []nameCompare {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []nameCompare
	lit := func(e ast.Expr) {
		b, ok := e.(*ast.BasicLit)
		if !ok || b.Kind != token.STRING {
			return
		}
		s, err := strconv.Unquote(b.Value)
		if err != nil || names[s] == "" {
			return
		}
		p := fset.Position(b.Pos())
		out = append(out, nameCompare{fmt.Sprintf("%d:%d", p.Line, p.Column), s})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			if n.Op == token.EQL || n.Op == token.NEQ {
				lit(n.X)
				lit(n.Y)
			}
		case *ast.CaseClause:
			for _, e := range n.List {
				lit(e)
			}
		}
		return true
	})
	return out
}
