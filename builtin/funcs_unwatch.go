package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// unwatch(addr) is in bpftrace's stdlib ("Removes a watchpoint"), a
// remnant of its asyncwatchpoint probes, which bpftrace 0.20 removed:
// 0.27.1 type-checks it and then crashes compiling it. gotrace's
// watchpoints stay attached until the script ends, so unwatch() is
// refused at its position with why.
func init() {
	defFuncs(&Func{Name: "unwatch", Result: types.Void,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 1, 1) || c.IntArg(e, 0) == nil {
				return nil
			}
			c.Errorf(e, "unwatch() is not supported: it removed the watchpoints of asyncwatchpoint probes, which bpftrace 0.20 dropped (bpftrace 0.27.1 crashes on it); watchpoint probes stay attached until the script ends")
			return nil
		},
		Emit:    func(Emitter, *ast.Call) {},
		Example: `watchpoint:0x10000000:8:w { unwatch(0x10000000) }`,
		Doc:     Doc{Sig: "unwatch(addr: int)", Text: "bpftrace's removal of an asyncwatchpoint: not supported (watchpoints stay attached until the script ends)."}})
}
