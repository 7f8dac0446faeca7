package lsp

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cilium/ebpf/btf"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/internal/usdt"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// maxItems bounds a completion list; a longer one is marked incomplete,
// so the editor asks again as the user types more.
const maxItems = 500

// completion answers textDocument/completion from the text around the
// cursor: an attach point in a probe's header, a config key in the config
// block, a member after '.' or '->', a map after '@', a variable after
// '$', else the builtins, macros and keywords.
func (s *Server) completion(_ *glsp.Context, p *protocol.CompletionParams) (any, error) {
	d, err := s.doc(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	src := d.text.src
	off := d.text.offset(p.Position)
	c := &completer{s: s, d: d, src: src, off: off}
	c.complete()
	if c.items == nil {
		c.items = []protocol.CompletionItem{}
	}
	return protocol.CompletionList{IsIncomplete: c.incomplete, Items: c.items}, nil
}

type completer struct {
	s          *Server
	d          *document
	src        string
	off        int
	items      []protocol.CompletionItem
	incomplete bool
	seen       map[string]bool
}

func (c *completer) add(label string, kind protocol.CompletionItemKind, detail, doc string) {
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if c.seen[label] {
		return
	}
	if len(c.items) >= maxItems {
		c.incomplete = true
		return
	}
	c.seen[label] = true
	it := protocol.CompletionItem{Label: label, Kind: &kind}
	if detail != "" {
		it.Detail = &detail
	}
	if doc != "" {
		it.Documentation = protocol.MarkupContent{Kind: protocol.MarkupKindMarkdown, Value: doc}
	}
	c.items = append(c.items, it)
}

// wordStart is the start of the identifier ending at the cursor.
func (c *completer) wordStart() int {
	i := c.off
	for i > 0 && isIdentByte(c.src[i-1]) {
		i--
	}
	return i
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func (c *completer) complete() {
	start, _ := itemAt(c.src, max(0, c.off-1))
	if start > c.off {
		start = c.off
	}
	head := c.src[start:c.off]
	depth := braceDepth(head)
	if depth == 0 {
		if strings.HasPrefix(strings.TrimSpace(head), "config") {
			return
		}
		// An attach point has no spaces; after one, a predicate.
		ap := head[strings.LastIndexAny(head, ",\n")+1:]
		if !strings.ContainsAny(strings.TrimSpace(ap), " \t") {
			c.attachPoints(ap)
			return
		}
	}
	if strings.HasPrefix(strings.TrimSpace(head), "config") && depth == 1 {
		c.configKeys()
		return
	}
	w := c.wordStart()
	switch {
	case w > 0 && c.src[w-1] == '@':
		c.maps()
	case w > 0 && c.src[w-1] == '$':
		c.variables(start)
	case w > 0 && c.src[w-1] == '.' && (w < 2 || c.src[w-2] != '.'):
		c.members(start, w-1)
	case w > 1 && c.src[w-1] == '>' && c.src[w-2] == '-':
		c.members(start, w-2)
	default:
		c.names()
	}
}

// braceDepth is the '{' nesting at the end of s, strings and comments
// skipped.
func braceDepth(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case strings.HasPrefix(s[i:], "/*"):
			if j := strings.Index(s[i+2:], "*/"); j >= 0 {
				i += j + 3
			} else {
				i = len(s)
			}
		case s[i] == '"':
			i = skipString(s, i)
		case s[i] == '{':
			depth++
		case s[i] == '}':
			depth = max(0, depth-1)
		}
	}
	return depth
}

// attachPoints completes the attach point being typed at the end of
// head, a probe's header.
func (c *completer) attachPoints(head string) {
	ap := strings.TrimSpace(head)
	parts := strings.Split(ap, ":")
	if len(parts) == 1 {
		for _, p := range provider.All() {
			if !p.Supported() {
				continue
			}
			c.add(p.Name, protocol.CompletionItemKindModule, "probe provider", "")
			for _, a := range p.Aliases {
				c.add(a, protocol.CompletionItemKindModule, "alias of "+p.Name, "")
			}
		}
		c.add("BEGIN", protocol.CompletionItemKindEvent, "runs once at the start", "")
		c.add("END", protocol.CompletionItemKindEvent, "runs once at the end", "")
		for _, kw := range []string{"config", "import", "macro", "let"} {
			c.add(kw, protocol.CompletionItemKindKeyword, "", "")
		}
		return
	}
	prov := provider.Lookup(parts[0])
	if prov == nil {
		return
	}
	switch {
	case prov.ArgsInCtx:
		c.tracepoints(parts[1:])
	case prov.ArgsType != nil && !prov.UserBinary && len(parts) == 2:
		c.kernelFuncs(prov.Name == "rawtracepoint")
	case prov.Name == "usdt" && (len(parts) == 3 || len(parts) == 4):
		c.usdtProbes(parts[1], parts[2:len(parts)-1])
	case prov.UserBinary && len(parts) == 3:
		c.userSymbols(parts[1])
	}
}

func (c *completer) tracepoints(parts []string) {
	if len(parts) == 1 {
		all, err := c.s.env.Tracepoints("*:*")
		if err != nil {
			return
		}
		for _, tp := range all {
			if cat, _, ok := strings.Cut(tp, ":"); ok {
				c.add(cat, protocol.CompletionItemKindModule, "tracepoint category", "")
			}
		}
		return
	}
	evs, err := c.s.env.Tracepoints(parts[0] + ":*")
	if err != nil {
		return
	}
	for _, tp := range evs {
		_, ev, _ := strings.Cut(tp, ":")
		c.add(ev, protocol.CompletionItemKindEvent, "tracepoint "+tp, "")
	}
}

// kernelFuncs completes kernel functions from BTF (raw tracepoints: the
// btf_trace_ typedefs), those starting with the word typed.
func (c *completer) kernelFuncs(raw bool) {
	names := c.s.kernelNames()
	list := names.funcs
	if raw {
		list = names.rawTracepoints
	}
	prefix := c.src[c.wordStart():c.off]
	i, _ := slices.BinarySearch(list, prefix)
	for ; i < len(list) && strings.HasPrefix(list[i], prefix); i++ {
		c.add(list[i], protocol.CompletionItemKindFunction, "kernel function", "")
	}
}

// btfNames are the kernel's functions and raw tracepoints, sorted.
type btfNames struct {
	funcs, rawTracepoints []string
}

// kernelNames lists, once, the names of the kernel's BTF functions and
// raw tracepoints (decoding every type of the kernel's BTF takes a second
// or two; Serve starts it early).
func (s *Server) kernelNames() *btfNames {
	s.namesOnce.Do(func() {
		s.names = &btfNames{}
		spec, err := s.env.BTF()
		if err != nil {
			return
		}
		for t, err := range spec.All() {
			if err != nil {
				break
			}
			switch t := t.(type) {
			case *btf.Func:
				s.names.funcs = append(s.names.funcs, t.Name)
			case *btf.Typedef:
				if n, ok := strings.CutPrefix(t.Name, "btf_trace_"); ok {
					s.names.rawTracepoints = append(s.names.rawTracepoints, n)
				}
			}
		}
		slices.Sort(s.names.funcs)
		s.names.funcs = slices.Compact(s.names.funcs)
		slices.Sort(s.names.rawTracepoints)
	})
	return s.names
}

// binary resolves the binary of a uprobe or usdt attach point, as the
// checker does.
func (c *completer) binary(target string) (provider.HostFiles, string, bool) {
	h, ok := c.s.env.(provider.HostFiles)
	if !ok {
		return nil, "", false
	}
	file, err := h.ResolveBinary(strings.Trim(target, `"`))
	return h, file, err == nil
}

// usdtProbes completes the USDT probes of the binary of usdt:BINARY: —
// PROVIDER:PROBE, and PROBE alone, the provider being optional — or, after
// usdt:BINARY:PROVIDER:, the probes of that provider.
func (c *completer) usdtProbes(target string, ns []string) {
	_, file, ok := c.binary(target)
	if !ok {
		return
	}
	probes, err := usdt.ReadFile(file)
	if err != nil {
		return
	}
	prefix := c.src[c.wordStart():c.off]
	for _, p := range probes {
		if !strings.HasPrefix(p.Name, prefix) && !(len(ns) == 0 && strings.HasPrefix(p.Provider, prefix)) {
			continue
		}
		detail := fmt.Sprintf("USDT probe %s:%s of %s, %d arguments", p.Provider, p.Name, file, len(p.Args))
		doc := ""
		if p.ArgSpec != "" {
			doc = "arguments `" + p.ArgSpec + "`"
		}
		switch {
		case len(ns) == 0:
			c.add(p.Provider+":"+p.Name, protocol.CompletionItemKindEvent, detail, doc)
			c.add(p.Name, protocol.CompletionItemKindEvent, detail, doc)
		case ns[0] == p.Provider:
			c.add(p.Name, protocol.CompletionItemKindEvent, detail, doc)
		}
	}
}

func (c *completer) userSymbols(target string) {
	h, file, ok := c.binary(target)
	if !ok {
		return
	}
	syms, err := h.ELFSymbols(file)
	if err != nil {
		return
	}
	prefix := c.src[c.wordStart():c.off]
	for _, s := range syms {
		if strings.HasPrefix(s.Name, prefix) {
			c.add(s.Name, protocol.CompletionItemKindFunction, "symbol of "+file, "")
		}
	}
}

// configKeys are the keys of a config block, as the checker takes them.
var configKeys = []string{
	"cache_user_symbols", "cpp_demangle", "lazy_symbolication", "license",
	"log_size", "max_bpf_progs", "max_cat_bytes", "max_map_keys", "max_probes",
	"max_strlen", "missing_probes", "on_stack_limit", "perf_rb_pages",
	"print_maps_on_exit", "show_debug_info", "stack_mode", "str_trunc_trailer",
	"symbol_source", "unstable_import", "unstable_macro", "unstable_map_decl",
	"unstable_tseries", "unstable_addr", "unstable_typeinfo",
}

func (c *completer) configKeys() {
	for _, k := range configKeys {
		c.add(k, protocol.CompletionItemKindProperty, "config key", "")
	}
}

var (
	mapRe = regexp.MustCompile(`@[A-Za-z_][A-Za-z0-9_]*`)
	varRe = regexp.MustCompile(`\$[A-Za-z_][A-Za-z0-9_]*`)
)

func (c *completer) maps() {
	for _, m := range mapRe.FindAllString(c.src, -1) {
		if m != c.src[c.wordStart()-1:c.off] {
			c.add(m[1:], protocol.CompletionItemKindVariable, "map "+m, "")
		}
	}
}

// variables completes the variables of the probe (or macro) the cursor
// is in, and the positional parameters.
func (c *completer) variables(itemStart int) {
	_, end := itemAt(c.src, itemStart)
	cur := c.src[c.wordStart()-1 : c.off]
	for _, v := range varRe.FindAllString(c.src[itemStart:end], -1) {
		if v != cur {
			c.add(v[1:], protocol.CompletionItemKindVariable, "variable "+v, "")
		}
	}
}

// names completes builtins (with their signatures), macros and keywords.
func (c *completer) names() {
	for _, v := range builtin.Vars() {
		d := builtin.Docs(v.Name)
		c.add(v.Name, protocol.CompletionItemKindVariable, d.Sig, d.Markdown())
	}
	for _, f := range builtin.Funcs() {
		d := builtin.Docs(f.Name)
		c.add(f.Name, protocol.CompletionItemKindFunction, d.Sig, d.Markdown())
	}
	if c.d.file != nil {
		for _, m := range c.d.file.Macros {
			var ps []string
			for _, p := range m.Params {
				ps = append(ps, p.Name)
			}
			c.add(m.Name, protocol.CompletionItemKindFunction, "macro "+m.Name+"("+strings.Join(ps, ", ")+")", "")
		}
	}
	for _, kw := range []string{"if", "else", "for", "while", "unroll", "return", "break", "continue", "let", "sizeof", "offsetof", "typeof"} {
		c.add(kw, protocol.CompletionItemKindKeyword, "", "")
	}
}

// members completes the members of the expression before the '.' or '->'
// at dot: the script is cut at the start of the statement there, the
// expression is made a statement of its own, the blocks are closed, and
// the result is checked for the expression's type.
func (c *completer) members(itemStart, dot int) {
	xs := exprStart(c.src, dot)
	if xs >= dot {
		return
	}
	expr := c.src[xs:dot]
	st := stmtStart(c.src, itemStart, xs)
	depth := braceDepth(c.src[itemStart:st])
	if depth == 0 {
		return
	}
	// The other probes are blanked out: the expression's type depends
	// only on its probe and the script's declarations.
	prefix := onlyDecls(c.src[:itemStart]) + c.src[itemStart:st]
	synth := prefix + " " + expr + ";" + strings.Repeat("}", depth)
	at := len(prefix) + 1
	t := c.typeAt(synth, at, at+len(expr))
	if t == nil {
		return
	}
	for _, f := range fieldsOf(t) {
		c.add(f.Name, protocol.CompletionItemKindField, typeString(f.Type), "")
	}
}

// declWords start the top-level items that are declarations, not probes.
var declWords = []string{"config", "import", "macro", "let", "struct", "union", "enum", "typedef", "#"}

// onlyDecls blanks the probes of src, keeping its declarations (C
// definitions, config, imports, macros, map declarations), positions
// unchanged.
func onlyDecls(src string) string {
	for _, it := range topItems(src) {
		text := src[it[0]:it[1]]
		decl := false
		for _, w := range declWords {
			if strings.HasPrefix(text, w) {
				decl = true
			}
		}
		if !decl {
			src = blank(src, it[0], it[1])
		}
	}
	return src
}

// typeAt checks src and returns the type of the expression spanning
// bytes [s, e), or nil.
func (c *completer) typeAt(src string, s, e int) *types.Type {
	f, _, _ := parseRecover(c.d.name, src)
	if f == nil {
		return nil
	}
	prog, _ := analyzeFile(f, c.s.env)
	if prog == nil {
		return nil
	}
	for _, pr := range prog.Probes {
		if pr.Info == nil {
			continue
		}
		for x, t := range pr.Info.Types {
			sp := x.GetSpan()
			if sp.Start.Offset == s && sp.End.Offset == e && t != nil {
				return t
			}
		}
	}
	return nil
}

// exprStart is where the operand ending at end starts: names, variables,
// maps, member and index chains, and parenthesised or bracketed parts.
func exprStart(src string, end int) int {
	i := end
	for i > 0 {
		b := src[i-1]
		switch {
		case isIdentByte(b) || b == '$' || b == '@' || b == '.':
			i--
		case b == '>' && i > 1 && src[i-2] == '-':
			i -= 2
		case b == ')' || b == ']':
			open := byte('(')
			if b == ']' {
				open = '['
			}
			depth := 0
			j := i - 1
			for ; j >= 0; j-- {
				if src[j] == b {
					depth++
				} else if src[j] == open {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			if j < 0 {
				return i
			}
			i = j
		default:
			return i
		}
	}
	return i
}

// stmtStart is the offset after the ';', '{' or '}' before off in the
// item starting at itemStart (strings and comments skipped).
func stmtStart(src string, itemStart, off int) int {
	last := itemStart
	for i := itemStart; i < off; i++ {
		switch {
		case strings.HasPrefix(src[i:], "//"):
			for i < off && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			if j := strings.Index(src[i+2:], "*/"); j >= 0 {
				i += j + 3
			}
		case src[i] == '"':
			i = skipString(src, i)
		case src[i] == ';' || src[i] == '{' || src[i] == '}':
			last = i + 1
		}
	}
	return last
}

// fieldsOf lists the members of a record, tuple or struct, through a
// pointer, from the checker's type or else the type's BTF.
func fieldsOf(t *types.Type) []types.Field {
	for t != nil && t.Kind == types.Pointer && t.Elem != nil {
		t = t.Elem
	}
	if t == nil {
		return nil
	}
	if len(t.Fields) > 0 {
		return t.Fields
	}
	var out []types.Field
	for _, m := range btfMembers(t.BTF) {
		out = append(out, types.Field{Name: m.Name, Offset: int(m.Offset.Bytes()), Type: &types.Type{Name: provider.CType(m.Type)}})
	}
	return out
}

// btfMembers lists a struct's or union's members, those of its anonymous
// members in their place.
func btfMembers(t btf.Type) []btf.Member {
	t = btf.UnderlyingType(t)
	if p, ok := t.(*btf.Pointer); ok {
		t = btf.UnderlyingType(p.Target)
	}
	var ms []btf.Member
	switch t := t.(type) {
	case *btf.Struct:
		ms = t.Members
	case *btf.Union:
		ms = t.Members
	default:
		return nil
	}
	var out []btf.Member
	for _, m := range ms {
		if m.Name == "" {
			for _, in := range btfMembers(m.Type) {
				in.Offset += m.Offset
				out = append(out, in)
			}
			continue
		}
		out = append(out, m)
	}
	return out
}

// typeString is a type's name for a completion or hover.
func typeString(t *types.Type) string {
	if t == nil {
		return ""
	}
	if t.Kind == 0 && t.Name != "" {
		return t.Name
	}
	return t.String()
}

var _ = srcpos.Pos{}
