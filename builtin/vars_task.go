package builtin

import (
	"fmt"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

// Variables about the current task's thread group.

func init() {
	defVars(
		// leader_tid is the thread id of the thread group leader
		// (task->group_leader->pid): the group's tgid, which
		// bpf_get_current_pid_tgid returns.
		&Var{Name: "leader_tid", Type: fixed(types.Uint32), Result: types.Int,
			Emit:    emitPid,
			Example: `BEGIN { printf("%d\n", leader_tid) }`},
		// leader_comm is the name of the thread group leader
		// (task->group_leader->comm).
		&Var{Name: "leader_comm", Result: types.String,
			Type: func(c Checker) (*types.Type, string) {
				if err := c.TaskLayoutErr(); err != nil {
					return nil, fmt.Sprintf("leader_comm needs kernel BTF: %v", err)
				}
				return types.NewString(16), ""
			},
			Buffer: func(g Emitter, e *ast.Ident) int16 {
				l := g.Task()
				return taskComm(g, e.Pos(), l.GroupLeader, l.Comm)
			},
			Example: `BEGIN { printf("%s\n", leader_comm) }`},
	)
}

// taskComm reads curtask->(link)->comm into a 16-byte buffer: link is the
// offset of a task_struct pointer member, comm the offset of comm.
func taskComm(g Emitter, pos srcpos.Pos, link, comm int) int16 {
	tmp := g.AllocScalar(pos)
	off := g.Alloc(16, pos)
	g.Emit(asm.FnGetCurrentTask.Call(), asm.Add.Imm(asm.R0, int32(link)))
	g.ReadKernel(tmp, 8)
	g.Emit(asm.LoadMem(asm.R0, g.Base(tmp), tmp, asm.DWord), asm.Add.Imm(asm.R0, int32(comm)))
	g.ReadKernel(off, 16)
	return off
}
