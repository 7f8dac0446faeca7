package preamble

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/cmacro"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
)

// macroDef is one #define of the preamble or of an included user header.
type macroDef struct {
	body     string
	funcLike bool // #define F(x) ...: known to #ifdef, not usable as a value
	// raw is the body as written (comments kept, continuations as " \n"),
	// and at its position, for parsing it as a bpftrace expression.
	raw string
	at  srcpos.Pos
}

// preproc is the state of the preprocessor over one script's preamble.
type preproc struct {
	c       *Preamble
	defs    map[string]macroDef
	order   []string // names in definition order
	system  bool     // an active system #include: the kernel macro table is visible
	haveBTF *bool    // BPFTRACE_HAVE_BTF, looked up on first use
	depth   int      // nesting of user headers
	// exploded: a macro's expansion went past cmacro.MaxExpansions
	exploded bool
	// cdefs are the C definitions in active regions, in order.
	cdefs []*ast.CDef
}

// pline is one line the preprocessor reads: a preamble item of the script
// (def is set), or a directive of an included header, reported at the
// script position of the #include that brought it in (pos), with where
// naming the header line.
type pline struct {
	text  string
	def   *ast.CDef
	pos   srcpos.Pos
	where string // "" for the script, "in header.h:3: " for a header line
	dir   string // directory of the file the line is in
}

// maxIncludeDepth bounds the nesting of user headers.
const maxIncludeDepth = 32

// Preprocess evaluates the C preamble of a script, the preprocessor lines
// and C definitions before the first probe, macro, map declaration or
// config block (the parser rejects them later, as bpftrace does, so
// conditionals cannot select probes or statements):
//
//   - #if, #ifdef, #ifndef, #elif, #else and #endif, with C integer
//     expressions (defined X, arithmetic, comparisons, &&, ||, ?:) over the
//     script's macros; BPFTRACE_HAVE_BTF is defined when the kernel has BTF,
//     as in bpftrace;
//   - #define of object-like macros: a body that is an integer constant
//     expression or a string makes a constant of the script; another body
//     that parses as a bpftrace expression is substituted where the macro
//     is named (exprMacros), as bpftrace does. Function-like macros are
//     only known to #ifdef and defined(): calling one is an unknown
//     function, as in bpftrace, which does not expand them either;
//   - #undef, #error (an error when active); #pragma, #warning and #line are
//     ignored;
//   - #include: see include. Kernel types come from BTF; the kernel's
//     macros from cmacro's embedded table of kernel and UAPI macros, which
//     is consulted for an unknown upper-case identifier once the script
//     includes any system header (bpftrace runs clang on the includes, so
//     without one AF_INET is unknown there too).
//
// Options.Includes (bpftrace --include) are included before the preamble;
// the preambles of imported scripts and headers follow it, each on its own
// (conditionals balance within a file). Preprocess returns the C type
// definitions in active regions of the script and of its imports (struct,
// union, enum, typedef), in order, which the checker defines as script
// types before it calls Constants.
func (c *Preamble) Preprocess(file *ast.File) []*ast.CDef {
	p := &preproc{c: c, defs: map[string]macroDef{}}
	c.pp = p
	dir := filepath.Dir(file.Name)
	var lines []pline
	for _, inc := range c.opts.Includes {
		lines = append(lines, pline{text: "#include \"" + inc + "\"", pos: file.Start, dir: "."})
	}
	for _, d := range file.Preamble {
		lines = append(lines, pline{text: d.Text, def: d, pos: d.Pos(), dir: dir})
	}
	p.run(lines)
	for _, u := range c.imported {
		p.run(u.lines())
	}
	return p.cdefs
}

// Constants ends the preprocessing Preprocess began, once the checker has
// defined its C definitions (whose enumerators defines holds): the
// object-like macros whose body is a constant become constants in defines,
// those whose body is a bpftrace expression macros of file, and, after a
// system #include, the kernel macros file names constants.
func (c *Preamble) Constants(file *ast.File, defines map[string]builtin.Const) {
	p := c.pp
	c.defines = defines
	p.constants()
	p.exprMacros(file)
	if p.system {
		p.useTable(file)
	}
}

// cond is one open conditional: whether its current branch is taken,
// whether one of its branches was, and whether it is inside a taken branch.
type cond struct {
	active, taken, parent bool
	sawElse               bool
	line                  pline
}

func (p *preproc) errorf(l pline, format string, args ...any) {
	p.c.errorf(l.pos, l.where+format, args...)
}

// run processes the lines of one file; conditionals must balance within it.
func (p *preproc) run(lines []pline) {
	var stack []cond
	on := func() bool { return len(stack) == 0 || stack[len(stack)-1].active }
	for _, l := range lines {
		text := strings.TrimSpace(l.text)
		if !strings.HasPrefix(text, "#") {
			if on() && l.def != nil {
				p.cdefs = append(p.cdefs, l.def)
			}
			continue
		}
		directive, rest := splitDirective(text)
		switch directive {
		case "if", "ifdef", "ifndef":
			parent := on()
			v := parent && p.test(l, directive, rest)
			stack = append(stack, cond{active: v, taken: v, parent: parent, line: l})
		case "elif", "else":
			if len(stack) == 0 {
				p.errorf(l, "#%s without #if", directive)
				continue
			}
			top := &stack[len(stack)-1]
			if top.sawElse {
				p.errorf(l, "#%s after #else", directive)
				continue
			}
			v := top.parent && !top.taken
			if v && directive == "elif" {
				v = p.test(l, directive, rest)
			}
			top.sawElse = directive == "else"
			top.active = v
			top.taken = top.taken || v
		case "endif":
			if len(stack) == 0 {
				p.errorf(l, "#endif without #if")
				continue
			}
			stack = stack[:len(stack)-1]
		case "":
			// A null directive.
		default:
			if on() {
				p.directive(l, directive, rest)
			}
		}
	}
	if len(stack) != 0 {
		p.errorf(stack[len(stack)-1].line, "missing #endif")
	}
}

// directive handles a directive other than a conditional in an active
// region.
func (p *preproc) directive(l pline, directive, rest string) {
	switch directive {
	case "include", "include_next":
		p.include(l, rest)
	case "define":
		name, funcLike, body, ok := splitDefine(rest)
		if !ok {
			p.errorf(l, "#define needs a macro name")
			return
		}
		if _, seen := p.defs[name]; !seen {
			p.order = append(p.order, name)
		}
		def := macroDef{body: body, funcLike: funcLike, raw: body, at: l.pos}
		if l.def != nil && !funcLike {
			def.raw, def.at = rawDefineBody(l.def.Text, l.pos)
		}
		p.defs[name] = def
	case "undef":
		delete(p.defs, strings.TrimSpace(rest))
	case "error":
		p.errorf(l, "#error %s", rest)
	case "pragma", "warning", "line", "ident":
	default:
		p.errorf(l, "preprocessor directive #%s is not supported", directive)
	}
}

// include handles #include "name" and #include <name>. A quoted name is
// looked up in the directory of the including file (the script's for the
// script, the current directory for Options.Includes), then in the
// Options.IncludeDirs (-I); a bracketed name in the IncludeDirs only, each
// read through the environment's ScriptFiles. A header found there is a
// user header: its directives are processed as the script's, so its
// object-like #defines become constants of the script, while its C
// declarations are skipped (types come from BTF). A header not
// found there is a system header, which gotrace needs not have: it makes
// the kernel macro table visible. A name that is no system header either
// (see systemHeader) is an error, "'lol/no.h' file not found", as in
// bpftrace.
func (p *preproc) include(l pline, rest string) {
	var name string
	var dirs []string
	switch {
	case len(rest) >= 2 && rest[0] == '"' && strings.IndexByte(rest[1:], '"') >= 0:
		name = rest[1 : 1+strings.IndexByte(rest[1:], '"')]
		dirs = append([]string{l.dir}, p.c.opts.IncludeDirs...)
	case len(rest) >= 2 && rest[0] == '<' && strings.IndexByte(rest, '>') > 0:
		name = rest[1:strings.IndexByte(rest, '>')]
		dirs = p.c.opts.IncludeDirs
	default:
		p.errorf(l, "#include expects \"FILENAME\" or <FILENAME>")
		return
	}
	files, ferr := p.c.scriptFiles()
	for _, dir := range dirs {
		if ferr != nil {
			break
		}
		path := name
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, name)
		}
		data, err := files.ReadScriptFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			p.errorf(l, "#include %s: %v", rest, err)
			return
		}
		if p.depth >= maxIncludeDepth {
			p.errorf(l, "#include nested too deeply")
			return
		}
		p.depth++
		p.run(headerLines(string(data), path, l.pos))
		p.depth--
		return
	}
	if !systemHeader(files, name) {
		if ferr != nil {
			p.c.errorf(includeNamePos(l), "%s#include %s: %v", l.where, rest, ferr)
			return
		}
		p.c.errorf(includeNamePos(l), "%s'%s' file not found", l.where, name)
		return
	}
	p.system = true
}

// includeNamePos is the position of the name of an #include line of the
// script, where clang points; that of the #include for a header's line.
func includeNamePos(l pline) srcpos.Pos {
	pos := l.pos
	if l.def != nil {
		if i := strings.IndexAny(l.def.Text, "<\""); i >= 0 && !strings.Contains(l.def.Text[:i], "\n") {
			pos.Column += i
			pos.Offset += i
		}
	}
	return pos
}

// systemIncludeDirs are searched for headers that cmacro does not know.
var systemIncludeDirs = []string{"/usr/local/include", "/usr/include/x86_64-linux-gnu", "/usr/include"}

// systemHeader reports whether name is a system header: one cmacro knows
// (libc, UAPI and kernel headers, whether or not installed here) or one
// installed in the system include directories (when files can tell).
func systemHeader(files ScriptFiles, name string) bool {
	if cmacro.SystemHeader(name) {
		return true
	}
	if files == nil {
		return false
	}
	for _, dir := range systemIncludeDirs {
		if _, err := files.StatScriptFile(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}

// headerLines returns the directives of a header, with line continuations
// joined and comments removed, each reported at pos.
func headerLines(src, path string, pos srcpos.Pos) []pline {
	var lines []pline
	dir := filepath.Dir(path)
	raw := strings.Split(blankComments(src), "\n")
	for i := 0; i < len(raw); i++ {
		n := i + 1
		text := strings.TrimRight(raw[i], "\r")
		for strings.HasSuffix(text, "\\") && i+1 < len(raw) {
			i++
			text = text[:len(text)-1] + " " + strings.TrimRight(raw[i], "\r")
		}
		if strings.HasPrefix(strings.TrimSpace(text), "#") {
			lines = append(lines, pline{text: text, pos: pos, where: fmt.Sprintf("in %s:%d: ", path, n), dir: dir})
		}
	}
	return lines
}

// blankComments replaces the C comments of src with spaces, keeping its
// newlines so that line numbers stay.
func blankComments(src string) string {
	b := []byte(src)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"' || b[i] == '\'':
			q := b[i]
			for i++; i < len(b) && b[i] != q && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			b[i], b[i+1] = ' ', ' '
			for i += 2; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		}
	}
	return string(b)
}

// test evaluates the condition of #if, #elif, #ifdef or #ifndef.
func (p *preproc) test(l pline, directive, rest string) bool {
	switch directive {
	case "ifdef", "ifndef":
		name := strings.TrimSpace(rest)
		if name == "" {
			p.errorf(l, "#%s needs a macro name", directive)
			return false
		}
		_, ok := p.lookup(name)
		return ok == (directive == "ifdef")
	}
	v, err := cmacro.Eval(rest, p.lookup, true)
	if err != nil {
		p.errorf(l, "invalid #%s condition %q: %v", directive, rest, err)
		return false
	}
	return v != 0
}

// lookup returns the body of a macro visible at this point: the script's
// own, BPFTRACE_HAVE_BTF, and the kernel table after a system #include.
func (p *preproc) lookup(name string) (string, bool) {
	if d, ok := p.defs[name]; ok {
		if d.funcLike {
			return "", true
		}
		return d.body, true
	}
	if name == "BPFTRACE_HAVE_BTF" {
		if p.haveBTF == nil {
			have := false
			if p.c.env != nil {
				if spec, err := p.c.env.BTF(); err == nil && spec != nil {
					have = true
				}
			}
			p.haveBTF = &have
		}
		return "1", *p.haveBTF
	}
	if p.system {
		if v, ok := cmacro.Lookup(name); ok {
			return strconv.FormatInt(v, 10), true
		}
	}
	return "", false
}

// constants turns the object-like macros whose body is a string or an
// integer constant expression into constants of the script. Other macros
// stay unknown as values.
func (p *preproc) constants() {
	for _, name := range p.order {
		d, ok := p.defs[name]
		if !ok || d.funcLike {
			continue
		}
		body := strings.TrimSpace(d.body)
		for strings.HasPrefix(body, "(") && strings.HasSuffix(body, ")") {
			body = strings.TrimSpace(body[1 : len(body)-1])
		}
		if strings.HasPrefix(body, `"`) {
			if s, err := strconv.Unquote(body); err == nil {
				p.c.defines[name] = builtin.Const{IsStr: true, Str: s}
			}
			continue
		}
		v, err := cmacro.Eval(d.body, p.lookup, false)
		if errors.Is(err, cmacro.ErrTooManyExpansions) {
			// the macros defined after it, which may name it, and
			// every expression macro would expand as far: stop here
			p.c.errorf(srcpos.Span{Start: d.at, End: d.at}, "macro %s: %v", name, err)
			p.exploded = true
			return
		}
		if err == nil {
			p.c.defines[name] = builtin.Const{Int: uint64(v)}
		}
	}
}

// exprMacros makes the object-like macros whose body is no constant but a
// bpftrace expression (#define IS_ROOT (uid == 0)) macros of the script
// without parameters, which ExpandMacros substitutes where they are named,
// as bpftrace expands C macros. The expression keeps its place in the
// script for errors (the #include line for a header's macro). Bodies that
// do not parse as an expression are left out: naming one is an unknown
// identifier.
func (p *preproc) exprMacros(file *ast.File) {
	if p.exploded {
		return
	}
	for _, name := range p.order {
		d, ok := p.defs[name]
		if _, isConst := p.c.defines[name]; !ok || d.funcLike || isConst || strings.TrimSpace(d.raw) == "" {
			continue
		}
		x, err := syntax.ParseExpr(d.raw)
		if err != nil {
			continue
		}
		relocate(x, d.at)
		sp := srcpos.Span{Start: d.at, End: d.at}
		file.Macros = append(file.Macros, &ast.Macro{Span: sp, Name: name,
			Body: &ast.Block{Span: x.GetSpan(), Stmts: []ast.Stmt{&ast.ExprStmt{Span: x.GetSpan(), X: x}}}})
	}
}

// relocate moves the positions of an expression parsed on its own (line 1,
// column 1, no file name) to at, in at's file.
func relocate(x ast.Expr, at srcpos.Pos) {
	move := func(pos srcpos.Pos) srcpos.Pos {
		if pos.Line == 1 {
			pos.Column += at.Column - 1
		}
		pos.Line += at.Line - 1
		pos.Offset += at.Offset
		pos.Filename, pos.Src = at.Filename, at.Src
		return pos
	}
	ast.Inspect(x, func(n ast.Node) bool {
		v := reflect.ValueOf(n)
		if v.Kind() == reflect.Pointer && v.Elem().Kind() == reflect.Struct {
			if f := v.Elem().FieldByName("Span"); f.IsValid() && f.CanSet() && f.Type() == reflect.TypeOf(srcpos.Span{}) {
				sp := f.Interface().(srcpos.Span)
				f.Set(reflect.ValueOf(srcpos.Span{Start: move(sp.Start), End: move(sp.End)}))
			}
		}
		return true
	})
}

// rawDefineBody returns the body of a script's #define line as written,
// with continuations kept as line breaks, and its position.
func rawDefineBody(text string, pos srcpos.Pos) (string, srcpos.Pos) {
	text = strings.ReplaceAll(text, "\\\n", " \n")
	i := strings.Index(text, "define") + len("define")
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	for i < len(text) && (text[i] == '_' || text[i] >= 'a' && text[i] <= 'z' || text[i] >= 'A' && text[i] <= 'Z' || text[i] >= '0' && text[i] <= '9') {
		i++
	}
	if nl := strings.LastIndex(text[:i], "\n"); nl >= 0 {
		// The name is on a continuation line: positions are approximate.
		return text[i:], pos
	}
	pos.Column += i
	pos.Offset += i
	return text[i:], pos
}

// useTable makes the kernel macros the script names constants, unless the
// script defines them itself.
func (p *preproc) useTable(file *ast.File) {
	ast.Inspect(file, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			if _, done := p.c.defines[id.Name]; !done {
				if v, ok := cmacro.Lookup(id.Name); ok {
					p.c.defines[id.Name] = builtin.Const{Int: uint64(v)}
				}
			}
		}
		return true
	})
}

// splitDirective splits a preprocessor line into its directive name and the
// rest, with line continuations joined and comments removed.
func splitDirective(text string) (directive, rest string) {
	text = strings.ReplaceAll(text, "\\\r\n", " ")
	text = strings.ReplaceAll(text, "\\\n", " ")
	text = stripComments(strings.TrimPrefix(text, "#"))
	text = strings.TrimSpace(text)
	i := strings.IndexFunc(text, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	})
	if i < 0 {
		return text, ""
	}
	return text[:i], strings.TrimSpace(text[i:])
}

// splitDefine splits the text after #define into the macro name and body.
func splitDefine(rest string) (name string, funcLike bool, body string, ok bool) {
	i := 0
	for i < len(rest) && (rest[i] == '_' || rest[i] >= 'a' && rest[i] <= 'z' || rest[i] >= 'A' && rest[i] <= 'Z' || i > 0 && rest[i] >= '0' && rest[i] <= '9') {
		i++
	}
	if i == 0 {
		return "", false, "", false
	}
	name, rest = rest[:i], rest[i:]
	if strings.HasPrefix(rest, "(") {
		return name, true, "", true
	}
	return name, false, strings.TrimSpace(rest), true
}

// stripComments removes C comments outside string and character literals.
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"' || s[i] == '\'':
			q := s[i]
			j := i + 1
			for j < len(s) && s[j] != q {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				j = len(s) - 1
			}
			b.WriteString(s[i : j+1])
			i = j
		case strings.HasPrefix(s[i:], "//"):
			return b.String()
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			b.WriteByte(' ')
			i += 2 + end + 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
