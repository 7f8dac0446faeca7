package check

import (
	"cmp"
	"sort"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

func (c *checker) checkConfig(cfg *ast.Config) {
	for _, e := range cfg.Entries {
		val := configValue(e.Value)
		// BPFTRACE_STACK_MODE, STACK_MODE and stack_mode are one option.
		switch key := strings.TrimPrefix(strings.ToLower(e.Key), "bpftrace_"); key {
		case "max_strlen":
			if v, ok := e.Value.(*ast.IntLit); ok && v.Value > 0 && v.Value <= MaxStrlenLimit {
				c.opts.MaxStrlen = int(v.Value)
				c.prog.MaxStrlen = int(v.Value)
				continue
			}
			c.errorf(e.Value, "max_strlen must be an integer between 1 and %d", MaxStrlenLimit)
		case "max_map_keys":
			if v, ok := e.Value.(*ast.IntLit); ok && v.Value > 0 {
				c.opts.MaxMapKeys = int(v.Value)
				c.prog.MaxMapKeys = int(v.Value)
				continue
			}
			c.errorf(e.Value, "max_map_keys must be a positive integer")
		case "print_maps_on_exit":
			switch val {
			case "true", "1":
				c.prog.Config.NoExitMaps = false
			case "false", "0":
				c.prog.Config.NoExitMaps = true
			default:
				c.errorf(e.Value, "print_maps_on_exit must be true or false")
			}
		case "missing_probes":
			switch val {
			case "error", "warn", "ignore":
				c.prog.Config.MissingProbes = val
			default:
				c.errorf(e.Value, "missing_probes must be error, warn or ignore")
			}
		case "stack_mode":
			switch val {
			case "bpftrace", "perf", "raw", "build_id":
				c.prog.Config.StackMode = val
			default:
				c.errorf(e.Value, "Invalid value for stack_mode: valid values are bpftrace, raw, perf, and build_id.")
			}
		case "str_trunc_trailer":
			if _, ok := e.Value.(*ast.StrLit); !ok {
				c.errorf(e.Value, "str_trunc_trailer must be a string")
				continue
			}
			c.prog.Config.StrTruncTrailer = &val
		case "max_cat_bytes":
			if v, ok := e.Value.(*ast.IntLit); ok && v.Value > 0 {
				c.prog.Config.MaxCatBytes = int(v.Value)
				continue
			}
			c.errorf(e.Value, "max_cat_bytes must be a positive integer")
		case "max_probes":
			if v, ok := e.Value.(*ast.IntLit); ok && v.Value > 0 && v.Value <= 1<<31 {
				c.prog.Config.MaxProbes = int(v.Value)
				continue
			}
			c.errorf(e.Value, "max_probes must be a positive integer")
		case "perf_rb_pages":
			if v, ok := e.Value.(*ast.IntLit); ok && v.Value > 0 {
				c.prog.Config.PerfRBPages = v.Value
				continue
			}
			c.errorf(e.Value, "perf_rb_pages must be a positive integer")
		case "log_size":
			if v, ok := e.Value.(*ast.IntLit); ok && v.Value > 0 && v.Value <= 1<<32-1 {
				c.prog.Config.LogSize = v.Value
				continue
			}
			c.errorf(e.Value, "log_size must be a positive integer")
		case "license":
			if !validLicense(val) {
				c.errorf(e.Value, "Invalid value for license. Found: %s. Valid values: %s. Read more about BPF programs and licensing: https://docs.kernel.org/bpf/bpf_licensing.html#using-bpf-programs-in-the-linux-kernel", val, strings.Join(licenses, ", "))
				continue
			}
			c.prog.Config.Other = append(c.prog.Config.Other, key+"="+val)
		case "show_debug_info":
			switch val {
			case "true", "1":
				c.prog.Config.NoDebugInfo = false
			case "false", "0":
				c.prog.Config.NoDebugInfo = true
			default:
				c.errorf(e.Value, "show_debug_info must be true or false")
			}
		case "unstable_import_statement", "unstable_tseries", "unstable_typeinfo", "unstable_dw_ustack":
			// bpftrace 0.26's unstable features: enable, warn or error
			// (true and false, 1 and 0 too)
			switch strings.ToLower(val) {
			case "enable", "true", "1", "on", "yes":
				val = "enable"
			case "warn":
			case "error", "false", "0", "off", "no":
				val = "error"
			default:
				c.errorf(e.Value, "%s: Invalid value for unstable config: valid values are enable, warn, and error.", key)
				continue
			}
			c.prog.Config.Other = append(c.prog.Config.Other, key+"="+val)
		case "symbol_source", "max_type_res_iterations", "unstable_addr", "unstable_import", "unstable_macro", "unstable_map_decl":
			// bpftrace 0.27 no longer reads these
			c.warnf(e, "%s is deprecated and has no effect", key)
		case "max_bpf_progs":
			if v, ok := e.Value.(*ast.IntLit); ok && v.Value > 0 {
				c.prog.Config.MaxBPFProgs = int(v.Value)
				continue
			}
			c.errorf(e.Value, "max_bpf_progs must be a positive integer")
		case "cpp_demangle", "lazy_symbolication", "use_blazesym":
			// lazy_symbolication, use_blazesym: output details gotrace
			// does not vary
			b, ok := configBool(val)
			if !ok {
				c.errorf(e, "%s: Invalid bool value: valid values are true, false, 1 or 0.", key)
				continue
			}
			if key == "cpp_demangle" {
				c.prog.Config.NoCppDemangle = !b
			}
			c.prog.Config.Other = append(c.prog.Config.Other, key+"="+strconv.FormatBool(b))
		case "on_stack_limit":
			if _, ok := e.Value.(*ast.IntLit); !ok {
				c.errorf(e, "%s: expecting a number, got %s", key, val)
				continue
			}
			c.prog.Config.Other = append(c.prog.Config.Other, key+"="+val)
		case "cache_user_symbols":
			switch v := strings.ToUpper(val); v {
			case "PER_PID", "PER_PROGRAM", "NONE":
				c.prog.Config.UserSymbolCache = v
			default:
				c.errorf(e, "%s: Invalid value for cache_user_symbols: valid values are PER_PID, PER_PROGRAM, and NONE.", key)
			}
		case "btf", "kernel_build", "kernel_source", "vmlinux":
			c.errorf(e, "%s: can only be set as an environment variable", e.Key)
		default:
			if to, ok := renamedConfig[key]; ok {
				// bpftrace's old names: a warning, then the new option
				c.warnf(e, "%s has been renamed, please use %s", key, to)
				e := *e
				e.Key = to
				c.checkConfig(&ast.Config{Entries: []*ast.ConfigEntry{&e}})
				continue
			}
			c.errorf(e, "%s: not a known configuration option", e.Key)
		}
	}
}

// configRecord builds and checks, once per probe, the value of the config
// builtin: the record of the configuration as bpftrace (after 0.26) gives
// it, every option with its value for this script (its config block, the
// environment, else the default), in bpftrace's order.
func (c *checker) configRecord() *types.Type {
	if tup, ok := c.info.Records["config"]; ok {
		return c.info.TypeOf(tup)
	}
	other := map[string]string{}
	for _, kv := range c.prog.Config.Other {
		k, v, _ := strings.Cut(kv, "=")
		other[k] = v
	}
	cfg := c.prog.Config
	sp := c.probe.AST.Span
	tup := &ast.Tuple{Span: sp}
	add := func(name string, x ast.Expr) {
		tup.Names = append(tup.Names, name)
		tup.Elems = append(tup.Elems, x)
	}
	boolean := func(name string, v bool) {
		if s, ok := other[name]; ok {
			v = s == "true" || s == "1"
		}
		add(name, &ast.BoolLit{Span: sp, Value: v})
	}
	integer := func(name string, v uint64) {
		if s, ok := other[name]; ok {
			if n, err := strconv.ParseUint(s, 0, 64); err == nil {
				v = n
			}
		}
		add(name, &ast.IntLit{Span: sp, Text: strconv.FormatUint(v, 10), Value: v})
	}
	str := func(name, v string) {
		if s, ok := other[name]; ok {
			v = s
		}
		add(name, &ast.StrLit{Span: sp, Value: v})
	}
	or := func(v, def uint64) uint64 {
		if v == 0 {
			return def
		}
		return v
	}
	boolean("cpp_demangle", true)
	boolean("lazy_symbolication", true)
	boolean("print_maps_on_exit", !cfg.NoExitMaps)
	boolean("use_blazesym", false)
	boolean("show_debug_info", !cfg.NoDebugInfo)
	integer("log_size", or(cfg.LogSize, 1000000))
	integer("max_bpf_progs", or(uint64(cfg.MaxBPFProgs), DefaultMaxBPFProgs))
	integer("max_cat_bytes", or(uint64(cfg.MaxCatBytes), 10240))
	integer("max_map_keys", uint64(c.opts.MaxMapKeys))
	integer("max_probes", or(uint64(cfg.MaxProbes), 1024))
	integer("max_strlen", uint64(c.opts.MaxStrlen))
	integer("on_stack_limit", 32)
	integer("perf_rb_pages", cfg.PerfRBPages)
	trailer := ".."
	if cfg.StrTruncTrailer != nil {
		trailer = *cfg.StrTruncTrailer
	}
	str("str_trunc_trailer", trailer)
	str("unstable_import_statement", "error")
	str("unstable_tseries", "warn")
	str("unstable_typeinfo", "error")
	str("unstable_dw_ustack", "warn")
	str("missing_probes", cmp.Or(cfg.MissingProbes, "error"))
	str("stack_mode", cmp.Or(cfg.StackMode, "bpftrace"))
	str("license", "GPL")
	t := c.expr(tup)
	if t != nil {
		c.info.Records["config"] = tup
	}
	return t
}

// unstableFeature applies bpftrace 0.26's config option for an unstable
// feature used at e: error (an error under e, and false), warn (a warning
// without position, once per script) or enable. def is the option's
// default.
func (c *checker) unstableFeature(e srcpos.Spanned, feature, option, def string) bool {
	mode := def
	for _, kv := range c.prog.Config.Other {
		if k, v, _ := strings.Cut(kv, "="); k == option {
			mode = v
		}
	}
	switch mode {
	case "error":
		c.errorf(e, "%s feature is not enabled by default. To enable this unstable feature, set the config flag to enable. %s=enable", feature, option)
		return false
	case "warn":
		if c.warnedUnstable == nil {
			c.warnedUnstable = map[string]bool{}
		}
		if !c.warnedUnstable[option] && !c.quiet {
			c.warnedUnstable[option] = true
			c.warnf(srcpos.Pos{}, "Script is using an unstable feature: %s. To prevent this warning you must explicitly enable it in the config e.g. %s=enable", feature, option)
		}
	}
	return true
}

// foldMember records the value of e, member i of a record or tuple, when
// the record is made of literals (a literal written so, or the record of
// a builtin such as config): config.max_strlen is a constant.
func (c *checker) foldMember(e *ast.Field, i int) {
	var tup *ast.Tuple
	ok := false
	switch x := e.X.(type) {
	case *ast.Ident:
		if b := c.info.Idents[x]; b != nil {
			tup, ok = c.info.Records[b.Name]
		}
	case *ast.Call:
		if f := c.info.Calls[x]; f != nil {
			if tup, ok = c.info.Records[f.Name]; !ok {
				tup, ok = c.info.Records[builtin.CallRecordKey(x)]
			}
		}
	default:
		tup, ok = ast.Unparen(e.X).(*ast.Tuple)
	}
	if !ok || i >= len(tup.Elems) {
		return
	}
	for _, x := range tup.Elems {
		switch x.(type) {
		case *ast.IntLit, *ast.StrLit, *ast.BoolLit:
		default:
			return
		}
	}
	if cv, ok := c.info.Consts[tup.Elems[i]]; ok {
		c.info.Consts[e] = cv
	}
}

// licenses are the GPL-compatible licenses the config option license
// accepts, in the order bpftrace lists them.
var licenses = []string{"Dual MIT/GPL", "Dual BSD/GPL", "Dual MPL/GPL", "GPL and additional rights", "GPL v2", "GPL"}

func validLicense(s string) bool {
	for _, l := range licenses {
		if s == l {
			return true
		}
	}
	return false
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
		sp := srcpos.Span{Start: srcpos.Pos{Filename: "BPFTRACE_" + strings.ToUpper(k)}}
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

// renamedConfig maps the config options bpftrace renamed to their names
// now (no_cpp_demangle sets cpp_demangle, whatever its name says).
var renamedConfig = map[string]string{
	"strlen":          "max_strlen",
	"no_cpp_demangle": "cpp_demangle",
	"cat_bytes_max":   "max_cat_bytes",
	"map_keys_max":    "max_map_keys",
}

// configBool reads a config option's boolean value as bpftrace does:
// true, false, 1 or 0.
func configBool(val string) (bool, bool) {
	switch val {
	case "true", "1":
		return true, true
	case "false", "0":
		return false, true
	}
	return false, false
}
