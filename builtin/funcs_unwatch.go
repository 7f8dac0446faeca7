package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// unwatch(addr) removes the watchpoints on addr, as bpftrace documents it
// ("Removes a watchpoint", async): the program sends the address to user
// space, which detaches every watchpoint probe whose address it is. An
// address no watchpoint probe watches is ignored, so that a script may
// unwatch addresses it only may have watched. bpftrace 0.27.1 type-checks
// it and then crashes compiling it; bpftrace before 0.20 ran it.
func init() {
	defFuncs(&Func{Name: "unwatch", Result: types.Void,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 1, 1) || c.IntArg(e, 0) == nil {
				return nil
			}
			return types.VoidT
		},
		Emit: func(g Emitter, e *ast.Call) {
			g.ValueEvent(object.EventUnwatch, e.Args[0], e.Pos())
		},
		Example: `watchpoint:0x10000000:8:w { unwatch(0x10000000) }`,
		Doc:     Doc{Sig: "unwatch(addr: int)", Text: "Detaches the watchpoint probes on addr, asynchronously: the probe may still fire a few times after the call. Harmless for an address not watched."}})
}
