package lang

import (
	"sort"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
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
		case "max_bpf_progs", "on_stack_limit", "cpp_demangle", "lazy_symbolication", "symbol_source", "max_type_res_iterations",
			"unstable_tseries", "unstable_dw_ustack", "unstable_map_decl", "unstable_import", "unstable_macro":
			// Accepted: these affect output details gotrace does not vary.
			c.prog.Config.Other = append(c.prog.Config.Other, key+"="+val)
		default:
			c.errorf(e, "%s: not a known configuration option", e.Key)
		}
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
