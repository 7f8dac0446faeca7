package builtin

import (
	"fmt"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// comm(pid) is the name of the thread whose id is pid, as bpftrace 0.26's
// stdlib macro reads it: bpf_task_from_pid, the task's comm,
// bpf_task_release. Those are kfuncs (Linux 6.2+) that only tracing
// programs may call (fentry, fexit, iter, rawtracepoint). An id that
// names no thread gives "N/A" and a warning. The value is a string[64],
// as bpftrace types it. comm() is the comm variable.
func init() {
	defFuncs(&Func{Name: "comm", Result: types.String,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 0, 1) {
				return nil
			}
			if len(e.Args) == 0 {
				return types.NewString(16)
			}
			if c.IntArg(e, 0) == nil {
				return nil
			}
			if p := c.Provider(); !p.Kfuncs {
				c.Errorf(e.Pos(), "comm(pid) is not supported in %s probes: it calls the kfunc bpf_task_from_pid, which only tracing programs (fentry, fexit, iter, rawtracepoint) may call", p.Name)
				return nil
			}
			if err := c.TaskLayoutErr(); err != nil {
				c.Errorf(e.Pos(), "comm(pid) needs kernel BTF: %v", err)
				return nil
			}
			for _, name := range []string{taskFromPid, taskRelease} {
				if c.Kfunc(name) != nil {
					c.Errorf(e.Pos(), "comm(pid) needs the kfunc %s (Linux 6.2+), which this kernel does not have", name)
					return nil
				}
			}
			return types.NewString(commFromPidSize)
		},
		Buffer: func(g Emitter, e *ast.Call) int16 {
			if len(e.Args) == 0 {
				off := g.Alloc(16, e.Pos())
				g.Comm(off)
				return off
			}
			l := g.Task()
			if l.Comm == 0 {
				g.Fail(e.Pos(), fmt.Errorf("comm(pid): no task_struct layout"))
				return g.Alloc(commFromPidSize, e.Pos())
			}
			off := g.Alloc(commFromPidSize, e.Pos())
			task := g.AllocScalar(e.Pos())
			g.Zero(off, commFromPidSize)
			g.Scalar(e.Args[0])
			g.Emit(asm.Mov.Reg(asm.R1, asm.R0))
			g.Kfunc(taskFromPid, e.Pos())
			none, done := g.NewLabel("nopid"), g.NewLabel("commpid")
			g.Emit(
				asm.JEq.Imm(asm.R0, 0, none),
				// the acquired task, kept on the stack over the read
				asm.StoreMem(g.Base(task), task, asm.R0, asm.DWord),
				asm.Add.Imm(asm.R0, int32(l.Comm)),
			)
			g.ReadKernel(off, 16)
			g.Emit(asm.LoadMem(asm.R1, g.Base(task), task, asm.DWord))
			g.Kfunc(taskRelease, e.Pos())
			g.Emit(asm.Ja.Label(done))
			g.Mark(none)
			// "N/A"
			g.Emit(asm.StoreImm(g.Base(off), off, int64('N')|int64('/')<<8|int64('A')<<16, asm.Word))
			g.Message(object.EventWarnf, "No such process (pid=%d)", e.Args, e.Pos())
			g.Mark(done)
			return off
		},
		Example: `iter:task { if (ctx.task->pid == 2) { printf("%s %s\n", comm(2), comm()) } }`})
}

const (
	taskFromPid, taskRelease = "bpf_task_from_pid", "bpf_task_release"
	// commFromPidSize is the size of comm(pid)'s string, as bpftrace's
	// stdlib declares it.
	commFromPidSize = 64
)
