package check_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/tracefs"
)

// symsEnv is testEnv with a kernel symbol table in which lookup_fast exists
// only renamed and md_flush_request lives in a module that is not loaded.
type symsEnv struct {
	*tracefs.Env
	syms      *tracefs.Symbols
	traceable map[string]bool
}

func (e symsEnv) KernelSymbols() (*tracefs.Symbols, error) {
	if e.syms == nil {
		panic("the symbol table was read")
	}
	return e.syms, nil
}

// TraceableFunctions is available_filter_functions as the kernel of the
// symbol table would list it, when traceable is set.
func (e symsEnv) TraceableFunctions() (map[string]bool, error) { return e.traceable, nil }

// TestKprobeRenamedFunctions: a kprobe on a function the compiler renamed
// reads its arguments with argN only, and a missing function is a
// positioned error saying why.
func TestKprobeRenamedFunctions(t *testing.T) {
	env := symsEnv{
		tracefs.NewEnv(filepath.Join("..", "testdata", "tracefs"), tracefs.WithBTF(testbtf.Spec(t))),
		tracefs.NewSymbols([]string{"vfs_read", "lookup_fast.constprop.0"}, nil, nil, true, map[string]string{"md_flush_request": "md_mod"}),
		map[string]bool{"vfs_read": true, "lookup_fast.constprop.0": true},
	}
	for src, want := range map[string]string{
		`kprobe:lookup_fast.constprop.0 { @[func] = count(); @a = arg1; }`: "",
		`kprobe:lookup_fast.* { @[func] = count(); @a = arg1; }`:           "",
		`kprobe:lookup_fast.constprop.0 { @ = args.nd; }`:                  "stdin:1:38-42: ERROR: args is not available for kprobe:lookup_fast.constprop.0: the compiler renamed lookup_fast (.constprop.0) and may have changed its arguments, and BTF has no prototype for a renamed function; read them with arg0, arg1, ...",
		// As in bpftrace, a wildcard that matches nothing is dropped when
		// another attach point of the probe matches (dcsnoop.bt).
		`kprobe:vfs_read, kprobe:vfs_read.constprop.* { exit(); }`: "",
		`kprobe:nosuch_a*, kprobe:nosuch_b* { exit(); }`:           "stdin:1:1-17: ERROR: no kernel functions match nosuch_a* (and 1 more errors)",
		`kprobe:lookup_fast { exit(); }`:                           "stdin:1:1-19: ERROR: No matches for kprobe lookup_fast: the compiler renamed the function; did you mean kprobe:lookup_fast.constprop.0?",
		`kprobe:md_flush_request { exit(); }`:                      "stdin:1:1-24: ERROR: No matches for kprobe md_flush_request: the function is in kernel module md_mod, which is not loaded.",
	} {
		file, err := syntax.Parse("stdin", src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		_, err = check.Check(file, env, check.Options{})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if (want == "" && got != "") || !strings.HasPrefix(got, want) {
			t.Errorf("%s:\n%s\nwant\n%s", src, got, want)
		}
	}
	// missing_probes = warn: the missing function is skipped with its reason.
	src := "config = { missing_probes = \"warn\" }\nkprobe:md_flush_request, kprobe:vfs_read { exit(); }"
	file, err := syntax.Parse("stdin", src)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := check.Check(file, env, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "stdin:2:1-24: WARNING: No matches for kprobe md_flush_request: the function is in kernel module md_mod, which is not loaded. Skipping."
	if got := syntax.RenderWarnings(prog.Warnings, src); !strings.HasPrefix(got, want) {
		t.Errorf("warnings:\n%s\nwant\n%s", got, want)
	}
}

// TestKprobeNoSymbolRead: where available_filter_functions cannot be read,
// an exact kprobe on a function of BTF checks without reading
// /proc/kallsyms (about 50 ms of kernel time): the kernel decides at
// attach.
func TestKprobeNoSymbolRead(t *testing.T) {
	env := symsEnv{Env: tracefs.NewEnv(filepath.Join("..", "testdata", "tracefs"), tracefs.WithBTF(testbtf.Spec(t)))}
	file, err := syntax.Parse("stdin", `kprobe:vfs_read { @[((struct file *)arg0)->f_path.dentry->d_name.name] = count(); }`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := check.Check(file, env, check.Options{}); err != nil {
		t.Fatal(err)
	}
}

// TestKprobeNotTraceable: a kprobe on a function kallsyms lacks is
// bpftrace's warning, then its error, each at the attach point.
func TestKprobeNotTraceable(t *testing.T) {
	env := symsEnv{
		tracefs.NewEnv(filepath.Join("..", "testdata", "tracefs"), tracefs.WithBTF(testbtf.Spec(t))),
		tracefs.NewSymbols([]string{"vfs_read"}, nil, nil, true, nil),
		map[string]bool{"vfs_read": true},
	}
	src := `kprobe:vfs_read, kprobe:vmlinux:bad { exit(); }`
	file, err := syntax.Parse("stdin", src)
	if err != nil {
		t.Fatal(err)
	}
	_, err = check.Check(file, env, check.Options{})
	caret := strings.Repeat(" ", 17) + strings.Repeat("~", 18) + "\n"
	want := `stdin:1:18-36: WARNING: bad is not traceable (either non-existing, inlined, or marked as "notrace"); attaching to it will likely fail` + "\n" + src + "\n" + caret +
		"stdin:1:18-36: ERROR: No matches for kprobe vmlinux:bad.\n" + src + "\n" + caret
	if got := syntax.Render(err, src); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
