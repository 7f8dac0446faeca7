package syntax

import (
	"errors"
	"regexp"
	"strings"
	"sync"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
)

// The grammar below is the participle struct grammar for scripts and
// statements. Expressions and types are Parseable elements (parse_expr.go).
// The grammar structs are internal; Parse converts them to package ast.
//
// Top-level keywords are matched with their token type (`"let":Ident`) so
// that an attach point spelled like a keyword never matches them.

type gFile struct {
	Shebang string   `parser:"@Shebang?"`
	Items   []*gItem `parser:"@@*"`
}

type gItem struct {
	CDef    *gCDef    `parser:"  @@"`
	Config  *gConfig  `parser:"| @@"`
	Import  *gImport  `parser:"| @@"`
	Macro   *gMacro   `parser:"| @@"`
	MapDecl *gMapDecl `parser:"| @@"`
	Probe   *gProbe   `parser:"| @@"`
	Semi    bool      `parser:"| @\";\""`
}

type gCDef struct {
	Tok []lexer.Token `parser:"@CDef"`
}

type gConfig struct {
	Pos     lexer.Position
	Tokens  []lexer.Token
	Entries []*gConfigEntry `parser:"\"config\":Ident \"=\" \"{\" \";\"* @@* \"}\""`
}

type gImport struct {
	Tokens []lexer.Token
	Path   []lexer.Token `parser:"\"import\":Ident @String \";\""`
}

type gConfigEntry struct {
	Tokens []lexer.Token
	Key    []lexer.Token `parser:"@Ident \"=\""`
	Value  *gExpr        `parser:"@@"`
	Semi   []lexer.Token `parser:"@\";\"*"`
}

type gMacro struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	Name   string         `parser:"\"macro\":Ident @Ident \"(\""`
	Params []*gMacroParam `parser:"( @@ ( \",\" @@ )* )? \")\""`
	Body   *gBlock        `parser:"@@"`
}

type gMacroParam struct {
	Tok []lexer.Token `parser:"@(Var | Map | Ident)"`
}

type gMapDecl struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	Name   string   `parser:"\"let\":Ident @Map \"=\""`
	Kind   string   `parser:"@Ident \"(\""`
	Args   []*gExpr `parser:"( @@ ( \",\" @@ )* )? \")\" \";\""`
}

type gProbe struct {
	Attach []*gAttach `parser:"@@ ( \",\" @@ )*"`
	Pred   *gExpr     `parser:"( PredOpen @@ PredClose )?"`
	Body   *gBlock    `parser:"@@"`
}

type gAttach struct {
	Tok []lexer.Token `parser:"@Attach"`
}

type gBlock struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	Stmts  []*gStmt `parser:"\"{\" \";\"* @@* \"}\""`
}

// gStmt is one statement with its terminator. Compound statements need no
// ';'; simple ones need one unless they are last in the block.
type gStmt struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	If     *gIf          `parser:"(  @@"`
	For    *gFor         `parser:" | @@"`
	While  *gWhile       `parser:" | @@"`
	Unroll *gUnroll      `parser:" | @@"`
	Block  *gBlock       `parser:" | @@ ) \";\"*"`
	Let    *gLet         `parser:"| ( @@"`
	Branch *gBranch      `parser:"  | @@"`
	Return *gReturn      `parser:"  | @@"`
	Simple *gSimple      `parser:"  | @@ )"`
	Semi   []lexer.Token `parser:"@\";\"*"`
}

// gIf is an if statement with its else-if chain. The chain is a
// repetition, not a nested if inside an else, so that a chain of thousands
// of branches parses without recursing once per branch or copying its
// remaining tokens for each one; the converter nests the ast.IfStmt nodes.
type gIf struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	Cond   *gExpr   `parser:"\"if\":Ident @@"`
	Then   *gBlock  `parser:"@@"`
	Else   []*gElse `parser:"@@*"`
}

// gElse is `else if COND BLOCK` (Cond set) or `else BLOCK`.
type gElse struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	Cond   *gExpr  `parser:"\"else\":Ident ( \"if\":Ident @@"`
	Then   *gBlock `parser:"  @@"`
	Block  *gBlock `parser:"| @@ )"`
}

type gFor struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	Head   *gForHead `parser:"\"for\":Ident ( \"(\" @@ \")\" | @@ )"`
	Body   *gBlock   `parser:"@@"`
}

// gForHead is `$v : lo..hi` or `$v : @map`, with or without parentheses.
type gForHead struct {
	Var *gVar  `parser:"@@ \":\""`
	Lo  *gExpr `parser:"@@"`
	Hi  *gExpr `parser:"( \"..\" @@ )?"`
}

type gVar struct {
	Tok []lexer.Token `parser:"@Var"`
}

type gWhile struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	Cond   *gExpr  `parser:"\"while\":Ident @@"`
	Body   *gBlock `parser:"@@"`
}

type gUnroll struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	Count  *gExpr  `parser:"\"unroll\":Ident @@"`
	Body   *gBlock `parser:"@@"`
}

type gLet struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	Var    *gVar  `parser:"\"let\":Ident @@"`
	Type   *gType `parser:"( \":\" @@ )?"`
	Init   *gExpr `parser:"( \"=\" @@ )?"`
}

type gBranch struct {
	Tok []lexer.Token `parser:"@(\"break\":Ident | \"continue\":Ident)"`
}

type gReturn struct {
	Pos    lexer.Position
	Tokens []lexer.Token
	X      *gExpr `parser:"\"return\":Ident @@?"`
}

type gSimple struct {
	Tokens []lexer.Token
	Lhs    *gExpr `parser:"@@"`
	Op     string `parser:"( @(\"=\" | \"+=\" | \"-=\" | \"*=\" | \"/=\" | \"%=\" | \"&=\" | \"|=\" | \"^=\" | \"<<=\" | \">>=\")"`
	Rhs    *gExpr `parser:"  @@ )?"`
}

type gExprRoot struct {
	X *gExpr `parser:"@@"`
}

// grammarNames gives readable names to grammar productions in participle's
// "expected" messages.
var grammarNames = []struct{ from, to string }{
	{"gExpr", "expression"},
	{"gType", "type"},
	{"gBlock", "\"{\""},
	{"gAttach", "attach point"},
	{"Attach", "attach point"},
	{"gVar", "variable"},
	{"Var", "variable"},
	{"Map", "map"},
	{"Ident", "identifier"},
	{"PredClose", "\"/\" closing the predicate"},
	{"PredOpen", "\"/\""},
}

// The parsers are built on first use: building one walks the grammar with
// reflection, which would otherwise cost every start of the binary.
var (
	fileParser = sync.OnceValue(func() *participle.Parser[gFile] {
		return participle.MustBuild[gFile](
			participle.Lexer(lexDefinition{}),
			// The grammar is LL(1) at the statement level: once a production
			// has consumed a token it is committed, so errors point at the
			// real problem instead of a backtracked alternative.
			participle.UseLookahead(0),
		)
	})
	exprParserRoot = sync.OnceValue(func() *participle.Parser[gExprRoot] {
		return participle.MustBuild[gExprRoot](
			participle.Lexer(lexDefinition{}),
			participle.UseLookahead(0),
		)
	})
)

// Parse parses a script. name is the file name recorded in positions (for
// example "script.bt", or "stdin" for a one-liner, as bpftrace names it). On failure the error is an
// ErrorList of positioned errors.
func Parse(name, src string) (*ast.File, error) {
	toks, lerr := lexScript(name, src)
	if lerr != nil {
		return nil, ErrorList{lerr}
	}
	plex, err := lexer.Upgrade(&sliceLexer{toks: toks})
	if err != nil {
		return nil, ErrorList{{Pos: srcpos.Pos{Filename: name, Line: 1, Column: 1}, Msg: err.Error()}}
	}
	g, err := fileParser().ParseFromLexer(plex)
	if err != nil {
		return nil, convertError(name, err)
	}
	c := &converter{name: name}
	f := c.file(g, src)
	if err := c.errs.Err(); err != nil {
		return nil, err
	}
	return f, nil
}

// ParseExpr parses a single expression, for tests and the REPL. Positions
// carry an empty file name.
func ParseExpr(src string) (ast.Expr, error) {
	toks, lerr := lexExpr("", src)
	if lerr != nil {
		return nil, ErrorList{lerr}
	}
	plex, err := lexer.Upgrade(&sliceLexer{toks: toks})
	if err != nil {
		return nil, ErrorList{{Pos: srcpos.Pos{Line: 1, Column: 1}, Msg: err.Error()}}
	}
	if first := plex.Peek(); !(&exprParser{lex: plex}).startsExpr(first) {
		return nil, ErrorList{{Pos: fixPos("", first.Pos), Msg: "unexpected " + describe(first) + ", expected expression"}}
	}
	g, err := exprParserRoot().ParseFromLexer(plex)
	if err != nil {
		return nil, convertError("", err)
	}
	if g.X == nil || g.X.X == nil {
		return nil, ErrorList{{Pos: srcpos.Pos{Line: 1, Column: 1}, Msg: "expected expression"}}
	}
	return g.X.X, nil
}

// convertError turns a participle error into an ErrorList.
func convertError(name string, err error) ErrorList {
	var ute *participle.UnexpectedTokenError
	if errors.As(err, &ute) {
		msg := "unexpected " + describe(&ute.Unexpected)
		if i := strings.Index(ute.Message(), " (expected "); i >= 0 {
			want := strings.TrimSuffix(ute.Message()[i+len(" (expected "):], ")")
			msg += ", expected " + friendlyExpect(want)
		}
		return ErrorList{{Pos: fixPos(name, ute.Unexpected.Pos), Msg: msg}}
	}
	var perr participle.Error
	if errors.As(err, &perr) {
		msg := perr.Message()
		// Strip participle's "gStmt: " style production prefixes.
		for {
			i := strings.Index(msg, ": ")
			if i < 0 || !strings.HasPrefix(msg, "g") || strings.ContainsAny(msg[:i], " \"") {
				break
			}
			msg = msg[i+2:]
		}
		return ErrorList{{Pos: fixPos(name, perr.Position()), Msg: msg}}
	}
	return ErrorList{{Pos: srcpos.Pos{Filename: name, Line: 1, Column: 1}, Msg: err.Error()}}
}

func fixPos(name string, p lexer.Position) srcpos.Pos {
	pos := toPos(p)
	pos.Filename = name
	if pos.Line < 1 {
		pos.Line, pos.Column = 1, 1
	}
	return pos
}

func friendlyExpect(want string) string {
	want = strings.TrimSpace(want)
	// After "else": the if of an else-if, or the else block.
	if strings.HasPrefix(want, `(("if" `) {
		return `"if" or "{"`
	}
	// A whole production (e.g. `"if":Ident "(" gExpr ...`) is unhelpful;
	// reduce it to its first element.
	if strings.ContainsAny(want, " |") {
		if strings.HasPrefix(want, `"`) {
			if j := strings.Index(want[1:], `"`); j >= 0 {
				want = want[:j+2]
			}
		} else if j := strings.IndexAny(want, " |"); j > 0 {
			want = want[:j]
		}
	}
	want = strings.TrimSuffix(strings.TrimPrefix(want, "<"), ">")
	for _, r := range grammarNames {
		if strings.EqualFold(want, r.from) {
			return r.to
		}
	}
	return want
}

// converter turns the grammar structs into package ast nodes.
type converter struct {
	name string
	errs ErrorList
}

func (c *converter) errorf(pos srcpos.Pos, format string, args ...any) {
	c.errs.Add(pos, format, args...)
}

// tokSpan returns the span covering toks.
func tokSpan(toks []lexer.Token) srcpos.Span {
	if len(toks) == 0 {
		return srcpos.Span{}
	}
	return srcpos.Span{Start: toPos(toks[0].Pos), End: tokEnd(&toks[len(toks)-1])}
}

func (c *converter) file(g *gFile, src string) *ast.File {
	f := &ast.File{
		Name:    c.name,
		Src:     src,
		Shebang: g.Shebang,
		Span: srcpos.Span{
			Start: srcpos.Pos{Filename: c.name, Offset: 0, Line: 1, Column: 1},
			End:   endOfSource(c.name, src),
		},
	}
	// As in bpftrace, C definitions and preprocessor lines make up the
	// preamble: one after the config block, a macro, a map declaration or
	// a probe is an error (so #ifdef cannot select probes).
	late := false
	// Imports come before the probes, macros and map declarations.
	lateImport := false
	for _, it := range g.Items {
		switch {
		case it.CDef != nil:
			sp := tokSpan(it.CDef.Tok)
			if late {
				c.errorf(sp.Start, "C definitions must appear before probes and functions")
			}
			f.Preamble = append(f.Preamble, &ast.CDef{Span: sp, Text: it.CDef.Tok[0].Value})
		case it.Config != nil:
			late = true
			cfg := &ast.Config{Span: tokSpan(it.Config.Tokens)}
			for i, e := range it.Config.Entries {
				if i > 0 && len(it.Config.Entries[i-1].Semi) == 0 {
					c.missingSemi(e.Tokens)
				}
				key := e.Key[0]
				cfg.Entries = append(cfg.Entries, &ast.ConfigEntry{
					Span:  span(toPos(key.Pos), endOf(e.Value.X)),
					Key:   key.Value,
					Value: e.Value.X,
				})
			}
			if f.Config != nil {
				c.errorf(cfg.Start, "duplicate config block")
			}
			f.Config = cfg
		case it.Import != nil:
			late = true
			// The span ends with the path, as bpftrace's does.
			toks := it.Import.Tokens
			if n := len(toks); n > 1 && toks[n-1].Value == ";" {
				toks = toks[:n-1]
			}
			sp := tokSpan(toks)
			if lateImport {
				c.errorf(sp.Start, "root imports must appear before probes and functions")
			}
			path, err := unquote(&it.Import.Path[0])
			if err != nil {
				c.errorf(toPos(it.Import.Path[0].Pos), "%v", err)
			}
			f.Imports = append(f.Imports, &ast.Import{Span: sp, Path: path})
		case it.Macro != nil:
			late, lateImport = true, true
			m := &ast.Macro{Span: tokSpan(it.Macro.Tokens), Name: it.Macro.Name, Body: c.block(it.Macro.Body)}
			for _, p := range it.Macro.Params {
				m.Params = append(m.Params, &ast.MacroParam{Span: tokSpan(p.Tok), Name: p.Tok[0].Value})
			}
			f.Macros = append(f.Macros, m)
		case it.MapDecl != nil:
			late, lateImport = true, true
			d := &ast.MapDecl{Span: tokSpan(it.MapDecl.Tokens), Name: it.MapDecl.Name, Kind: it.MapDecl.Kind}
			for _, a := range it.MapDecl.Args {
				d.Args = append(d.Args, a.X)
			}
			f.MapDecls = append(f.MapDecls, d)
		case it.Probe != nil:
			late, lateImport = true, true
			f.Probes = append(f.Probes, c.probe(it.Probe))
		}
	}
	return f
}

func endOfSource(name, src string) srcpos.Pos {
	t := lexer.Token{Value: src, Pos: lexer.Position{Filename: name, Line: 1, Column: 1}}
	return tokEnd(&t)
}

func (c *converter) probe(g *gProbe) *ast.Probe {
	p := &ast.Probe{Body: c.block(g.Body)}
	for _, a := range g.Attach {
		name, raw := attachName(a.Tok[0].Value)
		p.Attach = append(p.Attach, &ast.AttachPoint{Span: tokSpan(a.Tok), Raw: raw, Name: name})
	}
	if g.Pred != nil {
		p.Pred = g.Pred.X
	}
	p.Span = span(p.Attach[0].Start, p.Body.End)
	return p
}

// attachNameRe matches the name a script may give an attach point
// (name=kprobe:f): an identifier and '=' before the provider.
var attachNameRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=`)

// attachName splits the name off an attach point as written.
func attachName(raw string) (name, rest string) {
	if m := attachNameRe.FindStringSubmatch(raw); m != nil {
		return m[1], raw[len(m[0]):]
	}
	return "", raw
}

func (c *converter) block(g *gBlock) *ast.Block {
	b := &ast.Block{Span: tokSpan(g.Tokens)}
	for i, s := range g.Stmts {
		if i > 0 {
			c.checkSeparated(g.Stmts[i-1], s)
		}
		if st := c.stmt(s); st != nil {
			b.Stmts = append(b.Stmts, st)
		}
	}
	return b
}

func (c *converter) stmt(g *gStmt) ast.Stmt {
	switch {
	case g.If != nil:
		return c.ifStmt(g.If)
	case g.For != nil:
		return c.forStmt(g.For)
	case g.While != nil:
		return &ast.WhileStmt{Span: tokSpan(g.While.Tokens), Cond: ast.Unparen(g.While.Cond.X), Body: c.block(g.While.Body)}
	case g.Unroll != nil:
		return &ast.UnrollStmt{Span: tokSpan(g.Unroll.Tokens), Count: ast.Unparen(g.Unroll.Count.X), Body: c.block(g.Unroll.Body)}
	case g.Block != nil:
		b := c.block(g.Block)
		return &ast.BlockStmt{Span: b.Span, Body: b}
	case g.Let != nil:
		l := &ast.LetStmt{Span: tokSpan(g.Let.Tokens), Var: c.variable(g.Let.Var)}
		if g.Let.Type != nil {
			l.Type = g.Let.Type.T
		}
		if g.Let.Init != nil {
			l.Init = g.Let.Init.X
		}
		return l
	case g.Branch != nil:
		return &ast.BranchStmt{Span: tokSpan(g.Branch.Tok), Tok: g.Branch.Tok[0].Value}
	case g.Return != nil:
		r := &ast.ReturnStmt{Span: tokSpan(g.Return.Tokens)}
		if g.Return.X != nil {
			r.X = g.Return.X.X
		}
		return r
	case g.Simple != nil:
		return c.simple(g.Simple)
	}
	return nil
}

// checkSeparated reports a missing ';' between a simple statement and the
// statement after it. (The grammar accepts zero or more ';' after every
// statement; requiring one between simple statements is done here because
// participle's lookahead groups cannot express "or the closing brace".)
func (c *converter) checkSeparated(prev, next *gStmt) {
	simple := prev.Let != nil || prev.Branch != nil || prev.Return != nil || prev.Simple != nil
	if simple && len(prev.Semi) == 0 {
		c.missingSemi(next.Tokens)
	}
}

func (c *converter) missingSemi(next []lexer.Token) {
	if len(next) == 0 {
		return
	}
	c.errorf(toPos(next[0].Pos), "unexpected %s, expected \";\"", describe(&next[0]))
}

func (c *converter) variable(g *gVar) *ast.Var {
	return &ast.Var{Span: tokSpan(g.Tok), Name: g.Tok[0].Value}
}

func (c *converter) ifStmt(g *gIf) *ast.IfStmt {
	s := &ast.IfStmt{Span: tokSpan(g.Tokens), Cond: ast.Unparen(g.Cond.X), Then: c.block(g.Then)}
	last := s
	for _, e := range g.Else {
		if last == nil {
			c.errorf(toPos(e.Pos), "unexpected \"else\" after the final else block")
			break
		}
		if e.Cond == nil {
			b := c.block(e.Block)
			last.Else = &ast.BlockStmt{Span: b.Span, Body: b}
			last = nil
			continue
		}
		// An else-if spans from its "if" to the end of the chain, as
		// the if nested in the else it stands for would.
		span := srcpos.Span{Start: toPos(e.Tokens[1].Pos), End: s.Span.End}
		n := &ast.IfStmt{Span: span, Cond: ast.Unparen(e.Cond.X), Then: c.block(e.Then)}
		last.Else = n
		last = n
	}
	return s
}

func (c *converter) forStmt(g *gFor) ast.Stmt {
	sp := tokSpan(g.Tokens)
	h := g.Head
	v := c.variable(h.Var)
	body := c.block(g.Body)
	if h.Hi != nil {
		return &ast.ForRangeStmt{Span: sp, Var: v, Lo: h.Lo.X, Hi: h.Hi.X, Body: body}
	}
	m, ok := h.Lo.X.(*ast.MapRef)
	if !ok || m.Keys != nil {
		c.errorf(startOf(h.Lo.X), "expected a map (for ($kv : @map)) or a range (for ($i : lo..hi))")
		return nil
	}
	return &ast.ForMapStmt{Span: sp, Var: v, Map: m, Body: body}
}

func (c *converter) simple(g *gSimple) ast.Stmt {
	x := g.Lhs.X
	if g.Op == "" {
		if u, ok := x.(*ast.Unary); ok && (u.Op == "++" || u.Op == "--") {
			return &ast.IncDecStmt{Span: u.Span, Op: u.Op, Prefix: !u.Postfix, X: u.X}
		}
		return &ast.ExprStmt{Span: x.GetSpan(), X: x}
	}
	switch l := x.(type) {
	case *ast.Var, *ast.MapRef, *ast.Discard, *ast.Field, *ast.Index:
	case *ast.Unary:
		if l.Op != "*" {
			c.errorf(startOf(x), "cannot assign to this expression")
		}
	default:
		c.errorf(startOf(x), "cannot assign to this expression")
	}
	a := &ast.AssignStmt{Span: span(startOf(x), endOf(g.Rhs.X)), Op: g.Op, Lhs: x, Rhs: g.Rhs.X}
	for _, t := range g.Tokens {
		if t.Value == g.Op && t.Pos.Offset >= endOf(x).Offset {
			a.OpPos = toPos(t.Pos)
			a.OpPos.Filename, a.OpPos.Src = endOf(x).Filename, endOf(x).Src
			break
		}
	}
	return a
}
