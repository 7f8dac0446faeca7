package builtin_test

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/internal/hostfs"
	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/output"
	"github.com/gotrace/gotrace/tracefs"
)

// testEnv is the pinned tracefs and BTF, the host's files (uprobe
// targets, cgroup directories) and a fixed kernel symbol table.
type testEnv struct {
	*tracefs.Env
	hostfs.Files
}

func (testEnv) KernelSymbol(name string) (uint64, error) { return 0xffffffff81000000, nil }

// compile checks and compiles src against the pinned BTF and the test
// tracefs, as the codegen goldens do.
func compile(t *testing.T, src string) *check.Program {
	t.Helper()
	file, err := syntax.Parse("example.bt", src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	env := testEnv{tracefs.NewEnv(filepath.Join("..", "testdata", "tracefs"), tracefs.WithBTF(testbtf.Spec(t))), hostfs.Files{}}
	prog, err := check.Check(file, env, check.Options{Unsafe: true, Cpid: 1, NCPUs: 4})
	if err != nil {
		t.Fatalf("check %q: %v", src, err)
	}
	if _, err := codegen.Compile(prog, codegen.Options{BTF: testbtf.Spec(t)}); err != nil {
		t.Fatalf("compile %q: %v", src, err)
	}
	return prog
}

// TestFuncs walks every builtin function: its example checks and compiles,
// the checker resolved the call to the entry, and the call's type has the
// entry's Result kind (which routes output's decoding).
func TestFuncs(t *testing.T) {
	for _, f := range builtin.Funcs() {
		t.Run(f.Name, func(t *testing.T) {
			if f.Check == nil {
				t.Fatal("no Check hook")
			}
			if f.Example == "" {
				t.Fatal("no Example")
			}
			if !f.Agg && f.Emit == nil && f.Buffer == nil && !constOnly[f.Name] {
				t.Fatal("neither Emit nor Buffer, and not a compile-time constant")
			}
			if want, ok := compileErrors[f.Name]; ok {
				checkError(t, f.Example, want)
				return
			}
			prog := compile(t, f.Example)
			found := false
			for _, p := range prog.Probes {
				for call, got := range p.Info.Calls {
					if got != f {
						continue
					}
					found = true
					typ := p.Info.TypeOf(call)
					if f.Agg {
						typ = aggType(prog, p, call)
					}
					if typ == nil || typ.Kind != f.Result {
						t.Errorf("%s: type %v, want kind %v", call.Name, typ, f.Result)
					}
				}
			}
			if !found {
				t.Errorf("the example %q does not resolve a call to %s", f.Example, f.Name)
			}
		})
	}
}

// compileErrors are the functions whose example is a compile-time error,
// and the error (dw_ustack's: the example has no target process).
var compileErrors = map[string]string{
	"fail":      "example.bt:1:32-79: ERROR: no argument: 0 given, 1 needed",
	"dw_ustack": "example.bt:1:88-100: ERROR: dw_ustack requires a target process. Use -p, -c, or --dwarf-pid to specify one.",
}

// varErrors are the variables whose example is a compile-time error, and
// the error.
var varErrors = map[string]string{
	"dw_ustack": "example.bt:1:88-97: ERROR: dw_ustack requires a target process. Use -p, -c, or --dwarf-pid to specify one.",
}

// checkError checks that the example src is the compile-time error want.
func checkError(t *testing.T, src, want string) {
	t.Helper()
	file, err := syntax.Parse("example.bt", src)
	if err != nil {
		t.Fatalf("parse %q: %v", src, err)
	}
	env := testEnv{tracefs.NewEnv(filepath.Join("..", "testdata", "tracefs"), tracefs.WithBTF(testbtf.Spec(t))), hostfs.Files{}}
	_, err = check.Check(file, env, check.Options{})
	if err == nil || err.Error() != want {
		t.Errorf("check %q: error %v, want %q", src, err, want)
	}
}

// constOnly are the functions whose value the checker always computes.
var constOnly = map[string]bool{"kaddr": true, "getopt": true}

// aggType is the value type of the map an aggregation call is assigned to.
func aggType(prog *check.Program, p *check.Probe, call *ast.Call) *types.Type {
	var typ *types.Type
	ast.Inspect(p.AST, func(n ast.Node) bool {
		if s, ok := n.(*ast.AssignStmt); ok && s.Rhs == ast.Expr(call) {
			if m, ok := s.Lhs.(*ast.MapRef); ok {
				typ = prog.Maps[m.Name].Value
			}
		}
		return true
	})
	return typ
}

// TestVars walks every builtin variable as TestFuncs walks the functions.
func TestVars(t *testing.T) {
	for _, v := range builtin.Vars() {
		t.Run(v.Name, func(t *testing.T) {
			if v.Type == nil {
				t.Fatal("no Type hook")
			}
			if v.Example == "" {
				t.Fatal("no Example")
			}
			if v.Emit == nil && v.Buffer == nil && v.Const == nil && v.Name != "args" {
				t.Fatal("no Emit, Buffer or Const hook")
			}
			if want, ok := varErrors[v.Name]; ok {
				checkError(t, v.Example, want)
				return
			}
			prog := compile(t, v.Example)
			found := false
			for _, p := range prog.Probes {
				for id, got := range p.Info.Idents {
					if got != v {
						continue
					}
					found = true
					if typ := p.Info.TypeOf(id); typ == nil || typ.Kind != v.Result {
						t.Errorf("%s: type %v, want kind %v", id.Name, typ, v.Result)
					}
				}
			}
			if !found {
				t.Errorf("the example %q does not resolve %s", v.Example, v.Name)
			}
			// bpftrace's stdlib spelling, __builtin_NAME, is the same entry.
			re := regexp.MustCompile(`(^|[^.\w"])` + v.Name + `\b`)
			alias := re.ReplaceAllString(v.Example, "${1}"+builtin.Prefix+v.Name)
			if alias == v.Example {
				t.Fatalf("cannot respell %s in %q", v.Name, v.Example)
			}
			prog = compile(t, alias)
			found = false
			for _, p := range prog.Probes {
				for _, got := range p.Info.Idents {
					found = found || got == v
				}
			}
			if !found {
				t.Errorf("%q does not resolve %s", alias, v.Name)
			}
		})
	}
}

// TestDecode: the kinds that entries name as their Result are rendered by
// output as the builtin's documentation says.
func TestDecode(t *testing.T) {
	le := func(v uint64) []byte {
		b := make([]byte, 8)
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		return b
	}
	for _, tc := range []struct {
		name string
		arg  uint64
		want string
	}{
		{"strerror", 2, "No such file or directory"},
		{"syscall_name", 39, "getpid"},
		{"signal_name", 9, "Killed"},
		{"signal_name", 0, "Unknown signal 0"},
		{"signal_name", 35, "Real-time signal 1"},
		{"signal_name", 1024, "N/A"},
	} {
		f := builtin.LookupFunc(tc.name)
		got := output.FormatValue(&types.Type{Kind: f.Result, Size: 8}, le(tc.arg))
		if got != tc.want {
			t.Errorf("%s(%d) prints %q, want %q", tc.name, tc.arg, got, tc.want)
		}
	}
}
