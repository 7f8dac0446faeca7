package builtin

import (
	"runtime"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

// dw_ustack([mode,] [limit]) and dw_ustack are bpftrace 0.27's user stack
// unwound with the DWARF call frame information of the traced process's
// files, for programs built without frame pointers. As perf --call-graph
// dwarf, the program copies the user registers and DwarfStackBytes of
// the user stack from sp into a sample (codegen); the runtime unwinds it
// with the .eh_frame and .debug_frame of the files the process maps
// (runtime/unwind) when the value is printed, in ustack's formats. Only
// the processes of -p, -c and --dwarf-pid are unwound, as in bpftrace; a
// sample of another process is empty, with a run-time warning. An
// unstable feature (config unstable_dw_ustack, default warn).
func init() {
	defFuncs(&Func{Name: "dw_ustack", Result: types.Stack,
		Check: func(c Checker, e *ast.Call) *types.Type {
			t := checkStack(true)(c, e)
			if t == nil {
				return nil
			}
			explicit := false // dw_ustack(build_id), not the config's
			if len(e.Args) > 0 {
				id, ok := e.Args[0].(*ast.Ident)
				explicit = ok && id.Name == "build_id"
			}
			return checkDwUstack(c, e, t, explicit)
		},
		Buffer:  func(g Emitter, e *ast.Call) int16 { return g.DwUstack(e) },
		Example: `config = { unstable_dw_ustack = enable } tracepoint:syscalls:sys_enter_getppid { print(dw_ustack(3)) }`,
		Doc: Doc{Sig: "dw_ustack([mode] [, limit: int]): ustack",
			Text: "The user stack unwound with the DWARF call frame information (.eh_frame) of the process's files, so that it works without frame pointers; printed as ustack. Needs a target process (-p, -c or --dwarf-pid); x86-64 only."}})
	defVars(&Var{Name: "dw_ustack", Result: types.Stack,
		Type: func(Checker) (*types.Type, string) { return dwStackType(types.NewStack(true, MaxStackFrames)), "" },
		Check: func(c Checker, e *ast.Ident) *types.Type {
			t := types.NewStack(true, MaxStackFrames)
			t.StackMode = c.StackMode()
			return checkDwUstack(c, e, t, false)
		},
		Buffer:  func(g Emitter, e *ast.Ident) int16 { return g.DwUstack(e) },
		Example: `config = { unstable_dw_ustack = enable } tracepoint:syscalls:sys_enter_getppid { print(dw_ustack) }`})
}

// DwarfStackBytes is how much of the user stack a dw_ustack copies from
// sp: at least 8 KiB (perf's default dump size), read as the rest of sp's
// page and the two pages above it, so that a stack that ends sooner
// still gives what it has.
const DwarfStackBytes = 3 << 12

// dwStackType marks a user stack type as dw_ustack's.
func dwStackType(t *types.Type) *types.Type {
	t.DWARF = true
	return t
}

// checkDwUstack checks what dw_ustack needs beyond ustack's arguments: an
// x86-64 host (bpftrace's is also x86-64 only), the unstable feature enabled or warned about, a target process, and a
// mode it can print (build_id frames are the kernel's, not an unwinder's:
// the config's stack_mode = build_id falls back to the default format).
func checkDwUstack(c Checker, at srcpos.Spanned, t *types.Type, explicit bool) *types.Type {
	if runtime.GOARCH != "amd64" {
		c.Errorf(at, "dw_ustack is not available on %s: gotrace unwinds x86-64 stacks only", runtime.GOARCH)
		return nil
	}
	if !c.Unstable(at, "dw_ustack (DWARF stack unwinding)", "unstable_dw_ustack", "warn") {
		return nil
	}
	if t.StackMode == "build_id" {
		if explicit {
			c.Errorf(at, "'build_id' stack mode is not supported by dw_ustack: its frames are unwound in user space; use ustack(build_id)")
			return nil
		}
		t.StackMode = ""
	}
	if len(c.DwarfPids()) == 0 {
		c.Errorf(at, "dw_ustack requires a target process. Use -p, -c, or --dwarf-pid to specify one.")
		return nil
	}
	c.UseReturnLayout()
	return dwStackType(t)
}
