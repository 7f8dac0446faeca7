package check

import (
	"cmp"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/preamble"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/tracefs"
)

// Check resolves and type-checks a parsed script against env. On failure it
// returns an ErrorList with every error found, sorted by position.
//
// Check does not modify file: it checks a clone, which its rewrites (macro
// expansion, the -p pid filter) change, and the Program refers to the clone
// (Program.File, Probe.AST and the Info maps' keys).
func Check(file *ast.File, env Env, opts Options) (*Program, error) {
	prog, errs := Analyze(file, env, opts)
	if len(errs) > 0 {
		return nil, errs
	}
	return prog, nil
}

// Analyze is Check for tools that read a script with errors (the language
// server): it returns the Program as far as it was checked (every probe's
// Info holds the types found) with every error, collapsed and sorted. A
// Program with errors must not be compiled.
func Analyze(file *ast.File, env Env, opts Options) (*Program, syntax.ErrorList) {
	file = ast.Clone(file)
	if opts.MaxStrlen <= 0 {
		opts.MaxStrlen = DefaultMaxStrlen
	}
	if opts.MaxMapKeys <= 0 {
		opts.MaxMapKeys = DefaultMaxMapKeys
	}
	c := &checker{
		env:  env,
		opts: opts,
		prog: &Program{File: file, Maps: map[string]*MapType{}, MaxStrlen: opts.MaxStrlen, NCPUs: opts.NCPUs, MaxMapKeys: opts.MaxMapKeys, Host: opts.Host, DwarfPids: dwarfPids(opts)},
	}
	c.predeclare()
	c.checkFile(file)
	c.checkDummyTSMap()
	c.unusedDecls()
	c.settlePredeclared()
	if len(c.errs) > 0 {
		c.errs.Sort()
		return c.prog, collapse(c.errs)
	}
	return c.prog, nil
}

type checker struct {
	env  Env
	opts Options
	prog *Program
	errs syntax.ErrorList

	// quiet suppresses errors during the first, inference-only pass.
	quiet bool
	// noMatchOK: wildcards that match nothing go to noMatch instead of
	// being errors (expandAttach).
	noMatchOK bool
	noMatch   []noMatch
	// bpfProgs counts the programs bpftrace would generate one per match
	// of a wildcard (countPrograms), for max_bpf_progs.
	bpfProgs int
	// warnedUnstable holds the unstable features already warned about.
	warnedUnstable map[string]bool
	// returnsLooked: the uretprobe return layout was looked up (returnLayout).
	returnsLooked bool
	// selfAssign names the map assigned by the statement whose right-hand
	// side is being checked: reading it there before any assignment is
	// the zero of an integer (@k = @k + 1).
	selfAssign string
	// state of the probe instance being checked
	probe *Probe
	info  *Info
	// formats caches tracepoint formats by "cat:event".
	formats map[string]*tracefs.Format
	// scopes maps variable names to declaration IDs, innermost last;
	// nextVar is the next declaration ID of the probe.
	scopes  []map[string]int
	nextVar int
	// literals caches isLiteral's answers for the operations of info.
	literals struct {
		info *Info
		of   map[ast.Expr]bool
	}
	// declared holds, by variable ID, the integer type a let gave a
	// variable (let $a: uint16): what its assignments must fit.
	declared map[int]*types.Type
	// loops counts the loops enclosing the statement being checked.
	loops int
	// pre runs the preamble passes over the script: imports,
	// preprocessor, macros.
	pre *preamble.Preamble
	// ctypes holds the types the script's C definitions declare, by name
	// ("struct foo", "enum bar", or a typedef name).
	ctypes map[string]btf.Type
	// defines holds the #define constants of the preamble.
	defines map[string]builtin.Const
	// kernelMembers are the members of the script's definitions whose
	// type, by value, is a kernel type (shadowedKernelTypes).
	kernelMembers []kernelMember
	// enums maps the enumerators of the script's enums (also in defines)
	// to their enum, whose type they have.
	enums map[string]*btf.Enum
	// charType caches plainChar's answer.
	charType *types.Type
}

// unusedDecls drops the maps declared (let @m = hash(n)) but never used,
// with a warning, as bpftrace does.
func (c *checker) unusedDecls() {
	for _, d := range c.prog.File.MapDecls {
		if mt := c.prog.Maps[d.Name]; mt != nil && mt.Value == nil && mt.Keys == nil {
			c.prog.Warnings.Add(d, "Unused map: %s", d.Name)
			delete(c.prog.Maps, d.Name)
		}
	}
}

// collapse keeps one error per position: a probe expanded to many attach
// points reports each problem once, with the number of repeats.
func collapse(errs syntax.ErrorList) syntax.ErrorList {
	var out syntax.ErrorList
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

func (c *checker) errorf(at srcpos.Spanned, format string, args ...any) {
	if c.quiet {
		return
	}
	c.errs.Add(at, format, args...)
}

var posParamRe = regexp.MustCompile(`\$(\d+)`)

func (c *checker) checkFile(file *ast.File) {
	c.pre = preamble.New(c.env, preamble.Options{IncludeDirs: c.opts.IncludeDirs, Includes: c.opts.Includes}, &c.errs)
	c.pre.Import(file)
	c.preprocess(file)
	// The script's config block, then the environment
	// (BPFTRACE_MAX_STRLEN=...), which wins, as in bpftrace.
	if file.Config != nil {
		c.checkConfig(file.Config)
	}
	if env := configFromEnv(c.opts.ConfigEnv); env != nil {
		c.checkConfig(env)
	}
	c.pre.ExpandMacros(file)
	c.prog.Expansions = c.pre.Expansions
	canonicalBuiltins(file)
	aggregationBlocks(file)
	for _, d := range file.MapDecls {
		c.mapDecl(d)
	}
	if len(file.Probes) == 0 {
		c.errorf(file.Pos(), "no probes in script")
		return
	}
	// Expand attach points and split probes into instances.
	var dropped []*Probe
	c.bpfProgs = 0
	for i, p := range file.Probes {
		var points []*provider.Point
		var stand *provider.Point
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
			c.noMatchOK = len(p.Attach) > 1
			pts, d := c.expandAttachMissing(&cp)
			c.noMatchOK = false
			c.countPrograms(&cp, len(pts), usesPointName(p))
			points = append(points, pts...)
			stand = cmp.Or(stand, d)
		}
		if len(points) == 0 && stand == nil {
			// No attach point matched: the wildcards are missing.
			for _, nm := range c.noMatch {
				stand = cmp.Or(stand, c.missingProbe(nm.ap, nm.msg))
			}
		}
		c.noMatch = nil
		if len(points) == 0 {
			if stand != nil {
				// Every attach point was dropped (missing_probes): the
				// body still defines the maps other probes use, as in
				// bpftrace, whose probes drop only when attaching.
				dropped = append(dropped, &Probe{AST: p, Points: []*provider.Point{stand}, Index: i})
				if c.prog.Config.MissingProbes == "warn" {
					c.prog.Warnings.Add(p.Attach[0], "Probe has no valid attach points. It is being removed which may cause issues with program behavior.")
				}
			}
			continue
		}
		// Only tracepoints share one program between attach points, and only
		// when the body does not depend on which one fired.
		// Trampolines share one when what the body reads has the same
		// shape in each (shape.go).
		shared := !usesPerPoint(p)
		use := shapeUses(p)
		var groups [][]*provider.Point
		var shaped []bool
		byKey := map[string]int{}
		for _, pt := range points {
			key, ok := "", false
			if def := provider.Lookup(pt.Provider); def.SharesByShape && use.ok {
				if k, kok := c.pointShape(use, def, pt); kok {
					key, ok = pt.Provider+"\x00"+k, true
				}
			} else if shared && def.SharesProgram {
				key, ok = pt.Provider, true
			}
			if !ok {
				groups, shaped = append(groups, []*provider.Point{pt}), append(shaped, false)
				continue
			}
			gi, seen := byKey[key]
			if !seen {
				gi = len(groups)
				byKey[key] = gi
				groups, shaped = append(groups, nil), append(shaped, use.reads())
			}
			groups[gi] = append(groups[gi], pt)
		}
		grouped := false
		for gi, g := range groups {
			grouped = grouped || shaped[gi] && len(g) > 1
		}
		for gi, g := range groups {
			c.prog.Probes = append(c.prog.Probes, &Probe{AST: p, Points: g, Index: i, Shaped: shaped[gi] && len(g) > 1, Grouped: grouped})
		}
	}
	if len(c.errs) > 0 {
		return
	}
	c.addPidFilter()
	// Pass 1 infers map and variable types; pass 2 reports errors.
	for pass := 0; pass < 2; pass++ {
		c.quiet = pass == 0
		if pass == 0 {
			// Dropped probes type their maps (quietly: their args and
			// the like are unknown) and compile to nothing.
			for _, pr := range dropped {
				c.checkProbe(pr)
			}
		}
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
