package preamble

import (
	"io/fs"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/provider"
)

// Env is what the preamble passes need to know about the machine: whether
// the kernel has BTF (BPFTRACE_HAVE_BTF). An Env that implements
// ScriptFiles also gives them the files a script includes and imports.
type Env interface {
	BTF() (*btf.Spec, error)
}

// ScriptFiles is an optional extension of Env: environments that can read
// the files a script names in its text implement it. The passes read
// them only through it: the headers of #include (and the system include
// directories, to tell a system header), and the files and directories of
// import. Without it, user headers and imported files report an error.
type ScriptFiles interface {
	// ReadScriptFile returns the contents of a file.
	ReadScriptFile(path string) ([]byte, error)
	// StatScriptFile describes a file or directory, following symbolic
	// links, as os.Stat does (permission bits included).
	StatScriptFile(path string) (fs.FileInfo, error)
	// ReadScriptDir lists the entries of a directory, sorted by name.
	ReadScriptDir(path string) ([]fs.DirEntry, error)
}

// Options are the inputs of the passes that do not come from the script.
type Options struct {
	// IncludeDirs are the directories searched for user headers (bpftrace
	// -I), after the script's own directory for #include "name".
	IncludeDirs []string
	// Includes are headers included before the script's preamble (bpftrace
	// --include), searched as #include "name" from the current directory.
	Includes []string
}

// Preamble holds the state of the passes over one script, from Import to
// ExpandMacros, which the checker calls in that order: Import, Preprocess,
// Constants, ExpandMacros.
type Preamble struct {
	env  Env
	opts Options
	errs *syntax.ErrorList
	// imports are the standard library files and packages the script
	// imports, imported the files (imports.go), each after those it
	// imports.
	imports  map[string]bool
	imported []*importUnit
	// pp is the preprocessor, between Preprocess and Constants.
	pp *preproc
	// defines holds the #define constants of the preamble (Constants).
	defines map[string]builtin.Const
	// macros are the script's macros by name, one per arity.
	macros map[string][]*ast.Macro
	// Expansions holds, for a call copied out of a macro body, the spans
	// of the macro uses it was expanded from, innermost first
	// (ExpandMacros).
	Expansions map[*ast.Call][]srcpos.Span
}

// New returns the passes over one script on env, reporting their errors
// into errs.
func New(env Env, opts Options, errs *syntax.ErrorList) *Preamble {
	return &Preamble{env: env, opts: opts, errs: errs, imports: map[string]bool{}}
}

func (c *Preamble) errorf(at srcpos.Spanned, format string, args ...any) {
	c.errs.Add(at, format, args...)
}

// scriptFiles returns the environment's ScriptFiles.
func (c *Preamble) scriptFiles() (ScriptFiles, error) {
	if f, ok := c.env.(ScriptFiles); ok {
		return f, nil
	}
	return nil, provider.ErrNoHostFiles
}
