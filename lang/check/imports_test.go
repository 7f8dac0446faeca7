package check_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// checkScript parses and checks src as the script name, with the test
// environment unless env is given.
func checkScript(t *testing.T, name, src string, env check.Env) (*check.Program, error) {
	t.Helper()
	file, err := syntax.Parse(name, src)
	if err != nil {
		t.Fatalf("Parse: %s", syntax.Render(err, src))
	}
	if env == nil {
		env = testEnv(t)
	}
	return check.Check(file, env, check.Options{})
}

// TestImportMerge: an imported script's probes come before the script's,
// and its macros and map declarations join the script's; the tree given to
// Check stays as parsed.
func TestImportMerge(t *testing.T) {
	src := `import "imports/counter.bt"; import "imports/nested.bt"; BEGIN { greet_twice(); @last[0] = 1; }`
	file, err := syntax.Parse("testdata/check/main.bt", src)
	if err != nil {
		t.Fatal(err)
	}
	before := ast.Dump(file)
	prog, err := check.Check(file, testEnv(t), check.Options{})
	if err != nil {
		t.Fatal(syntax.Render(err, src))
	}
	if after := ast.Dump(file); after != before || len(file.Probes) != 1 || len(file.Macros) != 0 {
		t.Errorf("Check modified its input:\n%s\nbecame\n%s", before, after)
	}
	var got []string
	for _, p := range prog.Probes {
		got = append(got, p.AST.Attach[0].Raw+" "+p.AST.Pos().String())
	}
	want := []string{
		"tracepoint:syscalls:sys_enter_getppid testdata/check/imports/counter.bt:3:1",
		"BEGIN testdata/check/main.bt:1:58",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("probes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if mt := prog.Maps["@last"]; mt == nil || mt.Decl != "hash" {
		t.Errorf("@last = %+v, want the declared hash", mt)
	}
	begin := ast.Dump(prog.Probes[1].AST)
	if n := strings.Count(begin, `(call printf (str "hello\n"))`); n != 2 {
		t.Errorf("greet_twice expands to %d greetings, want 2:\n%s", n, begin)
	}
}

// TestImportErrors: errors inside an imported file are positioned in that
// file and show its lines; errors of the import itself are positioned at
// the import, in the file that has it.
func TestImportErrors(t *testing.T) {
	for _, tt := range []struct{ src, want string }{
		{`import "imports/syntax.bt"; BEGIN { }`, `testdata/check/imports/syntax.bt:3:22-23: ERROR: unexpected token ";", expected expression
macro broken() { 1 + ; }
                     ~
`},
		{`import "imports/typeerr.bt"; BEGIN { }`, `testdata/check/imports/typeerr.bt:3:2-21: ERROR: Type mismatch for @mixed: trying to assign value of type 'string[16]' when map already has a type 'int64'
    @mixed = "a string";
    ~~~~~~~~~~~~~~~~~~~
`},
		{`import "imports/config.bt"; BEGIN { }`, "testdata/check/imports/config.bt:1:1-29: ERROR: invalid `config` within import\n" +
			"config = { max_strlen = 32 }\n" +
			"~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"},
		{`import "imports/badtype.h"; BEGIN { }`, `testdata/check/imports/badtype.h:2:2-14: ERROR: C definition: unknown type "no_such_type"
    no_such_type member;
    ~~~~~~~~~~~~
`},
		{`import "imports/nope.bt"; BEGIN { }`, `testdata/check/main.bt:1:1-25: ERROR: Unable to find suitable path for import
import "imports/nope.bt"; BEGIN { }
~~~~~~~~~~~~~~~~~~~~~~~~
HINT: checked: testdata/check/imports/nope.bt
`},
		// An import in an imported file is looked up next to it, then
		// next to the script (as bpftrace 0.26 looks).
		{`import "imports/missing_nested.bt"; BEGIN { }`, `testdata/check/imports/missing_nested.bt:2:1-17: ERROR: Unable to find suitable path for import
import "gone.bt";
~~~~~~~~~~~~~~~~
HINT: checked: testdata/check/imports/gone.bt,testdata/check/gone.bt
HINT: similar to builtins: stdlib/base.bpf.c
`},
		{`import "imports/add_one.bpf.c"; BEGIN { }`, `testdata/check/main.bt:1:1-31: ERROR: cannot import "testdata/check/imports/add_one.bpf.c": gotrace does not compile BPF C sources (it has no C compiler); only the standard library's, which it has built in, can be imported
import "imports/add_one.bpf.c"; BEGIN { }
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
`},
		// A conversion inside an imported string literal.
		{`import "imports/printf.bt"; BEGIN { report(); }`, `testdata/check/imports/printf.bt:2:31-32: ERROR: printf(): %999999d: width and precision may be at most 4096
macro report() { printf("x %d %999999d\n", 1, 2); }
                              ~
`},
		// The script's errors come first.
		{`import "imports/typeerr.bt"; BEGIN { @x = nosuch; }`, `testdata/check/main.bt:1:43-49: ERROR: unknown identifier "nosuch"
import "imports/typeerr.bt"; BEGIN { @x = nosuch; }
                                          ~~~~~~
testdata/check/imports/typeerr.bt:3:2-21: ERROR: Type mismatch for @mixed: trying to assign value of type 'string[16]' when map already has a type 'int64'
    @mixed = "a string";
    ~~~~~~~~~~~~~~~~~~~
`},
	} {
		_, err := checkScript(t, "testdata/check/main.bt", tt.src, nil)
		if err == nil {
			t.Errorf("%s: no error", tt.src)
			continue
		}
		if got := syntax.Render(err, tt.src); got != tt.want {
			t.Errorf("%s: got\n%s\nwant\n%s", tt.src, got, tt.want)
		}
	}
}

// TestImportFromStdin: a one-liner's imports are looked up in the current
// directory, as bpftrace looks them up for -e.
func TestImportFromStdin(t *testing.T) {
	if _, err := checkScript(t, "stdin", `import "testdata/check/imports/greet.bt"; BEGIN { greet(); }`, nil); err != nil {
		t.Error(err)
	}
}

// TestImportDirectory: a directory's files are imported in name order,
// their probes in that order before the script's.
func TestImportDirectory(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "lib/b.bt", `BEGIN { printf("b\n"); }`)
	write(t, dir, "lib/a.bt", `BEGIN { printf("a\n"); } END { }`)
	write(t, dir, "lib/c.h", "#define C 3\n")
	prog, err := checkScript(t, filepath.Join(dir, "main.bt"), `import "lib"; BEGIN { @ = C; }`, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range prog.Probes {
		got = append(got, filepath.Base(p.AST.Pos().Filename)+":"+p.AST.Attach[0].Raw)
	}
	if s := strings.Join(got, " "); s != "a.bt:BEGIN a.bt:END b.bt:BEGIN main.bt:BEGIN" {
		t.Errorf("probes %s", s)
	}
}

// TestImportWorldWritable: bpftrace refuses files in a directory anyone
// may write, and directories anyone may write.
func TestImportWorldWritable(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "open/lib.bt", "macro m() { 1 }")
	write(t, dir, "safe/lib/x.bt", "macro x() { 1 }")
	write(t, dir, "safe/lib/y.bt", "macro y() { 1 }")
	for _, p := range []string{"open", "safe/lib/y.bt"} {
		if err := os.Chmod(filepath.Join(dir, p), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct{ src, want string }{
		{`import "open/lib.bt"; BEGIN { }`, `cowardly refusing to import from a directory with global write permissions: "` + dir + `/open/lib.bt"`},
		{`import "open"; BEGIN { }`, `cowardly refusing to import from a directory with global write permissions: "` + dir + `/open"`},
		{`import "safe/lib"; BEGIN { }`, `cowardly refusing to import from a directory with global write permissions: "` + dir + `/safe/lib/y.bt"`},
	} {
		_, err := checkScript(t, filepath.Join(dir, "main.bt"), tt.src, nil)
		if err == nil || !strings.HasSuffix(err.Error(), "ERROR: "+tt.want) {
			t.Errorf("%s: error %v, want %s", tt.src, err, tt.want)
		}
	}
	// Only the file and its directory count: a file in a safe directory
	// of a world-writable one is imported.
	write(t, dir, "open/safe/ok.bt", "macro ok() { 1 }")
	if err := os.Chmod(filepath.Join(dir, "open/safe"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := checkScript(t, filepath.Join(dir, "main.bt"), `import "open/safe/ok.bt"; BEGIN { @ = ok(); }`, nil); err != nil {
		t.Error(err)
	}
}

// TestImportWithoutScriptFiles: an Env that cannot read files finds only
// the standard library.
func TestImportWithoutScriptFiles(t *testing.T) {
	type envOnly struct{ check.Env }
	env := envOnly{testEnv(t)}
	_, err := checkScript(t, "testdata/check/main.bt", `import "imports/greet.bt"; BEGIN { }`, env)
	if err == nil || !strings.Contains(err.Error(), "Unable to find suitable path for import: the environment cannot read host files") {
		t.Errorf("error %v, want one saying the environment cannot read host files", err)
	}
	if _, err := checkScript(t, "testdata/check/main.bt", `import "stdlib/test"; BEGIN { @ = __always_true(); }`, env); err != nil {
		t.Error(err)
	}
}

// write creates the file dir/name, and its directories.
func write(t *testing.T, dir, name, text string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestImportHeader: a header's #defines become constants, its enumerators
// too, and its structs have their C layout.
func TestImportHeader(t *testing.T) {
	got := macroValues(t, `import "imports/types.h"; import "imports/lib"; BEGIN { @ = ANSWER + LONG_SUM + GREEN + RED + TWO; }`, check.Options{})
	for name, want := range map[string]uint64{"ANSWER": 42, "LONG_SUM": 47, "GREEN": 5, "RED": 0, "TWO": 2} {
		if cv, ok := got[name]; !ok || cv.IsStr || cv.Int != want {
			t.Errorf("%s = %+v (found %v), want %d", name, cv, ok, want)
		}
	}
	_, err := checkScript(t, "testdata/check/main.bt", `import "imports/types.h"; BEGIN { @ = (struct opaque *)0; }`, nil)
	if err == nil || !strings.Contains(err.Error(), `main.bt:1:40-55: ERROR: unknown type "struct opaque"`) {
		t.Errorf("a forward declaration defines no type: error %v", err)
	}
}

// TestImportWarnings: a warning about an imported file shows its lines.
func TestImportWarnings(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "decls.bt", "// unused\nlet @unused = hash(4);\n")
	src := `import "decls.bt"; BEGIN { }`
	prog, err := checkScript(t, filepath.Join(dir, "main.bt"), src, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := dir + "/decls.bt:2:1-23: WARNING: Unused map: @unused\nlet @unused = hash(4);\n~~~~~~~~~~~~~~~~~~~~~~\n"
	if got := syntax.RenderWarnings(prog.Warnings, src); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
