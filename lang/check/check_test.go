package check_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/internal/fuzzwatch"
	"github.com/gotrace/gotrace/internal/hostfs"
	"github.com/gotrace/gotrace/internal/langtest"
	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/tracefs"
)

// testEnv is the pinned tracefs snapshot and kernel BTF in testdata, with
// the host's files for uprobe targets and cgroupid().
func testEnv(t testing.TB) check.Env {
	return struct {
		*tracefs.Env
		hostfs.Files
	}{tracefs.NewEnv(tracefsDir, tracefs.WithBTF(testbtf.Spec(t))), hostfs.Files{}}
}

// tracefsDir is the repository's tracefs snapshot.
var tracefsDir = filepath.Join("..", "..", "testdata", "tracefs")

var annotRe = regexp.MustCompile(`### "((?:[^"\\]|\\.)*)"`)

// warnRe annotates a line with a warning the checker must report there
// (warnings not annotated are not checked).
var warnRe = regexp.MustCompile(`#W# "((?:[^"\\]|\\.)*)"`)

// TestCheckErrors checks every testdata/check/*.bt file: each error must be
// reported on a line annotated with ### "regexp" matching its message, and
// each annotation must match an error on its line; each #W# "regexp" must
// match a warning on its line. Chunks of one file are
// separated by lines of "---" and checked as separate scripts.
func TestCheckErrors(t *testing.T) {
	files, err := filepath.Glob("testdata/check/*.bt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test files: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		start := 0
		for i := 0; i <= len(lines); i++ {
			if i < len(lines) && lines[i] != "---" {
				continue
			}
			// Keep line numbers: blank out the other chunks.
			chunk := make([]string, len(lines))
			copy(chunk[start:i], lines[start:i])
			checkChunk(t, f, strings.Join(chunk, "\n"), start+1)
			start = i + 1
		}
	}
}

// chunkOptions are the options the chunks of the file name are checked
// with: dwustack.bt's have a target process (--dwarf-pid), which
// dw_ustack needs.
func chunkOptions(name string) check.Options {
	opts := check.Options{Params: []string{"42", "hello"}}
	if filepath.Base(name) == "dwustack.bt" {
		opts.DwarfPids = []int{4242}
	}
	return opts
}

func checkChunk(t *testing.T, name, src string, firstLine int) {
	t.Helper()
	want, wantWarn := map[int][]*regexp.Regexp{}, map[int][]*regexp.Regexp{}
	for i, l := range strings.Split(src, "\n") {
		for _, m := range annotRe.FindAllStringSubmatch(l, -1) {
			want[i+1] = append(want[i+1], regexp.MustCompile(strings.ReplaceAll(m[1], `\"`, `"`)))
		}
		for _, m := range warnRe.FindAllStringSubmatch(l, -1) {
			wantWarn[i+1] = append(wantWarn[i+1], regexp.MustCompile(strings.ReplaceAll(m[1], `\"`, `"`)))
		}
	}
	// Annotations are comments for the parser.
	src = annotRe.ReplaceAllStringFunc(src, func(s string) string { return "//" + s[2:] })
	src = warnRe.ReplaceAllStringFunc(src, func(s string) string { return "//" + s[2:] })
	file, err := syntax.Parse(name, src)
	if err == nil {
		before := ast.Dump(file)
		var prog *check.Program
		prog, err = check.Check(file, testEnv(t), chunkOptions(name))
		if prog != nil {
			for _, w := range prog.Warnings {
				for i, rx := range wantWarn[w.Pos.Line] {
					if rx != nil && rx.MatchString(w.Msg) {
						wantWarn[w.Pos.Line][i] = nil
						break
					}
				}
			}
		}
		if after := ast.Dump(file); after != before {
			t.Errorf("%s:%d: Check modified its input:\n%s\nbecame\n%s", name, firstLine, before, after)
		}
	}
	var errs syntax.ErrorList
	switch e := err.(type) {
	case nil:
	case syntax.ErrorList:
		errs = e
	default:
		t.Errorf("%s:%d: unexpected error type %T: %v", name, firstLine, err, err)
		return
	}
	for _, e := range errs {
		matched := false
		for i, rx := range want[e.Pos.Line] {
			if rx != nil && rx.MatchString(e.Msg) {
				want[e.Pos.Line][i] = nil
				matched = true
				break
			}
		}
		if !matched {
			t.Errorf("%s: unexpected error: %s", e.Pos, e.Msg)
		}
	}
	for line, rxs := range want {
		for _, rx := range rxs {
			if rx != nil {
				t.Errorf("%s:%d: missing error matching %q", name, line, rx)
			}
		}
	}
	for line, rxs := range wantWarn {
		for _, rx := range rxs {
			if rx != nil {
				t.Errorf("%s:%d: missing warning matching %q", name, line, rx)
			}
		}
	}
}

// TestCheckKeepsInput checks that Check leaves the tree it is given as
// parsed, though it expands macros, adds the -p pid filter, substitutes
// positional parameters in attach points and applies config from the
// environment; and that the checked program has them.
func TestCheckKeepsInput(t *testing.T) {
	src := `config = { max_strlen = 32 }
macro twice(x) { x * 2 }
macro one() { 1 }
tracepoint:syscalls:sys_enter_$1 /one/ { @n[comm] = twice(args.fd); }
tracepoint:syscalls:sys_exit_openat { @r = count(); }
interval:s:1 { exit(); }
`
	file, err := syntax.Parse("keep.bt", src)
	if err != nil {
		t.Fatal(err)
	}
	before := ast.Dump(file)
	prog, err := check.Check(file, testEnv(t), check.Options{
		Params:    []string{"close"},
		Pid:       1234,
		ConfigEnv: map[string]string{"max_map_keys": "100"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if after := ast.Dump(file); after != before {
		t.Errorf("Check modified its input:\n%s\nbecame\n%s", before, after)
	}
	if prog.File == file {
		t.Errorf("Program.File is the caller's tree, want the checked clone")
	}
	got := ast.Dump(prog.File)
	for _, want := range []string{
		"(binary == (ident pid) (int 1234))",          // -p filter
		"(binary * (field (ident args) .fd) (int 2))", // macro twice
	} {
		if !strings.Contains(got, want) {
			t.Errorf("checked tree lacks %s:\n%s", want, got)
		}
	}
	for _, pr := range prog.Probes {
		if strings.Contains(ast.Dump(pr.AST), "call twice") {
			t.Errorf("probe %d keeps the macro call: %s", pr.Index, ast.Dump(pr.AST))
		}
	}
}

// FuzzCheck checks that Check never panics and that every error it reports
// is a positioned syntax.ErrorList, seeded with the chunks of
// testdata/check/*.bt.
func FuzzCheck(f *testing.F) {
	files, _ := filepath.Glob("testdata/check/*.bt")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, chunk := range strings.Split(string(data), "\n---\n") {
			f.Add(chunk)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		fuzzwatch.Run(t, fuzzwatch.Default, len(src), func() {
			file, err := syntax.Parse("f.bt", src)
			if err != nil {
				return
			}
			_, err = check.Check(file, testEnv(t), check.Options{Params: []string{"42", "hello"}})
			if err == nil {
				return
			}
			var list syntax.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %T %v is not a non-empty syntax.ErrorList", err, err)
			}
			langtest.ErrorPos(t, src, list)
		})
	})
}

// TestUnusedMapDecl checks that a declared map nothing uses is dropped
// with a warning, as bpftrace does, rather than refused.
func TestUnusedMapDecl(t *testing.T) {
	src := "let @a = percpuhash(1); BEGIN { }"
	file, err := syntax.Parse("stdin", src)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := check.Check(file, testEnv(t), check.Options{})
	if err != nil {
		t.Fatal(syntax.Render(err, src))
	}
	if _, ok := prog.Maps["@a"]; ok {
		t.Error("the unused map @a is kept")
	}
	if got := syntax.RenderWarnings(prog.Warnings, src); !strings.Contains(got, "WARNING: Unused map: @a") {
		t.Errorf("warnings = %q, want Unused map: @a", got)
	}
}

// literalChain is a script whose one expression chains n literals.
func literalChain(n int) string {
	return "BEGIN { @x = 1" + strings.Repeat(" + 1", n-1) + "; }"
}

// TestLiteralChain: a long chain of literals is checked and folded (its
// time is BenchmarkLiteralChain's).
func TestLiteralChain(t *testing.T) {
	file, err := syntax.Parse("t.bt", literalChain(10000))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := check.Check(file, testEnv(t), check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rhs := prog.Probes[0].AST.Body.Stmts[0].(*ast.AssignStmt).Rhs
	if c, ok := prog.Probes[0].Info.Consts[rhs]; !ok || c.Int != 10000 {
		t.Errorf("the chain folds to %+v, %v; want 10000", c, ok)
	}
}

// BenchmarkLiteralChain parses and checks a 10,000-term literal chain
// (issue 20's goal: 0.2 s; it was quadratic in the checker).
func BenchmarkLiteralChain(b *testing.B) {
	src := literalChain(10000)
	env := testEnv(b)
	for b.Loop() {
		file, err := syntax.Parse("t.bt", src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := check.Check(file, env, check.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
