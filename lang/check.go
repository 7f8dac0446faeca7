package lang

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// Check resolves and type-checks a parsed script against env. On failure it
// returns an ErrorList with every error found, sorted by position.
func Check(file *ast.File, env Env, opts Options) (*Program, error) {
	if opts.MaxStrlen <= 0 {
		opts.MaxStrlen = DefaultMaxStrlen
	}
	if opts.MaxMapKeys <= 0 {
		opts.MaxMapKeys = DefaultMaxMapKeys
	}
	c := &checker{
		env:        env,
		opts:       opts,
		builtinTab: builtins(),
		funcTab:    funcs(),
		prog:       &Program{File: file, Maps: map[string]*MapType{}, MaxStrlen: opts.MaxStrlen, MaxMapKeys: opts.MaxMapKeys},
	}
	c.checkFile(file)
	if len(c.errs) > 0 {
		c.errs.Sort()
		return nil, collapse(c.errs)
	}
	return c.prog, nil
}

type checker struct {
	env  Env
	opts Options
	prog *Program
	errs ErrorList

	// quiet suppresses errors during the first, inference-only pass.
	quiet bool
	// state of the probe instance being checked
	probe *Probe
	info  *Info
	// formats caches tracepoint formats by "cat:event".
	formats map[string]*TracepointFormat
	// scopes maps variable names to declaration IDs, innermost last;
	// nextVar is the next declaration ID of the probe.
	scopes  []map[string]int
	nextVar int
	// loops counts the loops enclosing the statement being checked.
	loops int
	// macros are the script's macros by name.
	macros map[string]*ast.Macro
	// enums maps kernel enum constants to their values (built lazily).
	enums map[string]uint64
	// ctypes holds the types the script's C definitions declare, by name
	// ("struct foo", "enum bar", or a typedef name).
	ctypes map[string]btf.Type
	// defines holds the #define constants of the preamble.
	defines map[string]Const
	// builtinTab and funcTab are the builtin variables and functions,
	// built once per check.
	builtinTab map[string]*Builtin
	funcTab    map[string]*Func
	// funcs caches the kernel's BTF functions by name.
	funcs map[string]*btf.Func
}

// collapse keeps one error per position: a probe expanded to many attach
// points reports each problem once, with the number of repeats.
func collapse(errs ErrorList) ErrorList {
	var out ErrorList
	for i := 0; i < len(errs); {
		j := i + 1
		for j < len(errs) && errs[j].Pos == errs[i].Pos {
			j++
		}
		e := *errs[i]
		if n := j - i - 1; n > 0 {
			e.Msg += fmt.Sprintf(" (and %d more like it)", n)
		}
		out = append(out, &e)
		i = j
	}
	return out
}

func (c *checker) errorf(pos ast.Pos, format string, args ...any) {
	if c.quiet {
		return
	}
	c.errs.Add(pos, format, args...)
}

var posParamRe = regexp.MustCompile(`\$(\d+)`)

func (c *checker) checkFile(file *ast.File) {
	c.preprocess(file)
	// Config defaults from the environment (BPFTRACE_MAX_STRLEN=...), then
	// the script's config block, which wins.
	if env := configFromEnv(c.opts.ConfigEnv); env != nil {
		c.checkConfig(env)
	}
	if file.Config != nil {
		c.checkConfig(file.Config)
	}
	c.expandMacros(file)
	for _, d := range file.MapDecls {
		c.mapDecl(d)
	}
	if len(file.Probes) == 0 {
		c.errorf(file.Pos(), "no probes in script")
		return
	}
	// Expand attach points and split probes into instances.
	for i, p := range file.Probes {
		var points []*AttachPoint
		for _, ap := range p.Attach {
			raw := posParamRe.ReplaceAllStringFunc(ap.Raw, func(s string) string {
				n, _ := strconv.Atoi(s[1:])
				if n >= 1 && n <= len(c.opts.Params) {
					return c.opts.Params[n-1]
				}
				return s
			})
			cp := *ap
			cp.Raw = raw
			points = append(points, c.expandAttachMissing(&cp)...)
		}
		if len(points) == 0 {
			continue
		}
		// Only tracepoints share one program between attach points, and only
		// when the body does not depend on which one fired.
		shared := !usesIdent(p, "args") && !usesIdent(p, "probe")
		var groups [][]*AttachPoint
		byProvider := map[string]int{}
		for _, pt := range points {
			if shared && sharesProgram(pt.Provider) {
				gi, ok := byProvider[pt.Provider]
				if !ok {
					gi = len(groups)
					byProvider[pt.Provider] = gi
					groups = append(groups, nil)
				}
				groups[gi] = append(groups[gi], pt)
				continue
			}
			groups = append(groups, []*AttachPoint{pt})
		}
		for _, g := range groups {
			c.prog.Probes = append(c.prog.Probes, &Probe{AST: p, Points: g, Index: i})
		}
	}
	if len(c.errs) > 0 {
		return
	}
	c.addPidFilter()
	// Pass 1 infers map and variable types; pass 2 reports errors.
	for pass := 0; pass < 2; pass++ {
		c.quiet = pass == 0
		for _, pr := range c.prog.Probes {
			c.checkProbe(pr)
		}
	}
	// As in bpftrace, aggregations live in per-CPU maps and other values in
	// plain ones: a declaration must agree.
	for _, name := range c.prog.MapNames() {
		mt := c.prog.Maps[name]
		if mt.Decl == "" || mt.Value == nil {
			continue
		}
		perCPU := strings.HasPrefix(mt.Decl, "percpu")
		if perCPU != mt.Value.IsAggregation() {
			want := "hash or lruhash"
			if mt.Value.IsAggregation() {
				want = "percpuhash or percpulruhash"
			}
			c.errorf(mt.Pos, "incompatible map types: %s is declared %s, but its values (%s) need %s", name, mt.Decl, mt.Value, want)
		}
	}
}

func (c *checker) checkConfig(cfg *ast.Config) {
	for _, e := range cfg.Entries {
		val := configValue(e.Value)
		switch e.Key {
		case "max_strlen":
			if v, ok := e.Value.(*ast.IntLit); ok && v.Value > 0 && v.Value <= 1024 {
				c.opts.MaxStrlen = int(v.Value)
				c.prog.MaxStrlen = int(v.Value)
				continue
			}
			c.errorf(e.Value.Pos(), "max_strlen must be an integer between 1 and 1024")
		case "max_map_keys":
			if v, ok := e.Value.(*ast.IntLit); ok && v.Value > 0 {
				c.opts.MaxMapKeys = int(v.Value)
				c.prog.MaxMapKeys = int(v.Value)
				continue
			}
			c.errorf(e.Value.Pos(), "max_map_keys must be a positive integer")
		case "print_maps_on_exit":
			switch val {
			case "true", "1":
				c.prog.Config.NoExitMaps = false
			case "false", "0":
				c.prog.Config.NoExitMaps = true
			default:
				c.errorf(e.Value.Pos(), "print_maps_on_exit must be true or false")
			}
		case "missing_probes":
			switch val {
			case "error", "warn", "ignore":
				c.prog.Config.MissingProbes = val
			default:
				c.errorf(e.Value.Pos(), "missing_probes must be error, warn or ignore")
			}
		case "stack_mode":
			switch val {
			case "bpftrace", "perf", "raw":
				c.prog.Config.StackMode = val
			default:
				c.errorf(e.Value.Pos(), "stack_mode must be bpftrace, perf or raw")
			}
		case "str_trunc_trailer":
			if _, ok := e.Value.(*ast.StrLit); !ok {
				c.errorf(e.Value.Pos(), "str_trunc_trailer must be a string")
				continue
			}
			c.prog.Config.StrTruncTrailer = &val
		case "max_cat_bytes":
			if v, ok := e.Value.(*ast.IntLit); ok && v.Value > 0 {
				c.prog.Config.MaxCatBytes = int(v.Value)
				continue
			}
			c.errorf(e.Value.Pos(), "max_cat_bytes must be a positive integer")
		case "perf_rb_pages", "log_size",
			"max_bpf_progs", "max_probes", "on_stack_limit", "cpp_demangle", "lazy_symbolication",
			"license", "show_debug_info", "symbol_source", "max_type_res_iterations",
			"unstable_tseries", "unstable_dw_ustack", "unstable_map_decl", "unstable_import", "unstable_macro":
			// Accepted: these affect output details gotrace does not vary.
			c.prog.Config.Other = append(c.prog.Config.Other, e.Key+"="+val)
		default:
			c.errorf(e.Pos(), "unknown config option %q", e.Key)
		}
	}
}

// mapDecl records `let @m = hash(n);`: the BPF map kind and size.
func (c *checker) mapDecl(d *ast.MapDecl) {
	switch d.Kind {
	case "hash", "lruhash", "percpuhash", "percpulruhash":
	default:
		c.errorf(d.Pos(), "unknown map kind %s (want hash, lruhash, percpuhash or percpulruhash)", d.Kind)
		return
	}
	if len(d.Args) != 1 {
		c.errorf(d.Pos(), "%s() takes one argument: the maximum number of entries", d.Kind)
		return
	}
	n, ok := d.Args[0].(*ast.IntLit)
	if !ok || n.Value == 0 || n.Value > 1<<24 {
		c.errorf(d.Args[0].Pos(), "%s() needs a positive constant number of entries", d.Kind)
		return
	}
	if _, dup := c.prog.Maps[d.Name]; dup {
		c.errorf(d.Pos(), "map %s is declared twice", d.Name)
		return
	}
	c.prog.Maps[d.Name] = &MapType{Name: d.Name, Pos: d.Pos(), Decl: d.Kind, MaxEntries: int(n.Value)}
}

// configFromEnv turns config settings given as environment variables into
// a config block.
func configFromEnv(env map[string]string) *ast.Config {
	if len(env) == 0 {
		return nil
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	cfg := &ast.Config{}
	for _, k := range keys {
		v := env[k]
		sp := ast.Span{Start: ast.Pos{Filename: "BPFTRACE_" + strings.ToUpper(k)}}
		var val ast.Expr = &ast.Ident{Span: sp, Name: v}
		if k == "str_trunc_trailer" {
			val = &ast.StrLit{Span: sp, Value: v}
		} else if n, err := strconv.ParseUint(v, 0, 64); err == nil {
			val = &ast.IntLit{Span: sp, Text: v, Value: n}
		} else if b, err := strconv.ParseBool(v); err == nil {
			val = &ast.BoolLit{Span: sp, Value: b}
		}
		cfg.Entries = append(cfg.Entries, &ast.ConfigEntry{Span: sp, Key: k, Value: val})
	}
	return cfg
}

// configValue renders a config value as written.
func configValue(e ast.Expr) string {
	switch v := e.(type) {
	case *ast.IntLit:
		return strconv.FormatUint(v.Value, 10)
	case *ast.StrLit:
		return v.Value
	case *ast.BoolLit:
		return strconv.FormatBool(v.Value)
	case *ast.Ident:
		return v.Name
	}
	return ""
}

// expandAttachMissing expands an attach point; with config missing_probes
// = warn or ignore, a probe that does not exist is dropped instead of
// being an error (when it is not the only one).
func (c *checker) expandAttachMissing(ap *ast.AttachPoint) []*AttachPoint {
	if c.prog.Config.MissingProbes == "" || c.prog.Config.MissingProbes == "error" {
		return c.expandAttach(ap)
	}
	before := len(c.errs)
	quiet := c.quiet
	pts := c.expandAttach(ap)
	if len(c.errs) > before {
		msg := c.errs[before].Msg
		c.errs = c.errs[:before]
		c.quiet = quiet
		if c.prog.Config.MissingProbes == "warn" {
			c.prog.Warnings = append(c.prog.Warnings, &Error{Pos: ap.Pos(), Msg: msg + " (skipped: missing_probes = warn)"})
		}
	}
	return pts
}

// sharesProgram reports whether attach points of a provider can share one
// instance (one program for kprobes and tracepoints, one set of checked
// instructions for trampolines).
func sharesProgram(provider string) bool {
	switch provider {
	case "tracepoint", "kprobe", "kretprobe", "fentry", "fexit", "rawtracepoint", "uprobe", "uretprobe":
		return true
	}
	return false
}

// usesIdent reports whether the probe's predicate or body mentions the bare
// identifier name.
func usesIdent(p *ast.Probe, name string) bool {
	found := false
	ast.Inspect(p, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == name {
			found = true
		}
		return !found
	})
	return found
}

func (c *checker) checkProbe(pr *Probe) {
	var vars []*types.Type
	if pr.Info != nil {
		vars = pr.Info.VarTypes // keep variable types inferred in pass 1
	}
	pr.Info = &Info{
		Types:    map[ast.Expr]*types.Type{},
		Consts:   map[ast.Expr]Const{},
		VarIDs:   map[*ast.Var]int{},
		VarTypes: vars,
		Calls:    map[*ast.Call]*Func{},
		Idents:   map[*ast.Ident]*Builtin{},
		Members:  map[*ast.Field]types.Field{},
	}
	c.probe, c.info = pr, pr.Info
	c.scopes = []map[string]int{{}}
	c.nextVar = 0
	pt := pr.Points[0]
	if len(pr.Points) == 1 {
		switch pt.Provider {
		case "tracepoint":
			c.info.ArgsType = c.tracepointArgs(pt)
			c.info.UserArgs = pt.Category == "syscalls"
		case "kprobe", "kretprobe", "fentry", "fexit", "rawtracepoint":
			if pt.Provider != "kretprobe" {
				c.info.ArgsType, c.info.ArgsErr = c.kfuncArgs(pt)
			}
		case "uprobe", "uretprobe":
			c.info.ArgsErr = "args needs DWARF debug information for user functions, which gotrace does not read: use arg0...arg5"
		}
	}
	if p := pt.Provider; p == "uprobe" || p == "uretprobe" {
		c.info.UserArgs = true // pointers in registers are user memory
	}
	if pr.AST.Pred != nil {
		t := c.expr(pr.AST.Pred)
		if t != nil && !isCondition(t) {
			c.errorf(pr.AST.Pred.Pos(), "predicate must be an integer, bool or pointer, not %s", t)
		}
	}
	c.block(pr.AST.Body)
}

func isCondition(t *types.Type) bool {
	return t.IsInt() || t.Kind == types.Pointer
}

func (c *checker) block(b *ast.Block) {
	if b == nil {
		return
	}
	c.scopes = append(c.scopes, map[string]int{})
	for _, s := range b.Stmts {
		c.stmt(s)
	}
	c.scopes = c.scopes[:len(c.scopes)-1]
}

// lookupVar finds the declaration a variable name refers to.
func (c *checker) lookupVar(name string) (int, bool) {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if id, ok := c.scopes[i][name]; ok {
			return id, true
		}
	}
	return 0, false
}

// declareVar declares a variable in the innermost scope. Its type is
// inferred later from assignments (nil until then); pass 2 reuses the
// type pass 1 inferred for the same declaration.
func (c *checker) declareVar(v *ast.Var, t *types.Type) int {
	id := c.nextVar
	c.nextVar++
	for len(c.info.VarTypes) <= id {
		c.info.VarTypes = append(c.info.VarTypes, nil)
	}
	if t != nil {
		c.info.VarTypes[id] = t
	}
	c.scopes[len(c.scopes)-1][v.Name] = id
	c.info.VarIDs[v] = id
	return id
}

// useVar resolves a variable use; it returns its type, nil if unknown.
func (c *checker) useVar(v *ast.Var) *types.Type {
	id, ok := c.lookupVar(v.Name)
	if !ok {
		c.errorf(v.Pos(), "variable %s is used before it is assigned", v.Name)
		return nil
	}
	c.info.VarIDs[v] = id
	t := c.info.VarTypes[id]
	switch t {
	case nil:
		c.errorf(v.Pos(), "the type of %s is not known here: assign it a value first", v.Name)
	case poisoned:
		return nil // its assignment already failed
	}
	return t
}

// poisoned is the type of a variable whose initialisation failed to check.
var poisoned = &types.Type{Kind: types.Invalid}

func (c *checker) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.ExprStmt:
		c.exprStmt(s.X)
	case *ast.AssignStmt:
		c.assign(s)
	case *ast.IncDecStmt:
		c.incDec(s.X, s.Op)
	case *ast.IfStmt:
		if t := c.expr(s.Cond); t != nil && !isCondition(t) {
			c.errorf(s.Cond.Pos(), "condition must be an integer, bool or pointer, not %s", t)
		}
		c.block(s.Then)
		if s.Else != nil {
			c.stmt(s.Else)
		}
	case *ast.BlockStmt:
		c.block(s.Body)
	case *ast.ReturnStmt:
		if s.X != nil {
			c.errorf(s.X.Pos(), "return with a value is only allowed in functions")
		}
	case *ast.LetStmt:
		c.let(s)
	case *ast.WhileStmt:
		if t := c.expr(s.Cond); t != nil && !isCondition(t) {
			c.errorf(s.Cond.Pos(), "condition must be an integer, bool or pointer, not %s", t)
		}
		if cv, ok := c.info.Consts[s.Cond]; ok && !cv.IsStr && cv.Int != 0 && !leaves(s.Body) {
			c.errorf(s.Pos(), "this loop never ends: the verifier rejects loops it cannot bound (use for ($i : 0..N) or break)")
		}
		c.loops++
		c.block(s.Body)
		c.loops--
	case *ast.ForRangeStmt:
		c.forRange(s)
	case *ast.UnrollStmt:
		c.unroll(s)
	case *ast.BranchStmt:
		if c.loops == 0 {
			c.errorf(s.Pos(), "%s outside of a loop", s.Tok)
		}
	case *ast.ForMapStmt:
		c.forMap(s)
	default:
		c.errorf(s.GetSpan().Start, "unexpected statement")
	}
}

// MaxLoopIterations bounds for-range loops, which the verifier walks
// iteration by iteration.
const MaxLoopIterations = 1024

// MaxUnroll is bpftrace's limit for unroll(n).
const MaxUnroll = 100

func (c *checker) let(s *ast.LetStmt) {
	var t *types.Type
	if s.Type != nil {
		if t = c.resolveType(s.Type); t == nil {
			return
		}
		if !t.IsInt() {
			t = storageType(t)
		}
	}
	var rt *types.Type
	if s.Init != nil {
		if rt = c.expr(s.Init); rt == nil {
			return
		}
	}
	if _, ok := c.scopes[len(c.scopes)-1][s.Var.Name]; ok {
		c.errorf(s.Var.Pos(), "variable %s is already declared in this block", s.Var.Name)
		return
	}
	if _, ok := c.lookupVar(s.Var.Name); ok {
		c.errorf(s.Var.Pos(), "variable %s shadows a variable of an enclosing block", s.Var.Name)
		return
	}
	if t == nil && rt == nil {
		// let $x; takes its type from the first assignment.
		c.declareVar(s.Var, nil)
		return
	}
	if t == nil {
		t = storageType(rt)
	} else if rt != nil {
		// A declared integer type is kept: values are truncated to it.
		if _, ok := unify(t, storageType(rt)); !ok || (t.IsInt() != rt.IsInt()) {
			c.errorf(s.Init.Pos(), "cannot initialise %s of type %s with %s", s.Var.Name, t, rt)
			return
		}
	}
	c.declareVar(s.Var, t)
	c.info.Types[s.Var] = t
}

func (c *checker) forRange(s *ast.ForRangeStmt) {
	lo, hi := c.expr(s.Lo), c.expr(s.Hi)
	if lo == nil || hi == nil {
		return
	}
	if !lo.IsInt() || !hi.IsInt() {
		c.errorf(s.Lo.Pos(), "for range bounds must be integers, not %s and %s", lo, hi)
		return
	}
	lv, lok := c.info.Consts[s.Lo]
	hv, hok := c.info.Consts[s.Hi]
	if !lok || !hok {
		c.errorf(s.Lo.Pos(), "for range bounds must be constants: the verifier must see the loop end")
		return
	}
	if n := int64(hv.Int) - int64(lv.Int); n > MaxLoopIterations {
		c.errorf(s.Hi.Pos(), "for range of %d iterations is too long for the verifier (at most %d)", n, MaxLoopIterations)
		return
	}
	c.scopes = append(c.scopes, map[string]int{})
	c.declareVar(s.Var, types.Int64)
	c.info.Types[s.Var] = types.Int64
	c.loops++
	c.block(s.Body)
	c.loops--
	c.scopes = c.scopes[:len(c.scopes)-1]
}

// forMap checks for ($kv : @map): $kv is the tuple (key, value), with the
// keys of a multi-key map as a nested tuple.
func (c *checker) forMap(s *ast.ForMapStmt) {
	mt := c.prog.Maps[s.Map.Name]
	if s.Map.Keys != nil {
		c.errorf(s.Map.Pos(), "for iterates over a whole map: write %s without keys", s.Map.Name)
		return
	}
	if mt == nil || mt.Value == nil {
		if !c.quiet {
			c.errorf(s.Map.Pos(), "undefined map %s", s.Map.Name)
		}
		return
	}
	if mt.Keys == nil {
		c.errorf(s.Map.Pos(), "map %s has no keys to iterate over", s.Map.Name)
		return
	}
	if mt.Value.IsAggregation() {
		c.errorf(s.Map.Pos(), "iterating over %s (%s) is not supported yet: its values are per CPU", s.Map.Name, mt.Value)
		return
	}
	key := mt.Keys[0]
	if len(mt.Keys) > 1 {
		key = types.NewTuple(mt.Keys, nil)
	}
	kv := types.NewTuple([]*types.Type{key, mt.Value}, nil)
	c.info.Types[s.Map] = mt.Value
	c.scopes = append(c.scopes, map[string]int{})
	c.declareVar(s.Var, kv)
	c.info.Types[s.Var] = kv
	c.loops++
	c.block(s.Body)
	c.loops--
	c.scopes = c.scopes[:len(c.scopes)-1]
}

func (c *checker) unroll(s *ast.UnrollStmt) {
	if t := c.expr(s.Count); t == nil {
		return
	}
	cv, ok := c.info.Consts[s.Count]
	if !ok || cv.IsStr || int64(cv.Int) < 1 || int64(cv.Int) > MaxUnroll {
		c.errorf(s.Count.Pos(), "unroll() needs a constant between 1 and %d", MaxUnroll)
		return
	}
	c.block(s.Body)
}

func stmtName(s ast.Stmt) string {
	switch s := s.(type) {
	case *ast.LetStmt:
		return "let"
	case *ast.ForRangeStmt, *ast.ForMapStmt:
		return "for"
	case *ast.WhileStmt:
		return "while"
	case *ast.UnrollStmt:
		return "unroll"
	case *ast.BranchStmt:
		return s.Tok
	}
	return "statement"
}

func (c *checker) exprStmt(e ast.Expr) {
	if u, ok := e.(*ast.Unary); ok && (u.Op == "++" || u.Op == "--") {
		c.incDec(u.X, u.Op)
		c.info.Types[e] = types.VoidT
		return
	}
	if call, ok := e.(*ast.Call); ok {
		if f := c.funcTab[call.Name]; f != nil && f.agg {
			c.errorf(call.Pos(), "%s() must be assigned to a map, e.g. @x = %s(...)", call.Name, call.Name)
			return
		}
	}
	c.expr(e)
}

// incDec checks x++ / x-- on a map or variable.
func (c *checker) incDec(x ast.Expr, op string) {
	switch x := x.(type) {
	case *ast.MapRef:
		mt := c.mapUse(x, flexibleInt64(), true)
		c.info.Types[x] = types.Int64
		if mt != nil && mt.Value != nil && !mt.Value.IsInt() {
			c.errorf(x.Pos(), "%s needs an integer map, %s holds %s", op, x.Name, mt.Value)
		}
	case *ast.Var:
		t := c.useVar(x)
		if t == nil {
			return
		}
		c.info.Types[x] = t
		if !t.IsInt() {
			c.errorf(x.Pos(), "%s needs an integer variable, %s is %s", op, x.Name, t)
		}
	default:
		c.errorf(x.GetSpan().Start, "%s can only be applied to a map or a variable", op)
	}
}

func (c *checker) assign(s *ast.AssignStmt) {
	// Aggregations: @m[...] = count() etc.
	if call, ok := s.Rhs.(*ast.Call); ok {
		if f := c.funcTab[call.Name]; f != nil && f.agg {
			m, ok := s.Lhs.(*ast.MapRef)
			if !ok || s.Op != "=" {
				c.errorf(call.Pos(), "%s() must be assigned to a map with =, e.g. @x = %s(...)", call.Name, call.Name)
				return
			}
			vt := c.call(call)
			if vt == nil {
				return
			}
			c.mapUse(m, vt, true)
			c.info.Types[m] = vt
			return
		}
	}
	rt := c.expr(s.Rhs)
	if rt == nil {
		// Declare the variable anyway so that its uses do not report
		// follow-on errors.
		if v, ok := s.Lhs.(*ast.Var); ok {
			if _, found := c.lookupVar(v.Name); !found {
				id := c.declareVar(v, nil)
				if c.info.VarTypes[id] == nil {
					c.info.VarTypes[id] = poisoned
				}
			}
		}
		return
	}
	if rt.Kind == types.Void {
		c.errorf(s.Rhs.Pos(), "expression has no value to assign")
		return
	}
	if rt.Kind == types.Struct || (rt.Kind == types.Array && rt.BTF != nil) {
		c.errorf(s.Rhs.Pos(), "cannot store a kernel %s by value: store a pointer to it or one of its members", rt)
		return
	}
	if s.Op != "=" {
		if !rt.IsInt() {
			c.errorf(s.Rhs.Pos(), "%s needs an integer operand, not %s", s.Op, rt)
			return
		}
		rt = flexibleInt64() // x op= y keeps x's type
	}
	if s.Op == "=" {
		rt = c.flexible(s.Rhs, rt)
	}
	switch l := s.Lhs.(type) {
	case *ast.MapRef:
		if rt.IsAggregation() {
			c.errorf(s.Rhs.Pos(), "cannot assign %s to a map; use the aggregation function directly", rt)
			return
		}
		mt := c.mapUse(l, storageType(rt), true)
		if mt != nil && mt.Value != nil {
			c.info.Types[l] = mt.Value
			if s.Op != "=" && !mt.Value.IsInt() {
				c.errorf(l.Pos(), "%s needs an integer map, %s holds %s", s.Op, l.Name, mt.Value)
			}
		}
	case *ast.Var:
		c.assignVar(l, rt, s.Op, s.Rhs.Pos())
	case *ast.Discard:
		c.info.Types[l] = rt
	default:
		c.errorf(s.Lhs.GetSpan().Start, "cannot assign to this expression")
	}
}

// assignVar assigns a value of type rt to a variable, declaring it in the
// current block when it is not visible yet.
func (c *checker) assignVar(l *ast.Var, rt *types.Type, op string, rhsPos ast.Pos) {
	id, ok := c.lookupVar(l.Name)
	if !ok {
		if op != "=" {
			c.errorf(l.Pos(), "variable %s is used before it is assigned", l.Name)
			return
		}
		id = c.declareVar(l, nil)
	}
	c.info.VarIDs[l] = id
	old := c.info.VarTypes[id]
	if old == poisoned {
		old = nil
	}
	if op != "=" && old != nil {
		// x op= y keeps x's type: the result wraps to it.
		c.info.Types[l] = old
		return
	}
	nt := storageType(rt)
	if old != nil {
		u, ok := unify(old, nt)
		if !ok {
			c.errorf(rhsPos, "type mismatch for %s: assigning %s to a variable of type %s", l.Name, rt, old)
			return
		}
		nt = u
	}
	c.info.VarTypes[id] = nt
	c.info.Types[l] = nt
}

// storageType is the type a value has once stored in a map or variable:
// integers widen to 64 bits and string buffers to a multiple of 8 bytes.
func storageType(t *types.Type) *types.Type {
	switch {
	case t.Kind == types.Int && t.Size < 8:
		st := types.NewInt(8, t.Signed)
		st.Flexible = t.Flexible
		return st
	case t.Kind == types.String && t.Size%8 != 0:
		return types.NewString((t.Size + 7) / 8 * 8)
	}
	return t
}

// unify returns the type that can hold values of a and b.
func unify(a, b *types.Type) (*types.Type, bool) {
	switch {
	case a.Kind == types.Bool && b.Kind == types.Bool:
		return a, true
	case a.IsInt() && b.IsInt():
		return unifyInts(a, b), true
	case a.Kind == types.String && b.Kind == types.String:
		if b.Size > a.Size {
			return b, true
		}
		return a, true
	case types.Equal(a, b):
		return a, true
	}
	return nil, false
}

// unifyInts is bpftrace's upcast of a variable or map value assigned
// integers of two types: a non-negative literal adopts the other type; the
// same signedness takes the larger size; an unsigned type that fits in the
// larger signed one becomes it; otherwise the result is int64.
func unifyInts(a, b *types.Type) *types.Type {
	switch {
	case a.Kind == types.Bool:
		return b
	case b.Kind == types.Bool:
		return a
	case a.Flexible:
		return b
	case b.Flexible:
		return a
	case a.Signed == b.Signed:
		if b.Size > a.Size {
			return b
		}
		return a
	case a.Signed && a.Size > b.Size:
		return a
	case b.Signed && b.Size > a.Size:
		return b
	}
	return types.Int64
}

// flexible marks the type of a non-negative integer constant: like
// bpftrace's integer literals, it takes the type of what it is unified with.
func (c *checker) flexible(e ast.Expr, t *types.Type) *types.Type {
	cv, ok := c.info.Consts[e]
	if !ok || cv.IsStr || t.Kind != types.Int || !t.Signed || int64(cv.Int) < 0 {
		return t
	}
	ft := *t
	ft.Flexible = true
	return &ft
}

// flexibleInt64 is an int64 that takes the type it is unified with (the
// value of @x++ or x += n on a map that may already hold another type).
func flexibleInt64() *types.Type {
	t := types.NewInt(8, true)
	t.Flexible = true
	return t
}

// mapUse records a use of a map with value type vt (nil when only read) and
// checks its keys; it returns the map's type.
func (c *checker) mapUse(m *ast.MapRef, vt *types.Type, write bool) *MapType {
	var keys []*types.Type
	for _, k := range m.Keys {
		kt := c.expr(k)
		if kt == nil {
			return nil
		}
		switch {
		case kt.IsInt():
			kt = storageType(kt)
			if kt.Kind == types.Bool {
				kt = types.Uint64
			}
		case kt.Kind == types.String:
			kt = storageType(kt)
		case kt.Kind == types.Pointer, kt.Kind == types.Ksym, kt.Kind == types.Tuple, kt.Kind == types.Record, kt.Kind == types.Stack,
			kt.Kind == types.Errno, kt.Kind == types.SyscallName, kt.Kind == types.Inet,
			kt.Kind == types.Username, kt.Kind == types.SignalName, kt.Kind == types.CgroupPath, kt.Kind == types.Usym:
		default:
			c.errorf(k.Pos(), "%s cannot be used as a map key", kt)
			return nil
		}
		keys = append(keys, kt)
	}
	if m.Keys == nil {
		keys = nil
	}
	// @m[$t] with a tuple $t is the same map as @m[a, b]: a multi-key map
	// is keyed by the tuple of its keys.
	if len(keys) == 1 && keys[0].Kind == types.Tuple {
		if mt := c.prog.Maps[m.Name]; mt == nil || mt.Keys == nil || len(mt.Keys) != 1 || mt.Keys[0].Kind != types.Tuple {
			elems := make([]*types.Type, len(keys[0].Fields))
			for i, f := range keys[0].Fields {
				elems[i] = f.Type
			}
			keys = elems
		}
	}
	mt := c.prog.Maps[m.Name]
	if mt == nil {
		mt = &MapType{Name: m.Name, Keys: keys, Pos: m.Pos(), keysSet: true}
		c.prog.Maps[m.Name] = mt
	} else if !mt.keysSet {
		// declared with let @m = ...: the first use fixes the keys
		mt.Keys, mt.keysSet = keys, true
	} else if mt.Keys == nil && keys != nil && mt.Value == nil && !mt.keysSet {
		mt.Keys = keys
		mt.keysSet = true
	} else {
		if len(mt.Keys) != len(keys) {
			c.errorf(m.Pos(), "map %s is used with %d keys here and %d keys elsewhere", m.Name, len(keys), len(mt.Keys))
			return nil
		}
		for i := range keys {
			u, ok := unify(mt.Keys[i], keys[i])
			if !ok {
				c.errorf(m.Keys[i].Pos(), "map %s key %d has type %s here and %s elsewhere", m.Name, i+1, keys[i], mt.Keys[i])
				return nil
			}
			mt.Keys[i] = u
		}
	}
	if vt != nil && write {
		if mt.Value == nil {
			mt.Value = vt
		} else {
			u, ok := unify(mt.Value, vt)
			if !ok && !(vt.IsAggregation() && mt.Value.Kind == vt.Kind && mt.Value.Kind != types.Lhist && mt.Value.Kind != types.Hist && mt.Value.Kind != types.Tseries) {
				c.errorf(m.Pos(), "type mismatch for %s: assigning %s to a map holding %s", m.Name, vt, mt.Value)
				return mt
			}
			if ok {
				mt.Value = u
			}
		}
	}
	return mt
}

// expr checks e and records its type; it returns nil after an error.
func (c *checker) expr(e ast.Expr) *types.Type {
	t := c.expr1(e)
	if t != nil {
		c.info.Types[e] = t
	}
	return t
}

func (c *checker) expr1(e ast.Expr) *types.Type {
	switch e := e.(type) {
	case *ast.IntLit:
		v, err := scaleDuration(e)
		if err != nil {
			c.errorf(e.Pos(), "%s", err)
			return nil
		}
		c.info.Consts[e] = Const{Int: v}
		if v > 1<<63-1 {
			return types.Uint64
		}
		return types.Int64
	case *ast.StrLit:
		c.info.Consts[e] = Const{IsStr: true, Str: e.Value}
		return types.NewString(len(e.Value) + 1)
	case *ast.BoolLit:
		v := uint64(0)
		if e.Value {
			v = 1
		}
		c.info.Consts[e] = Const{Int: v}
		return types.BoolT
	case *ast.Paren:
		t := c.expr(e.X)
		if cv, ok := c.info.Consts[e.X]; ok {
			c.info.Consts[e] = cv
		}
		return t
	case *ast.PosParam:
		return c.posParam(e)
	case *ast.Var:
		return c.useVar(e)
	case *ast.MapRef:
		mt := c.mapUse(e, nil, false)
		if mt == nil {
			return nil
		}
		if mt.Value == nil {
			if !c.quiet {
				c.errorf(e.Pos(), "map %s is read but never assigned", e.Name)
			}
			return nil
		}
		if e.Keys == nil && mt.Keys != nil && mt.Value.Kind != types.Count {
			c.errorf(e.Pos(), "map %s has keys: use %s[...]", e.Name, e.Name)
			return nil
		}
		switch mt.Value.Kind {
		case types.Count, types.Sum, types.Min, types.Max, types.Avg:
			// Reading an aggregation yields its integer value.
			return types.NewInt(8, mt.Value.Signed || mt.Value.Kind == types.Min || mt.Value.Kind == types.Max || mt.Value.Kind == types.Avg)
		case types.Hist, types.Lhist, types.Stats, types.Tseries:
			c.errorf(e.Pos(), "the value of %s (%s) can only be printed", e.Name, mt.Value)
			return nil
		}
		return mt.Value
	case *ast.Ident:
		if cv, ok := c.defines[e.Name]; ok {
			c.info.Consts[e] = cv
			if cv.IsStr {
				return types.NewString(len(cv.Str) + 1)
			}
			return types.Int64
		}
		if cv, ok := c.enumValue(e.Name); ok {
			c.info.Consts[e] = cv
			return types.Int64
		}
		return c.ident(e)
	case *ast.Call:
		if f := c.funcTab[e.Name]; f != nil && f.agg {
			c.errorf(e.Pos(), "%s() must be assigned to a map, e.g. @x = %s(...)", e.Name, e.Name)
			return nil
		}
		return c.call(e)
	case *ast.Unary:
		return c.unary(e)
	case *ast.Binary:
		return c.binary(e)
	case *ast.Ternary:
		ct := c.expr(e.Cond)
		a, b := c.expr(e.Then), c.expr(e.Else)
		if ct == nil || a == nil || b == nil {
			return nil
		}
		if !isCondition(ct) {
			c.errorf(e.Cond.Pos(), "condition must be an integer, bool or pointer, not %s", ct)
			return nil
		}
		if a.Kind == types.Void && b.Kind == types.Void {
			return types.VoidT
		}
		if a.IsInt() && b.IsInt() {
			if a.Kind == types.Bool && b.Kind == types.Bool {
				return types.BoolT
			}
			return promote(a, b)
		}
		u, ok := unify(a, b)
		if !ok {
			c.errorf(e.Pos(), "ternary branches have different types: %s and %s", a, b)
			return nil
		}
		return u
	case *ast.Field:
		return c.field(e)
	case *ast.Cast:
		return c.cast(e)
	case *ast.Discard:
		c.errorf(e.Pos(), "_ can only be assigned to")
		return nil
	case *ast.SizeofExpr:
		return c.sizeof(e)
	case *ast.OffsetofExpr:
		return c.offsetof(e)
	case *ast.Tuple:
		return c.tuple(e)
	case *ast.BlockExpr:
		return c.blockExpr(e)
	case *ast.Index:
		return c.index(e)
	}
	c.errorf(e.GetSpan().Start, "unexpected expression")
	return nil
}

func exprName(e ast.Expr) string {
	switch e.(type) {
	case *ast.Index:
		return "indexing"
	case *ast.Tuple:
		return "tuples"
	case *ast.SizeofExpr:
		return "sizeof"
	case *ast.OffsetofExpr:
		return "offsetof"
	}
	return "this expression"
}

// scaleDuration applies an integer literal's duration suffix (to nanoseconds).
func scaleDuration(e *ast.IntLit) (uint64, error) {
	mult := map[string]uint64{"": 1, "ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9}[e.Suffix]
	if mult == 0 {
		return 0, fmt.Errorf("unknown duration suffix %q", e.Suffix)
	}
	if e.Value != 0 && e.Value > ^uint64(0)/mult {
		return 0, fmt.Errorf("integer literal %s overflows 64 bits", e.Text)
	}
	return e.Value * mult, nil
}

func (c *checker) posParam(e *ast.PosParam) *types.Type {
	if e.Index == -1 {
		c.info.Consts[e] = Const{Int: uint64(len(c.opts.Params))}
		return types.Int64
	}
	if e.Index < 1 || e.Index > len(c.opts.Params) {
		// bpftrace: a missing parameter is zero in a numeric context.
		c.info.Consts[e] = Const{Int: 0}
		return types.Int64
	}
	s := c.opts.Params[e.Index-1]
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		c.info.Consts[e] = Const{Int: uint64(v)}
		return types.Int64
	}
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		c.info.Consts[e] = Const{Int: v}
		return types.Uint64
	}
	c.info.Consts[e] = Const{IsStr: true, Str: s}
	return types.NewString(len(s) + 1)
}

// promote applies the usual arithmetic conversions: everything is computed
// in 64 bits, unsigned when an unsigned 64-bit operand is involved.
func promote(a, b *types.Type) *types.Type {
	if (!a.Signed && a.Kind == types.Int && a.Size == 8) || (!b.Signed && b.Kind == types.Int && b.Size == 8) {
		return types.Uint64
	}
	return types.Int64
}

func (c *checker) unary(e *ast.Unary) *types.Type {
	switch e.Op {
	case "++", "--":
		c.incDec(e.X, e.Op)
		return c.info.Types[e.X]
	}
	t := c.expr(e.X)
	if t == nil {
		return nil
	}
	switch e.Op {
	case "!":
		if !isCondition(t) {
			c.errorf(e.Pos(), "! needs an integer, bool or pointer operand, not %s", t)
			return nil
		}
		return types.BoolT
	case "~", "-":
		if !t.IsInt() {
			c.errorf(e.Pos(), "%s needs an integer operand, not %s", e.Op, t)
			return nil
		}
		if cv, ok := c.info.Consts[e.X]; ok && !cv.IsStr && e.Op == "-" {
			c.info.Consts[e] = Const{Int: -cv.Int}
		}
		if e.Op == "-" || t.Kind == types.Bool {
			return types.Int64
		}
		return storageType(t)
	case "*":
		if t.Kind != types.Pointer || t.Elem == nil || t.Elem.Kind == types.Void {
			c.errorf(e.Pos(), "cannot dereference %s", t)
			return nil
		}
		if !t.Elem.IsInt() && t.Elem.Kind != types.Pointer && t.Elem.Kind != types.Struct {
			c.errorf(e.Pos(), "dereferencing %s is not supported yet", t)
			return nil
		}
		return t.Elem
	}
	c.errorf(e.Pos(), "unary %s is not supported yet", e.Op)
	return nil
}

func (c *checker) binary(e *ast.Binary) *types.Type {
	a, b := c.expr(e.X), c.expr(e.Y)
	if a == nil || b == nil {
		return nil
	}
	switch e.Op {
	case "&&", "||":
		if !isCondition(a) || !isCondition(b) {
			c.errorf(e.Pos(), "%s needs integer, bool or pointer operands, not %s and %s", e.Op, a, b)
			return nil
		}
		return types.BoolT
	case "==", "!=":
		if a.Kind == types.String && b.Kind == types.String {
			return types.BoolT
		}
		fallthrough
	case "<", "<=", ">", ">=":
		if (a.IsInt() || a.Kind == types.Pointer) && (b.IsInt() || b.Kind == types.Pointer) {
			return types.BoolT
		}
		c.errorf(e.Pos(), "cannot compare %s with %s", a, b)
		return nil
	}
	// Pointer arithmetic: p + n, n + p and p - n, scaled by the pointee's
	// size as in C.
	switch {
	case a.Kind == types.Pointer && b.IsInt() && (e.Op == "+" || e.Op == "-"):
		return a
	case b.Kind == types.Pointer && a.IsInt() && e.Op == "+":
		return b
	case a.Kind == types.Pointer || b.Kind == types.Pointer:
		c.errorf(e.Pos(), "pointer arithmetic allows only pointer + integer and pointer - integer, not %s %s %s", a, e.Op, b)
		return nil
	}
	if !a.IsInt() || !b.IsInt() {
		c.errorf(e.Pos(), "%s needs integer operands, not %s and %s", e.Op, a, b)
		return nil
	}
	rt := promote(a, b)
	x, xok := c.info.Consts[e.X]
	y, yok := c.info.Consts[e.Y]
	if xok && yok && !x.IsStr && !y.IsStr {
		if v, ok := foldBinary(e.Op, x.Int, y.Int, rt.Signed); ok {
			c.info.Consts[e] = Const{Int: v}
		}
	}
	return rt
}

func (c *checker) cast(e *ast.Cast) *types.Type {
	t := c.expr(e.X)
	if t == nil {
		return nil
	}
	te := e.Type
	if te.IsArray {
		return c.arrayCast(e, t)
	}
	nt := c.resolveType(te)
	if nt == nil {
		return nil
	}
	if cv, ok := c.info.Consts[e.X]; ok && !cv.IsStr && nt.IsInt() {
		c.info.Consts[e] = Const{Int: types.Truncate(cv.Int, nt)}
	}
	switch {
	case nt.Kind == types.Pointer:
		if !t.IsInt() && t.Kind != types.Pointer {
			c.errorf(e.Pos(), "cannot cast %s to %s", t, nt)
			return nil
		}
	case nt.IsInt() && t.Kind == types.Array && t.Size == nt.Size:
		// reinterpret the bytes of an array (e.g. (uint32)pton("1.2.3.4"))
	case nt.IsInt():
		if !t.IsInt() && t.Kind != types.Pointer {
			c.errorf(e.Pos(), "cannot cast %s to %s", t, nt)
			return nil
		}
	default:
		c.errorf(e.Pos(), "cannot cast to %s: only integer and pointer casts are supported", nt)
		return nil
	}
	return nt
}

// resolveType turns a written type into a type: bpftrace's integer names,
// C integer names, or kernel types found in BTF, with pointers applied.
func (c *checker) resolveType(te *ast.TypeExpr) *types.Type {
	t := intTypeByName(te.Name)
	if t == nil {
		t = cIntType(te.Name)
	}
	if t == nil && te.Name == "void" {
		t = types.VoidT
	}
	if ct, ok := c.ctypes[te.Name]; ok && t == nil {
		t = btfToType(ct, types.Kernel)
	}
	if t == nil {
		spec, err := c.kernelBTF(te.Pos())
		if err != nil {
			return nil
		}
		bt, err := lookupKernelType(spec, te.Name)
		if err != nil {
			c.errorf(te.Pos(), "unknown type %q: not found in the kernel's BTF", te.Name)
			return nil
		}
		t = btfToType(bt, types.Kernel)
		if t == nil {
			c.errorf(te.Pos(), "type %q is not supported", te.Name)
			return nil
		}
	}
	for i := 0; i < te.Pointers; i++ {
		t = &types.Type{Kind: types.Pointer, Size: 8, Elem: t, AS: types.Kernel}
	}
	return t
}

// cIntType resolves C integer type names.
func cIntType(name string) *types.Type {
	switch name {
	case "char", "signed char", "s8", "__s8":
		return types.Int8
	case "unsigned char", "u8", "__u8":
		return types.Uint8
	case "short", "signed short", "short int", "s16", "__s16":
		return types.Int16
	case "unsigned short", "unsigned short int", "u16", "__u16":
		return types.Uint16
	case "int", "signed", "signed int", "s32", "__s32":
		return types.Int32
	case "unsigned", "unsigned int", "u32", "__u32":
		return types.Uint32
	case "long", "long int", "signed long", "long long", "long long int", "s64", "__s64", "ssize_t":
		return types.Int64
	case "unsigned long", "unsigned long int", "unsigned long long", "unsigned long long int", "u64", "__u64", "size_t":
		return types.Uint64
	}
	return nil
}

// kernelBTF returns the kernel's BTF or reports why it is unavailable.
func (c *checker) kernelBTF(pos ast.Pos) (*btf.Spec, error) {
	if c.env == nil {
		c.errorf(pos, "kernel BTF is unavailable")
		return nil, errors.New("no environment")
	}
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		c.errorf(pos, "kernel BTF is unavailable (/sys/kernel/btf/vmlinux): %v", err)
		return nil, fmt.Errorf("no BTF: %w", err)
	}
	return spec, nil
}

func typeExprString(t *ast.TypeExpr) string {
	s := t.Name + strings.Repeat("*", t.Pointers)
	if t.IsArray {
		s += fmt.Sprintf("[%d]", t.ArrayLen)
	}
	return s
}

// intTypeByName resolves bpftrace's integer type names.
func intTypeByName(name string) *types.Type {
	switch name {
	case "int8":
		return types.Int8
	case "int16":
		return types.Int16
	case "int32":
		return types.Int32
	case "int64":
		return types.Int64
	case "uint8":
		return types.Uint8
	case "uint16":
		return types.Uint16
	case "uint32":
		return types.Uint32
	case "uint64":
		return types.Uint64
	case "bool":
		return types.BoolT
	}
	return nil
}

func (c *checker) field(e *ast.Field) *types.Type {
	xt := c.expr(e.X)
	if xt == nil {
		return nil
	}
	switch xt.Kind {
	case types.Record, types.Tuple:
		for _, f := range xt.Fields {
			if f.Name == e.Name {
				c.info.Members[e] = f
				return f.Type
			}
		}
		var names []string
		for _, f := range xt.Fields {
			names = append(names, f.Name)
		}
		if xt.Name == "args" {
			what := "argument"
			if c.probe.Provider() == "tracepoint" {
				what = "field"
			}
			c.errorf(e.Pos(), "%s has no %s %q (%ss: %s)", c.probe.Points[0].Name, what, e.Name, what, strings.Join(names, ", "))
		} else {
			c.errorf(e.Pos(), "%s has no field %q", xt, e.Name)
		}
		return nil
	case types.Pointer:
		if xt.Elem.Kind != types.Struct {
			c.errorf(e.Pos(), "cannot access field %q of %s", e.Name, xt)
			return nil
		}
		return c.member(e, xt.Elem)
	case types.Struct:
		return c.member(e, xt)
	}
	c.errorf(e.Pos(), "cannot access field %q of %s", e.Name, xt)
	return nil
}

// member resolves a struct or union member through BTF, including members
// of anonymous structs and unions.
func (c *checker) member(e *ast.Field, st *types.Type) *types.Type {
	if st.BTF == nil {
		c.errorf(e.Pos(), "%s has no type information", st)
		return nil
	}
	f, mt, err := findMember(st.BTF, e.Name)
	if err != nil {
		msg := fmt.Sprintf("%s has no member %q", st.Name, e.Name)
		if near := closeMatches(e.Name, memberNames(st.BTF, nil), 5); len(near) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(near, ", "))
		}
		c.errorf(e.Pos(), "%s", msg)
		return nil
	}
	ft := btfToType(mt, st.AS)
	if ft == nil {
		c.errorf(e.Pos(), "member %s of %s has an unsupported type (%s)", e.Name, st.Name, mt.TypeName())
		return nil
	}
	if f.BitSize > 0 && ft.Kind == types.Int {
		ft = types.NewInt(ft.Size, ft.Signed)
	}
	f.Type = ft
	c.info.Members[e] = f
	return ft
}

// sizeof is a compile-time constant: the size of a type or of an
// expression's type.
func (c *checker) sizeof(e *ast.SizeofExpr) *types.Type {
	var t *types.Type
	switch {
	case e.Type != nil:
		t = c.resolveType(e.Type)
	default:
		if id, ok := e.X.(*ast.Ident); ok && c.builtinTab[id.Name] == nil {
			// sizeof(name): a type name such as a typedef.
			t = c.resolveType(&ast.TypeExpr{Span: id.Span, Name: id.Name})
		} else {
			t = c.expr(e.X)
		}
	}
	if t == nil {
		return nil
	}
	size := t.Size
	if t.Kind == types.Pointer {
		size = 8
	}
	c.info.Consts[e] = Const{Int: uint64(size)}
	return types.Uint64
}

// offsetof is a compile-time constant: a member's offset, through nested
// and anonymous members.
func (c *checker) offsetof(e *ast.OffsetofExpr) *types.Type {
	var t *types.Type
	switch {
	case e.Type != nil:
		t = c.resolveType(e.Type)
	default:
		if id, ok := e.X.(*ast.Ident); ok {
			t = c.resolveType(&ast.TypeExpr{Span: id.Span, Name: id.Name})
		} else {
			t = c.expr(e.X)
		}
	}
	if t == nil {
		return nil
	}
	if t.Kind == types.Pointer {
		t = t.Elem
	}
	if t.Kind != types.Struct || t.BTF == nil {
		c.errorf(e.Pos(), "offsetof() needs a struct or union, not %s", t)
		return nil
	}
	bt := t.BTF
	off := 0
	for _, name := range e.Field {
		f, mt, err := findMember(bt, name)
		if err != nil {
			c.errorf(e.Pos(), "%s has no member %q", compositeName(stripQualifiers(bt)), name)
			return nil
		}
		off += f.Offset
		bt = mt
	}
	c.info.Consts[e] = Const{Int: uint64(off)}
	return types.Uint64
}

// tuple types (a, b, ...) and records (x=a, y=b): elements are stored
// widened (integers as 64 bits) and laid out as bpftrace does.
func (c *checker) tuple(e *ast.Tuple) *types.Type {
	elems := make([]*types.Type, 0, len(e.Elems))
	for _, x := range e.Elems {
		t := c.expr(x)
		if t == nil {
			return nil
		}
		switch {
		case t.IsInt(), t.Kind == types.String, t.Kind == types.Pointer, t.Kind == types.Tuple, t.Kind == types.Record, t.Kind == types.Ksym:
		default:
			c.errorf(x.Pos(), "%s cannot be a tuple element", t)
			return nil
		}
		elems = append(elems, storageType(t))
	}
	return types.NewTuple(elems, e.Names)
}

// enumValue looks up a kernel enum constant (e.g. TASK_RUNNING,
// SKB_DROP_REASON_NOT_SPECIFIED) in BTF. The table is built on first use.
func (c *checker) enumValue(name string) (Const, bool) {
	if _, ok := c.builtinTab[name]; ok {
		return Const{}, false
	}
	if c.enums == nil {
		c.enums = map[string]uint64{}
		if c.env == nil {
			return Const{}, false
		}
		spec, err := c.env.BTF()
		if err != nil || spec == nil {
			return Const{}, false
		}
		for t, err := range spec.All() {
			if err != nil {
				break
			}
			if en, ok := t.(*btf.Enum); ok {
				for _, v := range en.Values {
					c.enums[v.Name] = v.Value
				}
			}
		}
	}
	v, ok := c.enums[name]
	return Const{Int: v}, ok
}

// foldBinary computes a binary operation on constants, when it is one the
// checker folds (integer arithmetic and bitwise operations).
func foldBinary(op string, x, y uint64, signed bool) (uint64, bool) {
	switch op {
	case "+":
		return x + y, true
	case "-":
		return x - y, true
	case "*":
		return x * y, true
	case "/", "%":
		if y == 0 {
			return 0, false
		}
		if signed {
			a, b := int64(x), int64(y)
			if op == "/" {
				return uint64(a / b), true
			}
			return uint64(a % b), true
		}
		if op == "/" {
			return x / y, true
		}
		return x % y, true
	case "&":
		return x & y, true
	case "|":
		return x | y, true
	case "^":
		return x ^ y, true
	case "<<":
		return x << (y & 63), true
	case ">>":
		if signed {
			return uint64(int64(x) >> (y & 63)), true
		}
		return x >> (y & 63), true
	}
	return 0, false
}

// index types x[i]: an element of a pointer, a kernel or tracepoint array,
// or a byte of a string (constant index).
func (c *checker) index(e *ast.Index) *types.Type {
	xt := c.expr(e.X)
	it := c.expr(e.Index)
	if xt == nil || it == nil {
		return nil
	}
	if !it.IsInt() {
		c.errorf(e.Index.Pos(), "an index must be an integer, not %s", it)
		return nil
	}
	cv, isConst := c.info.Consts[e.Index]
	switch xt.Kind {
	case types.String:
		if !isConst || int(cv.Int) >= xt.Size {
			c.errorf(e.Index.Pos(), "a string index must be a constant below %d", xt.Size)
			return nil
		}
		return types.Uint8
	case types.Array:
		if isConst && int(cv.Int) >= xt.Len {
			c.errorf(e.Index.Pos(), "index %d is out of bounds for %s", cv.Int, xt)
			return nil
		}
		if !isConst && xt.BTF == nil && !isArgsField(e.X) {
			c.errorf(e.Index.Pos(), "an index into a %s value must be a constant", xt)
			return nil
		}
		return xt.Elem
	case types.Pointer:
		if xt.Elem == nil || xt.Elem.Kind == types.Void {
			c.errorf(e.Pos(), "cannot index %s", xt)
			return nil
		}
		return xt.Elem
	}
	c.errorf(e.Pos(), "cannot index %s", xt)
	return nil
}

// arrayCast types (T[N])x: the bytes of an integer (or of another array or
// string of the same size) seen as an array, e.g. (uint8[4])$addr.
func (c *checker) arrayCast(e *ast.Cast, t *types.Type) *types.Type {
	te := e.Type
	elem := c.resolveType(&ast.TypeExpr{Span: te.Span, Name: te.Name, Pointers: te.Pointers})
	if elem == nil {
		return nil
	}
	if !elem.IsInt() || te.ArrayLen <= 0 {
		c.errorf(e.Pos(), "cannot cast to %s: arrays of integers with a length are supported", typeExprString(te))
		return nil
	}
	size := elem.Size * te.ArrayLen
	src := t.Size
	if t.Kind == types.Pointer {
		src = 8
	}
	if !(t.IsInt() || t.Kind == types.Array || t.Kind == types.String) || src != size {
		c.errorf(e.Pos(), "cannot cast %s (%d bytes) to %s (%d bytes): the sizes must match", t, src, typeExprString(te), size)
		return nil
	}
	return &types.Type{Kind: types.Array, Size: size, Len: te.ArrayLen, Elem: elem}
}

// isArgsField reports whether x is args.name (a field of the probe's
// arguments, which live in kernel memory).
func isArgsField(x ast.Expr) bool {
	f, ok := x.(*ast.Field)
	if !ok {
		return false
	}
	id, ok := f.X.(*ast.Ident)
	return ok && id.Name == "args"
}

// leaves reports whether a loop body contains a break, return or exit()
// (outside nested loops, for break).
func leaves(b *ast.Block) bool {
	found := false
	var walk func(n ast.Node, inLoop bool)
	walk = func(n ast.Node, inLoop bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.BranchStmt:
				if m.Tok == "break" && !inLoop {
					found = true
				}
			case *ast.ReturnStmt:
				found = true
			case *ast.Call:
				if m.Name == "exit" {
					found = true
				}
			case *ast.WhileStmt:
				walk(m.Body, true)
				return false
			case *ast.ForRangeStmt:
				walk(m.Body, true)
				return false
			case *ast.ForMapStmt:
				walk(m.Body, true)
				return false
			}
			return !found
		})
	}
	walk(b, false)
	return found
}

// blockExpr checks `{ stmts; value }`: the statements in a scope of their
// own, then the value, the last statement, which must be an expression.
func (c *checker) blockExpr(e *ast.BlockExpr) *types.Type {
	stmts := e.Body.Stmts
	if len(stmts) == 0 {
		c.errorf(e.Pos(), "a block used as a value must end with an expression")
		return nil
	}
	last, ok := stmts[len(stmts)-1].(*ast.ExprStmt)
	if !ok {
		c.errorf(stmts[len(stmts)-1].Pos(), "a block used as a value must end with an expression")
		return nil
	}
	c.scopes = append(c.scopes, map[string]int{})
	defer func() { c.scopes = c.scopes[:len(c.scopes)-1] }()
	for _, s := range stmts[:len(stmts)-1] {
		c.stmt(s)
	}
	return c.expr(last.X)
}
