package preamble

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/provider"
)

// importer resolves the imports of a script, as bpftrace 0.26's import
// does: `import "PATH";` names a bpftrace script (.bt), whose probes,
// macros, map declarations and C definitions join the script's; a C header
// (.h), whose type definitions and #defines do; a directory, whose
// supported files (not its subdirectories) are imported in name order; or
// a package or file of bpftrace's standard library (stdlib/task), whose C
// functions are gotrace builtins. PATH is looked up in the directory of the
// file that imports it, then in the script's (where bpftrace 0.26 looks for
// the imports of imported scripts too), then in the standard library.
// Files are read through the environment's ScriptFiles.
//
// Each file is imported once: importing it again, directly, through a
// directory or from another imported file, is ignored (so cycles end).
// Files and directories that others may write are refused, as bpftrace
// refuses them. BPF C sources and objects other than the standard
// library's are errors: gotrace has no C compiler.
type importer struct {
	c       *Preamble
	files   ScriptFiles // nil when the environment cannot read files
	rootDir string
	// resolved holds the imports looked up, by importing directory and
	// name; loaded the files imported (and the script), by cleaned path.
	resolved map[string]bool
	loaded   map[string]bool
}

// importUnit is one imported file: a script or a header.
type importUnit struct {
	dir  string      // its directory, for the #includes and imports in it
	file *ast.File   // a script
	defs []*ast.CDef // a header's preprocessor lines and type definitions
}

// Import imports the files the script names, in c.imported (a file after
// the files it imports), and the standard library names in c.imports,
// then merges the imported scripts' probes, macros and map declarations
// into file (the checker's clone): theirs first, in import order, then the
// script's own. Their C definitions are preprocessed after the script's
// (Preprocess).
func (c *Preamble) Import(file *ast.File) {
	if len(file.Imports) == 0 {
		return
	}
	files, _ := c.scriptFiles()
	im := &importer{c: c, files: files, rootDir: filepath.Dir(file.Name),
		resolved: map[string]bool{}, loaded: map[string]bool{filepath.Clean(file.Name): true}}
	im.imports(file.Imports, im.rootDir)
	c.mergeImports(file)
}

// imports resolves the imports of a file in dir.
func (im *importer) imports(list []*ast.Import, dir string) {
	for _, imp := range list {
		im.resolve(imp, dir)
	}
}

// resolve finds the file, directory or standard library entry an import
// names and imports it.
func (im *importer) resolve(imp *ast.Import, dir string) {
	key := dir + "\x00" + imp.Path
	if im.resolved[key] {
		return
	}
	im.resolved[key] = true
	if imp.Path == "" {
		im.c.errorf(imp, "Unable to find suitable path for import")
		return
	}
	var checked []string
	refused := ""
	if im.files != nil {
		for _, d := range searchDirs(dir, im.rootDir) {
			path := imp.Path
			if !filepath.IsAbs(path) {
				path = filepath.Join(d, path)
			}
			if slices.Contains(checked, path) {
				continue
			}
			checked = append(checked, path)
			info, err := im.files.StatScriptFile(path)
			if err != nil {
				continue
			}
			if im.worldWritable(path, info) {
				refused = path
				continue
			}
			im.importPath(imp, path, info, true)
			return
		}
	}
	if stdlibImports[imp.Path] {
		im.c.imports[imp.Path] = true
		return
	}
	switch {
	case refused != "":
		im.c.errorf(imp, "cowardly refusing to import from a directory with global write permissions: %q", refused)
	case im.files == nil:
		im.c.errorf(imp, "Unable to find suitable path for import: %v", provider.ErrNoHostFiles)
	default:
		e := &syntax.Error{Pos: imp.Start, End: imp.End, Msg: "Unable to find suitable path for import"}
		if len(checked) > 0 {
			e.Hints = append(e.Hints, "checked: "+strings.Join(checked, ","))
		}
		if similar := similarStdlib(imp.Path); len(similar) > 0 {
			e.Hints = append(e.Hints, "similar to builtins: "+strings.Join(similar, ","))
		}
		*im.c.errs = append(*im.c.errs, e)
	}
}

// searchDirs returns the directories an import of a file in dir is looked
// up in: dir, then the script's.
func searchDirs(dir, rootDir string) []string {
	if filepath.Clean(dir) == filepath.Clean(rootDir) {
		return []string{dir}
	}
	return []string{dir, rootDir}
}

// worldWritable reports whether others may write the file or directory at
// path or its parent directory, which bpftrace refuses to import from.
func (im *importer) worldWritable(path string, info fs.FileInfo) bool {
	if info.Mode().Perm()&0o002 != 0 {
		return true
	}
	parent, err := im.files.StatScriptFile(filepath.Dir(path))
	return err == nil && parent.Mode().Perm()&0o002 != 0
}

// importPath imports the file or directory found at path, which the
// import names itself or (named false) is an entry of a directory it
// names: a directory's entries (a directory's subdirectories are skipped),
// a file by its kind. A file of another kind is an error when named and
// skipped in a directory.
func (im *importer) importPath(imp *ast.Import, path string, info fs.FileInfo, named bool) {
	if info.IsDir() {
		if named {
			im.importDir(imp, path)
		}
		return
	}
	switch base := filepath.Base(path); {
	case strings.HasSuffix(base, ".bt"):
		im.importScript(imp, path, info)
	case strings.HasSuffix(base, ".h"):
		im.importHeader(imp, path, info)
	case strings.HasSuffix(base, ".bpf.c"):
		im.c.errorf(imp, "cannot import %q: gotrace does not compile BPF C sources (it has no C compiler); only the standard library's, which it has built in, can be imported", path)
	case strings.HasSuffix(base, ".bpf.o"):
		im.c.errorf(imp, "cannot import %q: gotrace does not link BPF object files", path)
	case named:
		im.c.errorf(imp, "unknown import type: %q", base)
	}
}

// importDir imports the supported files of a directory, in name order.
func (im *importer) importDir(imp *ast.Import, path string) {
	entries, err := im.files.ReadScriptDir(path)
	if err != nil {
		im.c.errorf(imp, "error reading import '%q': %s", path, reason(err))
		return
	}
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		info, err := im.files.StatScriptFile(p)
		if err != nil {
			continue
		}
		if info.Mode().Perm()&0o002 != 0 {
			im.c.errorf(imp, "cowardly refusing to import from a directory with global write permissions: %q", p)
			continue
		}
		im.importPath(imp, p, info, false)
	}
}

// maxImportSize is the largest file gotrace imports, as large as the
// largest script it reads.
const maxImportSize = 16 << 20

// read returns the text of an imported file, once: ok is false when it
// was imported before or cannot be read (an error at imp).
func (im *importer) read(imp *ast.Import, path string, info fs.FileInfo) (name, text string, ok bool) {
	name = filepath.Clean(path)
	if im.loaded[name] {
		return "", "", false
	}
	im.loaded[name] = true
	switch {
	case !info.Mode().IsRegular():
		im.c.errorf(imp, "error reading import '%q': not a regular file", path)
		return "", "", false
	case info.Size() > maxImportSize:
		im.c.errorf(imp, "error reading import '%q': larger than %d MiB", path, maxImportSize>>20)
		return "", "", false
	}
	data, err := im.files.ReadScriptFile(path)
	if err != nil {
		im.c.errorf(imp, "error reading import '%q': %s", path, reason(err))
		return "", "", false
	}
	return name, string(data), true
}

// reason is the message of a file system error without the operation and
// path, capitalized as strerror's: "Permission denied".
func reason(err error) string {
	var pe *fs.PathError
	msg := err.Error()
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	if msg != "" {
		msg = strings.ToUpper(msg[:1]) + msg[1:]
	}
	return msg
}

// importScript parses an imported script and resolves its own imports. A
// config block is refused: only the script's applies.
func (im *importer) importScript(imp *ast.Import, path string, info fs.FileInfo) {
	name, text, ok := im.read(imp, path, info)
	if !ok {
		return
	}
	f, err := parseImported(name, text)
	if err != nil {
		im.c.addErrors(err)
		return
	}
	if f.Config != nil && len(f.Config.Entries) > 0 {
		im.c.errorf(f.Config, "invalid `config` within import")
	}
	dir := filepath.Dir(name)
	im.imports(f.Imports, dir)
	im.c.imported = append(im.c.imported, &importUnit{dir: dir, file: f})
}

// importHeader splits an imported header into its preprocessor lines and
// type definitions.
func (im *importer) importHeader(imp *ast.Import, path string, info fs.FileInfo) {
	name, text, ok := im.read(imp, path, info)
	if !ok {
		return
	}
	src := &srcpos.Source{Name: name, Text: text}
	im.c.imported = append(im.c.imported, &importUnit{dir: filepath.Dir(name), defs: headerDefs(src)})
}

// parseImported parses an imported script; its positions, and those of
// its errors, are in its own Source.
func parseImported(name, text string) (*ast.File, error) {
	src := &srcpos.Source{Name: name, Text: text}
	f, err := syntax.Parse(name, text)
	if err != nil {
		var list syntax.ErrorList
		if errors.As(err, &list) {
			for _, e := range list {
				e.Pos.Src, e.End.Src = src, src
			}
		}
		return nil, err
	}
	ast.SetSource(f, src)
	return f, nil
}

// addErrors adds the errors of err, an ErrorList, to the checker's.
func (c *Preamble) addErrors(err error) {
	var list syntax.ErrorList
	if !errors.As(err, &list) {
		c.errorf(srcpos.Pos{}, "%v", err)
		return
	}
	*c.errs = append(*c.errs, list...)
}
