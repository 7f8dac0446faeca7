package builtin

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// ppid(task) is the process id of a task's parent (task->real_parent's
// tgid), as bpftrace 0.26's stdlib macro; ppid() is the ppid variable.
func init() {
	defFuncs(&Func{Name: "ppid", Result: types.Int,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 0, 1) {
				return nil
			}
			if err := c.TaskLayoutErr(); err != nil {
				c.Errorf(e.Pos(), "ppid needs kernel BTF: %v", err)
				return nil
			}
			if len(e.Args) == 1 {
				t := c.Expr(e.Args[0])
				if t == nil {
					return nil
				}
				if t.Kind != types.Pointer || t.Elem == nil || strings.TrimPrefix(t.Elem.Name, "struct ") != "task_struct" {
					c.Errorf(e.Args[0].Pos(), "ppid() needs a struct task_struct pointer, not %s", t)
					return nil
				}
			}
			return types.Uint32
		},
		Emit: func(g Emitter, e *ast.Call) {
			if len(e.Args) == 0 {
				g.Ppid(&ast.Ident{Span: e.Span, Name: e.Name})
				return
			}
			l := g.Task()
			if l.RealParent == 0 && l.Tgid == 0 {
				g.Fail(e.Pos(), fmt.Errorf("ppid(): no task_struct layout"))
				return
			}
			tmp := g.AllocScalar(e.Pos())
			g.Scalar(e.Args[0])
			g.Emit(asm.Add.Imm(asm.R0, int32(l.RealParent)))
			g.ReadKernel(tmp, 8)
			g.Emit(asm.LoadMem(asm.R0, g.Base(tmp), tmp, asm.DWord), asm.Add.Imm(asm.R0, int32(l.Tgid)))
			g.ReadKernel(tmp, 4)
			g.Emit(asm.LoadMem(asm.R0, g.Base(tmp), tmp, asm.Word))
		},
		Example: `BEGIN { printf("%d %d\n", ppid(curtask) == ppid, ppid()) }`})
}
