package pretty

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
)

// Width is the line width Source wraps at, bpftrace's.
const Width = 90

// Source formats a script. name is the file name errors are reported
// under. A script that does not parse is returned unchanged with the
// parser's errors (a syntax.ErrorList).
func Source(name, src string) (string, error) {
	f, err := syntax.Parse(name, src)
	if err != nil {
		return src, err
	}
	gaps, err := syntax.Trivia(name, src)
	if err != nil {
		return src, err
	}
	return File(f, gaps), nil
}

// File formats a parsed script; gaps are its layout spans (syntax.Trivia).
func File(f *ast.File, gaps []srcpos.Span) string {
	p := &printer{src: f.Src, statements: map[*ast.Block]bool{}, gapStart: map[int]srcpos.Pos{}}
	for _, g := range gaps {
		p.gapStart[g.End.Offset] = g.Start
	}
	md := collectNotes(f.Src, gaps)
	// bpftrace's parser takes the newline ending the shebang and a
	// preprocessor line with the line: it is no blank line.
	ends := map[int]bool{}
	if f.Shebang != "" {
		ends[1] = true
	}
	for _, c := range f.Preamble {
		// A C definition ending a line is taken with its newline too
		// (bpftrace keeps a blank line after one ending in ')', which it
		// ends with a ';' it adds, so that its next formatting drops it).
		ends[c.End.Line] = true
	}
	md.dropBlank(ends)
	return p.file(f, md, Width).String()
}

// printer holds what every node's formatting may consult: the source, for
// the few facts the tree does not record (a statement's ';').
type printer struct {
	src string
	// statements are blocks whose last expression is a statement even
	// without a ';' (the branches of an if-else ending a probe).
	statements map[*ast.Block]bool
	// gapStart maps the offset where layout ends (a token starts) to
	// where it starts (the previous token ends).
	gapStart map[int]srcpos.Pos
}

// blockStart is where bpftrace's parser starts a block: at the end of the
// token before its '{', so that the comments between them belong to the
// block's first statement.
func (p *printer) blockStart(b *ast.Block) srcpos.Pos {
	if s, ok := p.gapStart[b.Start.Offset]; ok {
		return s
	}
	return b.Start
}

// item is a top-level element of a script, in source order.
type item struct {
	start srcpos.Pos
	node  ast.Node
}

func (p *printer) file(f *ast.File, md *notes, w uint) *Buffer {
	b := newBuffer()
	if f.Shebang != "" {
		b.text(f.Shebang).lineBreak()
	}
	var items []item
	add := func(n ast.Node) { items = append(items, item{n.GetSpan().Start, n}) }
	for _, c := range f.Preamble {
		add(c)
	}
	if f.Config != nil {
		add(f.Config)
	}
	for _, n := range f.Imports {
		add(n)
	}
	for _, n := range f.Macros {
		add(n)
	}
	for _, n := range f.MapDecls {
		add(n)
	}
	for _, n := range f.Probes {
		add(n)
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].start.Offset < items[j].start.Offset })
	for _, it := range items {
		pre := md.before(it.start)
		one := p.root(it.node, md, w)
		b.metadata(pre, 0).add(one)
	}
	return b.metadata(md, 0)
}

// root formats a top-level element, after the comments before it, and
// ends its line.
func (p *printer) root(n ast.Node, md *notes, w uint) *Buffer {
	comments := md.before(n.GetSpan().Start)
	var one *Buffer
	switch n := n.(type) {
	case *ast.CDef:
		one = newBuffer().text(cdefText(n.Text))
	case *ast.Config:
		one = p.config(n, md, w)
	case *ast.Import:
		one = newBuffer().text("import " + strconv.Quote(n.Path) + ";")
	case *ast.Macro:
		one = p.macro(n, md, w)
	case *ast.MapDecl:
		one = p.mapDecl(n)
	case *ast.Probe:
		one = p.probe(n, md, w)
	}
	return newBuffer().metadata(comments, 0).add(one).lineBreak()
}

// cdefText is a C definition as bpftrace prints it: ending with a ';'.
func cdefText(t string) string {
	if strings.HasPrefix(t, "#") || strings.HasSuffix(t, ";") {
		return t
	}
	// Only where the ';' reads back as the end of the definition (not in
	// a malformed one the lexer took whole).
	if _, err := syntax.Parse("c", t+";"); err != nil {
		return t
	}
	return t + ";"
}

func (p *printer) config(c *ast.Config, md *notes, w uint) *Buffer {
	if len(c.Entries) == 0 {
		return newBuffer().text("config = {}")
	}
	block := newBuffer()
	for _, e := range c.Entries {
		if block.numLines() > 0 {
			block.lineBreak()
		}
		block.text(e.Key + " = " + p.configValue(e.Value) + ";")
	}
	return newBuffer().text("config = {").indented(block).text("}")
}

// configValue prints a config value. bpftrace prints a string value bare
// when it needs no escapes, even when it is not a name ("a b"), which does
// not parse again; only names are printed bare here.
func (p *printer) configValue(x ast.Expr) string {
	switch v := x.(type) {
	case *ast.IntLit:
		return strconv.FormatUint(v.Value, 10)
	case *ast.BoolLit:
		return strconv.FormatBool(v.Value)
	case *ast.Ident:
		return v.Name
	case *ast.StrLit:
		if isName(v.Value) {
			return v.Value
		}
		return `"` + escape(v.Value) + `"`
	}
	return p.exprText(x) // not a config value: the checker says so
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (p *printer) mapDecl(d *ast.MapDecl) *Buffer {
	var args []string
	for _, a := range d.Args {
		if n, ok := a.(*ast.IntLit); ok {
			args = append(args, strconv.FormatUint(n.Value, 10))
		} else {
			args = append(args, p.exprText(a))
		}
	}
	return newBuffer().text("let " + d.Name + " = " + d.Kind + "(" + strings.Join(args, ", ") + ");")
}

// exprText formats x on one line with no comments, for the places that
// only need its text.
func (p *printer) exprText(x ast.Expr) string {
	return strings.TrimSuffix(p.expr(x, &notes{}, ^uint(0), true).String(), "\n")
}

func (p *printer) macro(m *ast.Macro, md *notes, w uint) *Buffer {
	args := p.list(len(m.Params), ", ", w-10, func(i int, _ uint) *Buffer {
		return newBuffer().text(m.Params[i].Name)
	})
	blockMD := md.before(p.blockStart(m.Body))
	block := p.block(m.Body, md, w-indentWidth)
	b := newBuffer().text("macro " + m.Name + "(").add(args).text(")")
	return b.metadata(blockMD, 1).text("{").indented(block).text("}")
}

func (p *printer) probe(pr *ast.Probe, md *notes, w uint) *Buffer {
	b := newBuffer()
	for i, a := range pr.Attach {
		t := a.Raw
		if a.Name != "" {
			t = a.Name + "=" + t
		}
		if i < len(pr.Attach)-1 {
			t += ","
		}
		b.text(t).lineBreak()
	}
	if pr.Pred != nil {
		predMD := md.before(pr.Pred.GetSpan().Start)
		pred := p.expr(pr.Pred, md, w, true)
		b.metadataInline(predMD).text("/").add(pred).text("/").lineBreak()
	}
	// bpftrace makes the values of an if-else that ends a probe (no ';'
	// after it) statements. With a ';' it prints the if-else on one line
	// without it, which the next formatting changes; here it is made
	// statements either way.
	// A probe has no value: its last expression is a statement.
	p.statements[pr.Body] = true
	// So too an if-else value that ends it, which prints as an if
	// statement and parses back as one.
	if n := len(pr.Body.Stmts); n > 0 {
		switch s := pr.Body.Stmts[n-1].(type) {
		case *ast.IfStmt:
			for it := s; it != nil; {
				p.statements[it.Then] = true
				switch e := it.Else.(type) {
				case *ast.IfStmt:
					it = e
					continue
				case *ast.BlockStmt:
					p.statements[e.Body] = true
				}
				break
			}
		case *ast.ExprStmt:
			t, ok := unparen(s.X).(*ast.Ternary)
			for ok && isBlockIf(t) {
				p.statements[t.Then.(*ast.BlockExpr).Body] = true
				switch e := unparen(t.Else).(type) {
				case *ast.Ternary:
					t = e
					continue
				case *ast.BlockExpr:
					p.statements[e.Body] = true
				}
				break
			}
		}
	}
	// Without a predicate the block starts at its '{'; after one, where
	// the predicate ends (bpftrace's parser makes the predicate an if
	// around the block).
	start := pr.Body.Start
	if pr.Pred != nil {
		start = p.blockStart(pr.Body)
	}
	blockMD := md.before(start)
	block := p.block(pr.Body, md, w-2)
	return b.metadataInline(blockMD).text("{").indented(block).text("}")
}

// block formats a block's statements, and its value when it ends with an
// expression and no ';'.
func (p *printer) block(bl *ast.Block, md *notes, w uint) *Buffer {
	b := newBuffer()
	stmts := bl.Stmts
	var value ast.Expr
	if n := len(stmts); n > 0 {
		if es, ok := stmts[n-1].(*ast.ExprStmt); ok && !p.semiAfter(es.End) && !p.statements[bl] {
			value = es.X
			stmts = stmts[:n-1]
		}
	}
	for i, s := range stmts {
		sb := p.stmt(s, md, w)
		if sb.width() > 0 && i > 0 {
			b.lineBreak()
		}
		b.add(sb)
	}
	extra := md.before(bl.End)
	if value != nil {
		exprMD := extra.before(value.GetSpan().Start)
		var x *Buffer
		if t, ok := unparen(value).(*ast.Ternary); ok && isBlockIf(t) {
			// An if-else ending a block starts a statement, where the
			// parser takes `if c` without parentheses and makes it the
			// block's value.
			x = p.ifValue(t, extra, w, false)
		} else {
			x = p.expr(value, extra, w, true)
		}
		min := 0
		if b.numLines() > 0 {
			min = 1
		}
		b.metadata(exprMD, min).add(x)
	}
	return b.metadataInline(extra)
}

// semiAfter reports whether the first token after end is ';'.
func (p *printer) semiAfter(end srcpos.Pos) bool {
	s := p.src
	i := end.Offset
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
			i++
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return false
			}
			i += j + 4
		default:
			return s[i] == ';'
		}
	}
	return false
}

// stmt formats a statement after the comments before it.
func (p *printer) stmt(s ast.Stmt, md *notes, w uint) *Buffer {
	comments := md.before(s.GetSpan().Start)
	one := p.stmtValue(s, md, w)
	return newBuffer().metadata(comments, 0).add(one)
}

func (p *printer) stmtValue(s ast.Stmt, md *notes, w uint) *Buffer {
	switch s := s.(type) {
	case *ast.ExprStmt:
		if t, ok := unparen(s.X).(*ast.Ternary); ok && isBlockIf(t) {
			// An if-else whose value is dropped prints as the if
			// statement it then parses back as, as bpftrace prints it.
			return p.ifValue(t, md, w, false)
		}
		b := p.expr(s.X, md, w, true)
		if _, ok := unparen(s.X).(*ast.BlockExpr); ok {
			return b
		}
		return b.text(";")
	case *ast.IncDecStmt:
		if s.Prefix {
			return newBuffer().text(s.Op).add(p.expr(s.X, md, w-2, false)).text(";")
		}
		return p.expr(s.X, md, w-2, false).text(s.Op + ";")
	case *ast.AssignStmt:
		return p.assign(s, md, w)
	case *ast.LetStmt:
		decl := newBuffer().text("let " + s.Var.Name)
		if s.Type != nil {
			decl.text(" : " + typeText(s.Type, p))
		}
		if s.Init == nil {
			return decl.text(";")
		}
		x := p.expr(s.Init, md, w-(decl.width()+3), true)
		return decl.text(" = ").append(x, 0, alignAfterAssign(s.Init)).text(";")
	case *ast.IfStmt:
		return p.ifStmt(s, md, w)
	case *ast.ForRangeStmt:
		b := newBuffer().text("for " + s.Var.Name + " : ")
		b.add(p.rangeEnd(s.Lo, md, w)).text("..").add(p.rangeEnd(s.Hi, md, w))
		return b.text(" {").indented(p.block(s.Body, md, w-indentWidth)).text("}")
	case *ast.ForMapStmt:
		b := newBuffer().text("for " + s.Var.Name + " : ").add(p.mapRef(s.Map, md, w))
		return b.text(" {").indented(p.block(s.Body, md, w-indentWidth)).text("}")
	case *ast.WhileStmt:
		cond := p.expr(s.Cond, md, w-8, false)
		block := p.block(s.Body, md, w-2)
		return newBuffer().text("while ").add(cond).text(" {").indented(block).text("}")
	case *ast.UnrollStmt:
		block := p.block(s.Body, md, w-2)
		n := p.expr(s.Count, md, w-11, false)
		return newBuffer().text("unroll (").add(n).text(") {").indented(block).text("}")
	case *ast.BranchStmt:
		return newBuffer().text(s.Tok + ";")
	case *ast.ReturnStmt:
		if s.X == nil {
			return newBuffer().text("return;")
		}
		// bpftrace gives a returned value a width of 1: it is
		// parenthesised unless primitive, and never wrapped.
		return newBuffer().text("return ").add(p.expr(s.X, md, 1, false)).text(";")
	case *ast.BlockStmt:
		return p.blockValue(s.Body, md, w, true)
	}
	return newBuffer().text(fmt.Sprintf("/* %T */", s))
}

// rangeEnd is one end of a for range: a literal bare, anything else in
// parentheses.
func (p *printer) rangeEnd(x ast.Expr, md *notes, w uint) *Buffer {
	switch unparen(x).(type) {
	case *ast.IntLit, *ast.StrLit, *ast.BoolLit:
		return p.expr(x, md, w, true)
	}
	return newBuffer().text("(").add(p.expr(x, md, w-4, true)).text(")")
}

// alignAfterAssign reports whether the continuation lines of an assigned
// value line up after the '='; a block or an if-else starts its own
// indentation instead.
func alignAfterAssign(x ast.Expr) bool {
	switch x := unparen(x).(type) {
	case *ast.BlockExpr, *ast.Ternary:
		_ = x
		return false
	}
	return true
}

// compoundOps are the operators with an assignment form (op=).
var compoundOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true,
	"&": true, "|": true, "^": true, "<<": true, ">>": true,
}

func (p *printer) assign(s *ast.AssignStmt, md *notes, w uint) *Buffer {
	var lhs *Buffer
	switch l := unparen(s.Lhs).(type) {
	case *ast.Var:
		lhs = newBuffer().text(l.Name)
	case *ast.MapRef:
		lhs = p.mapRef(l, md, w)
	case *ast.Discard:
		return newBuffer().text("_ = ").add(p.expr(s.Rhs, md, w, true)).text(";")
	default:
		lhs = p.expr(s.Lhs, md, w, true)
	}
	op, rhs := s.Op, s.Rhs
	// bpftrace keeps `x = x + y` as `x += y` (its parser makes one of the
	// other); it does so for every operator, turning `$x = $x < 1` into
	// the comparison `$x <= 1`. Here only operators with an assignment
	// form are folded.
	if bin, ok := unparen(rhs).(*ast.Binary); ok && op == "=" && compoundOps[bin.Op] && p.sameTarget(s.Lhs, bin.X) && !isBlock(bin.Y) {
		op, rhs = bin.Op+"=", bin.Y
	}
	x := p.expr(rhs, md, w-(lhs.width()+2+uint(len(op))), true)
	return lhs.text(" "+op+" ").append(x, 0, alignAfterAssign(rhs)).text(";")
}

// isBlock reports whether x is a block used as a value, which cannot
// start the right-hand side of an assignment.
func isBlock(x ast.Expr) bool {
	_, ok := unparen(x).(*ast.BlockExpr)
	return ok
}

// sameTarget reports whether x is the assignment's target written again.
func (p *printer) sameTarget(lhs, x ast.Expr) bool {
	lhs, x = unparen(lhs), unparen(x)
	switch l := lhs.(type) {
	case *ast.Var:
		v, ok := x.(*ast.Var)
		return ok && v.Name == l.Name
	case *ast.MapRef:
		m, ok := x.(*ast.MapRef)
		return ok && m.Name == l.Name && (m.Keys == nil) == (l.Keys == nil) && p.exprText(m) == p.exprText(l)
	}
	return false
}

// ifBranch is one `if cond { then }` of an if-else chain.
type ifBranch struct {
	cond ast.Expr
	then *ast.Block
}

func (p *printer) ifStmt(s *ast.IfStmt, md *notes, w uint) *Buffer {
	var branches []ifBranch
	var final *ast.Block
	for it := s; it != nil; {
		branches = append(branches, ifBranch{it.Cond, it.Then})
		switch e := it.Else.(type) {
		case *ast.IfStmt:
			it = e
			continue
		case *ast.BlockStmt:
			final = e.Body
		}
		break
	}
	return p.ifChain(s.Start, branches, final, md, w)
}

// isBlockIf reports whether t is an if-else used as a value, with blocks.
func isBlockIf(t *ast.Ternary) bool {
	_, a := t.Then.(*ast.BlockExpr)
	_, b := t.Else.(*ast.BlockExpr)
	_, c := t.Else.(*ast.Ternary)
	return a && (b || c)
}

// ifValue formats an if-else with blocks used as a value, or, when value
// is false, one whose value is dropped, as an if statement.
func (p *printer) ifValue(t *ast.Ternary, md *notes, w uint, value bool) *Buffer {
	var branches []ifBranch
	var final *ast.Block
	for it := t; it != nil; {
		branches = append(branches, ifBranch{it.Cond, it.Then.(*ast.BlockExpr).Body})
		switch e := unparen(it.Else).(type) {
		case *ast.Ternary:
			if isBlockIf(e) {
				it = e
				continue
			}
		case *ast.BlockExpr:
			final = e.Body
		}
		break
	}
	return p.ifChainValue(t.Start, branches, final, md, w, value)
}

// hasValue reports whether a block ends with a value: an expression, or an
// if-else that has one, with no ';' after it. An if-else value and an if
// statement print alike, and bpftrace reads either as the other, so both
// count, or formatting what was a value again would change it.
func (p *printer) hasValue(b *ast.Block) bool {
	if p.statements[b] {
		return false
	}
	n := len(b.Stmts)
	if n == 0 {
		return false
	}
	switch s := b.Stmts[n-1].(type) {
	case *ast.ExprStmt:
		return !p.semiAfter(s.End)
	case *ast.IfStmt:
		if p.semiAfter(s.End) || !p.hasValue(s.Then) {
			return false
		}
		for it := s; ; {
			switch e := it.Else.(type) {
			case *ast.IfStmt:
				it = e
				continue
			case *ast.BlockStmt:
				return true
			}
			return false
		}
	}
	return false
}

// ifChain formats an if-else chain on one line when every branch is one
// short value, else as blocks.
func (p *printer) ifChain(start srcpos.Pos, branches []ifBranch, final *ast.Block, md *notes, w uint) *Buffer {
	return p.ifChainValue(start, branches, final, md, w, false)
}

// ifChainValue is ifChain; value is set for an if-else used as a value,
// whose conditions keep their parentheses: gotrace's parser reads a value's
// `if` only with `if (c)` or `if comptime c` (bpftrace prints `if $x {`).
func (p *printer) ifChainValue(start srcpos.Pos, branches []ifBranch, final *ast.Block, md *notes, w uint, value bool) *Buffer {
	comments := md.before(start)
	type pair struct{ cond, then *Buffer }
	var pairs []pair
	var total uint
	// bpftrace takes the comments before the first branch's block for
	// every branch's condition.
	firstThen := branches[0].then.Start
	for _, br := range branches {
		condMD := md.before(firstThen)
		cond := p.expr(br.cond, condMD, w-5, isComptime(br.cond))
		if value && !isComptime(br.cond) && isPrimitive(br.cond) {
			cond = newBuffer().text("(").add(cond).text(")")
		}
		cond.metadataInline(condMD)
		then := p.block(br.then, md, w-indentWidth)
		total += cond.width() + 5 + then.width() + 3
		pairs = append(pairs, pair{cond, then})
	}
	var els *Buffer
	if final != nil {
		els = p.block(final, md, w-indentWidth)
	}
	b := newBuffer().metadata(comments, 0)
	nonValue := !p.hasValue(branches[0].then) || final == nil
	multi := false
	for _, pr := range pairs {
		multi = multi || pr.cond.numLines() > 1 || pr.then.numLines() > 1
	}
	if nonValue || total > w || len(pairs) > 1 || multi || (els != nil && els.numLines() > 1) {
		for i, pr := range pairs {
			kw := "if "
			if i > 0 {
				kw = " else if "
			}
			b.text(kw).add(pr.cond).text(" {").indented(pr.then).text("}")
		}
		if els != nil {
			b.text(" else {").indented(els).text("}")
		}
		return b
	}
	for i, pr := range pairs {
		kw := "if "
		if i > 0 {
			kw = " else if "
		}
		b.text(kw).add(pr.cond).text(" { ").add(pr.then).text(" }")
	}
	if els != nil {
		b.text(" else { ").add(els).text(" }")
	}
	return b
}

// blockValue formats a block used as a value or nested as a statement:
// on one line when it fits, else over several.
func (p *printer) blockValue(bl *ast.Block, md *notes, w uint, bare bool) *Buffer {
	local := w
	if !bare {
		local = w - 2
	}
	blk := p.block(bl, md, w-2)
	if blk.numLines() > 1 || blk.width() > local {
		return newBuffer().text("{").indented(blk).text("}")
	}
	return newBuffer().text("{ ").add(blk).text(" }")
}

func unparen(x ast.Expr) ast.Expr {
	for {
		p, ok := x.(*ast.Paren)
		if !ok {
			return x
		}
		x = p.X
	}
}

// isPrimitive reports whether x prints without parentheses wherever it is.
func isPrimitive(x ast.Expr) bool {
	switch x := unparen(x).(type) {
	case *ast.IntLit, *ast.StrLit, *ast.BoolLit, *ast.PosParam, *ast.Ident,
		*ast.SizeofExpr, *ast.OffsetofExpr, *ast.Var, *ast.Index, *ast.Field,
		*ast.MapRef:
		return true
	case *ast.Call:
		if isComptime(x) {
			return isPrimitive(x.Args[0])
		}
		return true
	case *ast.Cast:
		// typeof(x) as a value prints as the call-like typeof(...).
		return false
	default:
		_ = x
		return false
	}
}

func isComptime(x ast.Expr) bool {
	c, ok := unparen(x).(*ast.Call)
	return ok && c.Name == "comptime" && len(c.Args) == 1
}

func isComparison(op string) bool {
	switch op {
	case "==", "!=", "<", "<=", ">", ">=":
		return true
	}
	return false
}

// expr formats an expression where it appears: in parentheses unless it is
// primitive or bare is set (a position where no operator can bind to it),
// with the comments inside it.
func (p *printer) expr(x ast.Expr, md *notes, w uint, bare bool) *Buffer {
	x = unparen(x)
	local := md.before(x.GetSpan().End)
	_, isTuple := x.(*ast.Tuple)
	if t, ok := x.(*ast.Tuple); ok && t.Names != nil {
		isTuple = false // a record prints its own parentheses
	}
	bareOK := (bare && !isTuple) || isPrimitive(x)
	lw := w
	if !bareOK {
		lw = w - 2
	}
	b := newBuffer()
	// bpftrace drops the comments inside an expression that no part of
	// it prints; they are kept here: those before it (e.g. after the
	// previous argument) before it, the others after it.
	for _, n := range local.beforeStart(x.GetSpan().Start).list {
		if n.comment {
			b.comment(strings.TrimRight(n.text, " \t")).text(" ")
		}
	}
	if !bareOK {
		b.text("(")
	}
	if be, ok := x.(*ast.BlockExpr); ok {
		b.add(p.blockValue(be.Body, local, w, true))
	} else {
		b.add(p.value(x, local, lw, true))
	}
	for _, n := range local.list {
		if n.comment {
			b.comment(strings.TrimRight(n.text, " \t"))
		}
	}
	if !bareOK {
		b.text(")")
	}
	return b
}

// value formats the expression x itself.
func (p *printer) value(x ast.Expr, md *notes, w uint, bare bool) *Buffer {
	switch x := x.(type) {
	case *ast.IntLit:
		return newBuffer().text(x.Text)
	case *ast.StrLit:
		return newBuffer().text(`"` + escape(x.Value) + `"`)
	case *ast.BoolLit:
		return newBuffer().text(strconv.FormatBool(x.Value))
	case *ast.Ident:
		return newBuffer().text(x.Name)
	case *ast.Var:
		return newBuffer().text(x.Name)
	case *ast.PosParam:
		if x.Index < 0 {
			return newBuffer().text("$#")
		}
		return newBuffer().text("$" + strconv.Itoa(x.Index))
	case *ast.MapRef:
		return p.mapRef(x, md, w)
	case *ast.Discard:
		return newBuffer().text("_")
	case *ast.Call:
		if x.Name == "comptime" && len(x.Args) == 1 {
			// bpftrace's `comptime x` (gotrace parses it as a call).
			return newBuffer().text("comptime ").add(p.expr(x.Args[0], md, w-9, false))
		}
		args := p.list(len(x.Args), ", ", w-uint(len(x.Name)+2), func(i int, w uint) *Buffer {
			return p.expr(x.Args[i], md, w, true)
		})
		if args.width() > w {
			return newBuffer().text(x.Name + "(").indented(args).text(")")
		}
		return newBuffer().text(x.Name + "(").add(args).text(")")
	case *ast.Binary:
		return p.binary(x, md, w)
	case *ast.Unary:
		if x.Op == "&" {
			return newBuffer().text("&").add(p.expr(x.X, md, w-1, true))
		}
		inner := p.expr(x.X, md, w-uint(len(x.Op)), false)
		if x.Postfix {
			return inner.text(x.Op)
		}
		return newBuffer().text(x.Op).add(inner)
	case *ast.Ternary:
		if isBlockIf(x) {
			return p.ifValue(x, md, w, true)
		}
		cond := p.expr(x.Cond, md, w, false)
		then := p.expr(x.Then, md, w-2, false)
		els := p.expr(x.Else, md, w-2, false)
		if cond.width()+then.width()+els.width()+8 > w {
			return newBuffer().add(cond).lineBreak().text("? ").add(then).lineBreak().text(": ").add(els)
		}
		return newBuffer().add(cond).text(" ? ").add(then).text(" : ").add(els)
	case *ast.Field:
		inner := p.expr(x.X, md, w-uint(len(x.Name)+1), isPrimitive(x.X))
		return inner.text("." + x.Name)
	case *ast.Index:
		base := p.expr(x.X, md, w-1, false)
		idx := p.expr(x.Index, md, w-indentWidth, false)
		b := newBuffer().add(base).text("[")
		if base.width()+idx.width()+2 > w {
			return b.indented(idx).text("]")
		}
		return b.add(idx).text("]")
	case *ast.Cast:
		b := newBuffer().text("(" + typeText(x.Type, p) + ")")
		return b.add(p.expr(x.X, md, w-b.width(), isPrimitive(x.X)))
	case *ast.Tuple:
		if x.Names != nil {
			return p.record(x, md, w)
		}
		var elems *Buffer
		if len(x.Elems) == 1 {
			elems = p.expr(x.Elems[0], md, w-3, true).text(",")
		} else {
			elems = p.list(len(x.Elems), ", ", w-indentWidth, func(i int, w uint) *Buffer {
				return p.expr(x.Elems[i], md, w, true)
			})
		}
		if bare {
			return elems
		}
		return parenthesize(elems)
	case *ast.BlockExpr:
		return p.blockValue(x.Body, md, w, bare)
	case *ast.SizeofExpr:
		return newBuffer().text("sizeof(").add(p.typeArg(x.Type, x.X, md, w-8)).text(")")
	case *ast.OffsetofExpr:
		return newBuffer().text("offsetof(").add(p.typeArg(x.Type, x.X, md, w)).text(", " + strings.Join(x.Field, ".") + ")")
	case *ast.TypeArg:
		if x.Type.Of != nil || !x.Type.Typeof {
			return newBuffer().text(typeText(x.Type, p))
		}
		t := *x.Type
		t.Typeof = false
		return newBuffer().text("typeof(" + typeText(&t, p) + ")")
	case *ast.Paren:
		return p.expr(x.X, md, w, bare)
	}
	return newBuffer().text(fmt.Sprintf("/* %T */", x))
}

func parenthesize(elems *Buffer) *Buffer {
	if elems.numLines() > 1 {
		return newBuffer().text("(").indented(elems).text(")")
	}
	return newBuffer().text("(").add(elems).text(")")
}

func (p *printer) record(x *ast.Tuple, md *notes, w uint) *Buffer {
	named := func(i int, w uint) *Buffer {
		n := x.Names[i]
		return newBuffer().text(n + "=").add(p.expr(x.Elems[i], md, w-uint(len(n))-1, false))
	}
	var elems *Buffer
	if len(x.Elems) == 1 {
		elems = named(0, w-2)
	} else {
		elems = p.list(len(x.Elems), ", ", w-indentWidth, named)
	}
	return parenthesize(elems)
}

// typeArg formats the operand of sizeof, offsetof and typeof: a type, or
// an expression (in parentheses when it is an index of a name, which would
// read back as an array type).
func (p *printer) typeArg(t *ast.TypeExpr, x ast.Expr, md *notes, w uint) *Buffer {
	if t != nil {
		return newBuffer().text(typeText(t, p))
	}
	b := p.expr(x, md, w, true)
	if isIndexOfName(x) {
		return newBuffer().text("(").add(b).text(")")
	}
	return b
}

func isIndexOfName(x ast.Expr) bool {
	ix, ok := unparen(x).(*ast.Index)
	if !ok {
		return false
	}
	base := unparen(ix.X)
	for {
		in, ok := base.(*ast.Index)
		if !ok {
			break
		}
		base = unparen(in.X)
	}
	_, ok = base.(*ast.Ident)
	return ok
}

// typeText prints a type as bpftrace does: the '*'s against the name.
func typeText(t *ast.TypeExpr, p *printer) string {
	if t.Typeof {
		if t.Of != nil {
			return "typeof(" + p.exprText(t.Of) + ")"
		}
		// bpftrace writes typeof(T) as T, but reads typeof(name) as
		// the type of an expression (a macro's parameter).
		if t.Pointers == 0 && !t.IsArray && !strings.Contains(t.Name, " ") && !plainTypes[t.Name] {
			return "typeof(" + t.Name + ")"
		}
	}
	s := t.Name + strings.Repeat("*", t.Pointers)
	if t.IsArray {
		s += "["
		if t.ArrayLen != 0 {
			s += strconv.Itoa(t.ArrayLen)
		}
		s += "]"
	}
	return s
}

// plainTypes are the type names bpftrace reads as types in typeof().
var plainTypes = map[string]bool{
	"int8": true, "int16": true, "int32": true, "int64": true,
	"uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"bool": true, "string": true, "void": true, "char": true, "short": true,
	"int": true, "long": true, "unsigned": true, "signed": true,
}

func (p *printer) mapRef(m *ast.MapRef, md *notes, w uint) *Buffer {
	if m.Keys == nil {
		return newBuffer().text(m.Name)
	}
	var key *Buffer
	if len(m.Keys) >= 2 {
		key = p.list(len(m.Keys), ", ", w-indentWidth-indentWidth, func(i int, w uint) *Buffer {
			return p.expr(m.Keys[i], md, w, true)
		})
	} else {
		key = p.expr(m.Keys[0], md, w-indentWidth, true)
	}
	b := newBuffer().text(m.Name + "[")
	if uint(len(m.Name))+key.width()+2 > w {
		return b.indented(key).text("]")
	}
	return b.add(key).text("]")
}

// binary formats a binary expression; a chain of one logical operator is
// one list, broken between operands when too wide.
func (p *printer) binary(x *ast.Binary, md *notes, w uint) *Buffer {
	type operand struct {
		x    ast.Expr
		left bool
	}
	var ops []operand
	logical := x.Op == "&&" || x.Op == "||"
	var expand func(e ast.Expr, left bool)
	expand = func(e ast.Expr, left bool) {
		if b, ok := unparen(e).(*ast.Binary); ok && logical && b.Op == x.Op {
			expand(b.X, true)
			expand(b.Y, false)
			return
		}
		ops = append(ops, operand{e, left})
	}
	expand(x.X, true)
	expand(x.Y, false)
	return p.list(len(ops), " "+x.Op+" ", w, func(i int, w uint) *Buffer {
		o := ops[i]
		return p.expr(o.x, md, w, bareOperand(x.Op, o.x, o.left))
	})
}

// bareOperand reports whether a comparison operand of op needs no
// parentheses. bpftrace leaves every comparison operand bare, which turns
// `($a == 1) + 2` into `$a == 1 + 2`; here one is bare only where it reads
// back the same.
func bareOperand(op string, x ast.Expr, left bool) bool {
	b, ok := unparen(x).(*ast.Binary)
	if !ok || !isComparison(b.Op) {
		return false
	}
	pc, pp := syntax.Precedence(b.Op), syntax.Precedence(op)
	return pc > pp || pc == pp && left
}

// list formats n elements separated by sep: on one line when they fit in
// w, else broken into lines, choosing bpftrace's arrangement: the one
// whose break after the last element that starts a line is earliest (it
// tries the arrangements in order and keeps the first that fits). elem
// formats element i within a width.
func (p *printer) list(n int, sep string, w uint, elem func(i int, w uint) *Buffer) *Buffer {
	if n == 0 {
		return newBuffer()
	}
	args := make([]*Buffer, n)
	var total uint
	for i := range n {
		ew := w
		if i < n-1 {
			ew = w - 1
		}
		a := elem(i, ew)
		if i < n-1 {
			a.text(sep)
		}
		total += a.width()
		args[i] = a
	}
	out := newBuffer()
	if total < w {
		for _, a := range args {
			out.add(a)
		}
		return out
	}
	breaks := arrange(args, w)
	for i, a := range args {
		if i > 0 && breaks[i] {
			out.lineBreak()
		}
		out.add(a)
	}
	return out
}

// arrange chooses where list elements start new lines. bpftrace tries each
// arrangement in the order of a bit mask (bit i-1 set: element i starts a
// line) and keeps the first in which no line is wider than w; with no
// element empty that is the one filling the lines from the end. When no
// arrangement fits, everything stays on one line.
func arrange(args []*Buffer, w uint) []bool {
	breaks := make([]bool, len(args))
	for _, a := range args {
		if a.width() > w {
			return breaks
		}
	}
	var cur uint
	for i := len(args) - 1; i >= 0; i-- {
		aw := args[i].width()
		if cur > 0 && cur+aw > w {
			breaks[i+1] = true
			cur = 0
		}
		cur += aw
	}
	return breaks
}

// escape writes a string literal's text as bpftrace prints it.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '"':
			b.WriteString(`\"`)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\r':
			b.WriteString(`\r`)
		default:
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	return b.String()
}
