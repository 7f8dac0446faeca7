package builtin

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// write_user(dst, src, len) copies len bytes of a value of the program
// (a string, an array, a record) to the user address dst with
// bpf_probe_write_user; its value is whether the write succeeded. It
// changes the traced process, so it needs --unsafe.
func init() {
	defFuncs(&Func{Name: "write_user", Unsafe: true, Result: types.Bool,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 3, 3) {
				return nil
			}
			dst := c.Expr(e.Args[0])
			if dst == nil {
				return nil
			}
			if dst.Kind != types.Pointer && !dst.IsInt() {
				c.Errorf(e.Args[0].Pos(), "write_user() writes to a user address, not %s", dst)
				return nil
			}
			src := c.Expr(e.Args[1])
			if src == nil {
				return nil
			}
			if !src.IsBuffer() {
				c.Errorf(e.Args[1].Pos(), "write_user() copies a string, array or record of the program, not %s", src)
				return nil
			}
			n, ok := c.ConstInt(e, 2)
			if !ok {
				return nil
			}
			if n < 1 || n > int64(src.Size) {
				c.Errorf(e.Args[2].Pos(), "write_user() length must be between 1 and the size of the source (%d)", src.Size)
				return nil
			}
			return types.BoolT
		},
		Emit: func(g Emitter, e *ast.Call) {
			n, _ := g.ConstOf(e.Args[2])
			off := g.Buffer(e.Args[1])
			g.Scalar(e.Args[0])
			g.Emit(
				asm.Mov.Reg(asm.R1, asm.R0),
				asm.Mov.Reg(asm.R2, g.Base(off)),
				asm.Add.Imm(asm.R2, int32(off)),
				asm.Mov.Imm(asm.R3, int32(n.Int)),
				asm.FnProbeWriteUser.Call(),
				// 0 on success, a negative errno on failure: true iff 0.
				asm.RSh.Imm(asm.R0, 63),
				asm.Xor.Imm(asm.R0, 1),
			)
		},
		// Compile-only here: the e2e test skips openat probes (and a kernel
		// locked down for integrity has no bpf_probe_write_user).
		Example: `tracepoint:syscalls:sys_enter_openat /comm == "nonexistent"/ { @[write_user(args.filename, "/tmp/x", 6)] = count() }`})
}
