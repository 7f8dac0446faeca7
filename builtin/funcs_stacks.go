package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// kstack([mode,] [limit]) and ustack([mode,] [limit]) are the kernel and
// the user stack of the event, printed with at most limit frames in the
// mode's format (bpftrace, perf or raw; build_id for ustack, which the
// config's stack_mode also selects, since it records other frames).
func init() {
	defFuncs(
		&Func{Name: "kstack", Check: checkStack(false), Result: types.Stack,
			Emit:    func(g Emitter, e *ast.Call) { g.Kstack(e) },
			Example: `tracepoint:syscalls:sys_enter_getppid { @[kstack(3)] = count() }`},
		&Func{Name: "ustack", Check: checkStack(true), Result: types.Stack,
			Buffer:  func(g Emitter, e *ast.Call) int16 { return g.Ustack(e) },
			Example: `tracepoint:syscalls:sys_enter_getppid { @[ustack(3)] = count() }`},
	)
}

// checkStack types a call of kstack (user false) or ustack.
func checkStack(user bool) func(Checker, *ast.Call) *types.Type {
	return func(c Checker, e *ast.Call) *types.Type {
		if !c.WantArgs(e, 0, 2) {
			return nil
		}
		limit := int64(MaxStackFrames)
		mode := c.StackMode() // the config's, "" when unset
		args := e.Args
		if len(args) > 0 {
			if id, ok := args[0].(*ast.Ident); ok && (id.Name == "bpftrace" || id.Name == "perf" || id.Name == "raw" || id.Name == "build_id") {
				mode, args = id.Name, args[1:]
			}
		}
		if len(args) == 2 || (len(args) == 1 && len(e.Args) == 2 && args[0] == e.Args[0]) {
			c.Errorf(e, "%s() takes an optional mode (bpftrace, perf, raw, build_id) and an optional limit", e.Name)
			return nil
		}
		if mode == "build_id" && !user {
			c.Errorf(e, "'build_id' stack mode can only be used for ustack")
			return nil
		}
		if len(args) == 1 {
			i := len(e.Args) - 1
			v, ok := c.ConstInt(e, i)
			if !ok {
				return nil
			}
			if v < 1 || v > MaxStackFrames {
				c.Errorf(e.Args[i], "%s() limit must be between 1 and %d", e.Name, MaxStackFrames)
				return nil
			}
			limit = v
		}
		t := types.NewStack(user, int(limit))
		t.StackMode = mode
		return t
	}
}
