package builtin

import (
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// PseudoBTFID is BPF_PSEUDO_BTF_ID: the source register of a 64-bit
// immediate load whose constant is the BTF id of a kernel variable (and,
// in the upper half, the fd of the BTF object: 0 for vmlinux). The
// verifier turns it into the variable's address, typed.
const PseudoBTFID = asm.R3

// percpu_kaddr(name[, cpu]) is the address of the per-CPU kernel variable
// name on the current CPU (bpf_this_cpu_ptr), or on CPU cpu
// (bpf_per_cpu_ptr: 0 when there is no such CPU), as a uint64 pointer
// (bpftrace 0.26). The variable is found in the kernel's BTF, whose id the
// checker records as the first argument's value. Linux 5.10.
func init() {
	defFuncs(&Func{Name: "percpu_kaddr", Result: types.Pointer,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 1, 2) {
				return nil
			}
			lit, ok := e.Args[0].(*ast.StrLit)
			if !ok {
				c.Errorf(e.Args[0].Pos(), "percpu_kaddr() needs a variable name as a string literal")
				return nil
			}
			spec, err := c.BTF()
			if err != nil {
				c.Errorf(e.Pos(), "percpu_kaddr() needs the kernel's BTF: %v", err)
				return nil
			}
			var v *btf.Var
			if err := spec.TypeByName(lit.Value, &v); err != nil {
				c.Errorf(lit.Pos(), "Could not resolve variable \"%s\" from BTF", lit.Value)
				return nil
			}
			id, err := spec.TypeID(v)
			if err != nil {
				c.Errorf(lit.Pos(), "percpu_kaddr(): %s has no BTF id: %v", lit.Value, err)
				return nil
			}
			c.SetConst(lit, Const{Int: uint64(id)})
			if len(e.Args) == 2 && c.IntArg(e, 1) == nil {
				return nil
			}
			return &types.Type{Kind: types.Pointer, Size: 8, Elem: types.Uint64, AS: types.Kernel}
		},
		Emit: func(g Emitter, e *ast.Call) {
			id, _ := g.ConstOf(e.Args[0])
			ld := asm.Instruction{OpCode: asm.LoadImmOp(asm.DWord), Dst: asm.R1, Src: PseudoBTFID, Constant: int64(id.Int)}
			if len(e.Args) == 2 {
				g.Scalar(e.Args[1])
				g.Emit(asm.Mov.Reg32(asm.R2, asm.R0))
			}
			// The kernel resolves the address when loading, through
			// kallsyms: its refusal names the call.
			g.Tag(e)
			if len(e.Args) == 1 {
				g.Emit(ld, asm.FnThisCpuPtr.Call())
				return
			}
			g.Emit(ld, asm.FnPerCpuPtr.Call())
		},
		// The kernel resolves the variable through kallsyms, which lists
		// variables only with CONFIG_KALLSYMS_ALL: e2e's TestPercpuKaddr
		// runs it where it does.
		Example: `tracepoint:sched:sched_process_fork { @[cpu] = *percpu_kaddr("process_counts"); @n = *percpu_kaddr("process_counts", 0) }`})
}
