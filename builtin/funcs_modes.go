package builtin

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// Functions whose optional argument is a mode keyword (bpftrace 0.26):
// nsecs(boot), pid(init), tid(init). Without an argument they are the
// variable of the same name.

// modeArg checks a call's optional mode keyword and returns it ("" when
// there is none). modes maps the keywords to whether gotrace supports them.
func modeArg(c Checker, e *ast.Call, modes map[string]bool) (string, bool) {
	if !c.WantArgs(e, 0, 1) {
		return "", false
	}
	if len(e.Args) == 0 {
		return "", true
	}
	var names []string
	for m := range modes {
		names = append(names, m)
	}
	sort.Strings(names)
	id, ok := e.Args[0].(*ast.Ident)
	if !ok {
		c.Errorf(e.Args[0].Pos(), "%s() takes a mode: one of %s", e.Name, strings.Join(names, ", "))
		return "", false
	}
	supported, known := modes[id.Name]
	switch {
	case !known:
		c.Errorf(id.Pos(), "%s() mode %s is not one of %s", e.Name, id.Name, strings.Join(names, ", "))
		return "", false
	case !supported:
		c.Errorf(id.Pos(), "%s(%s) is not supported yet", e.Name, id.Name)
		return "", false
	}
	return id.Name, true
}

func mode(e *ast.Call) string {
	if len(e.Args) == 0 {
		return ""
	}
	return e.Args[0].(*ast.Ident).Name
}

// nsecsClocks are the helpers reading each clock of nsecs(mode).
var nsecsClocks = map[string]asm.BuiltinFunc{
	"":          asm.FnKtimeGetNs,
	"monotonic": asm.FnKtimeGetNs,     // CLOCK_MONOTONIC
	"boot":      asm.FnKtimeGetBootNs, // CLOCK_BOOTTIME, Linux 5.8
	"tai":       asm.FnKtimeGetTaiNs,  // CLOCK_TAI, Linux 6.1
}

// pidModes are the modes of pid() and tid(): curr_ns (the default) reads
// them in the tracer's PID namespace, init in the initial one.
var pidModes = map[string]bool{"init": true, "curr_ns": true}

func init() {
	defFuncs(
		&Func{Name: "nsecs", Result: types.Int,
			Check: func(c Checker, e *ast.Call) *types.Type {
				if _, ok := modeArg(c, e, map[string]bool{"monotonic": true, "boot": true, "tai": true, "sw_tai": true}); !ok {
					return nil
				}
				return types.Uint64
			},
			Emit: func(g Emitter, e *ast.Call) {
				if mode(e) == "sw_tai" {
					// The boot clock plus the offset to TAI read at
					// compile time, for kernels without the TAI helper.
					g.Emit(asm.FnKtimeGetBootNs.Call())
					if off := g.TAIOffset(); off != 0 {
						g.LoadImm(asm.R1, off)
						g.Emit(asm.Add.Reg(asm.R0, asm.R1))
					}
					return
				}
				fn, ok := nsecsClocks[mode(e)]
				if !ok {
					g.Fail(e.Pos(), fmt.Errorf("nsecs(%s) has no clock", mode(e)))
					return
				}
				g.Emit(fn.Call())
			},
			Example: `BEGIN { printf("%d %d %d %d\n", nsecs(monotonic), nsecs(boot), nsecs(tai), nsecs(sw_tai)) }`},
		&Func{Name: "pid", Result: types.Int,
			Check: func(c Checker, e *ast.Call) *types.Type {
				if _, ok := modeArg(c, e, pidModes); !ok {
					return nil
				}
				return types.Uint32
			},
			Emit:    func(g Emitter, e *ast.Call) { emitNsID(g, mode(e) == "init", e.Pos(), false) },
			Example: `BEGIN { printf("%d %d\n", pid(init) == pid, pid(curr_ns) == pid) }`},
		&Func{Name: "tid", Result: types.Int,
			Check: func(c Checker, e *ast.Call) *types.Type {
				if _, ok := modeArg(c, e, pidModes); !ok {
					return nil
				}
				return types.Uint32
			},
			Emit:    func(g Emitter, e *ast.Call) { emitNsID(g, mode(e) == "init", e.Pos(), true) },
			Example: `BEGIN { printf("%d %d\n", tid(init) == tid, tid(curr_ns) == tid) }`},
	)
}
