package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// config (and config()) is the record of the script's configuration, as
// bpftrace after 0.26 gives it (its stdlib's config builtin): every option
// with its value from the config block, the environment (BPFTRACE_*) or
// the default. Its fields are constants: config.max_strlen is known at
// compile time.
func init() {
	defVars(&Var{Name: "config", Result: types.Record,
		Type: func(c Checker) (*types.Type, string) {
			if t := c.Config(); t != nil {
				return t, ""
			}
			return nil, "config: no record of the configuration"
		},
		Buffer:  func(g Emitter, e *ast.Ident) int16 { return g.Record("config", e.Pos()) },
		Example: `BEGIN { printf("%d %s %d\n", config.max_strlen, config.stack_mode, config.cpp_demangle) }`})
	defFuncs(&Func{Name: "config", Result: types.Record,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 0, 0) {
				return nil
			}
			return c.Config()
		},
		Buffer:  func(g Emitter, e *ast.Call) int16 { return g.Record("config", e.Pos()) },
		Example: `BEGIN { print(config().max_map_keys) }`})
}
