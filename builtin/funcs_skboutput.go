package builtin

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// currentCPU is BPF_F_CURRENT_CPU: a perf event array's entry for the CPU
// the program runs on.
const currentCPU = 0xffffffff

// skboutput(path, skb, len, offset) sends the first len bytes of an
// sk_buff's data to the pcap file path (raw IP packets, offset bytes at
// their start left out), as bpftrace 0.26: bpf_skb_output through a perf
// event array, in programs of type BPF_PROG_TYPE_TRACING (fentry, fexit,
// rawtracepoint). It returns 0, or a negative error (as a uint32). Linux
// 5.5.
func init() {
	defFuncs(&Func{Name: "skboutput", Result: types.Int,
		Check: func(c Checker, e *ast.Call) *types.Type {
			// bpf_skb_output is a helper of tracing programs only, which
			// are the providers whose context is the BTF argument array.
			if p := c.Provider(); !p.Ctx.ArgsInSlots() {
				c.Errorf(e.Pos(), "skboutput can not be used with \"%s\" probes", p.Name)
				return nil
			}
			if !c.WantArgs(e, 4, 4) {
				return nil
			}
			if _, ok := e.Args[0].(*ast.StrLit); !ok {
				c.Errorf(e.Args[0].Pos(), "skboutput() needs the pcap file's path as a string literal")
				return nil
			}
			t := c.Expr(e.Args[1])
			if t == nil {
				return nil
			}
			if t.Kind != types.Pointer {
				c.Errorf(e.Args[1].Pos(), "skboutput() needs a struct sk_buff pointer, not %s", t)
				return nil
			}
			if c.IntArg(e, 2) == nil {
				return nil
			}
			off, ok := c.ConstInt(e, 3)
			if !ok {
				return nil
			}
			if off < 0 || off > 1<<16 {
				c.Errorf(e.Args[3].Pos(), "skboutput() offset must be between 0 and 65536, not %d", off)
				return nil
			}
			return types.Uint32
		},
		Emit: func(g Emitter, e *ast.Call) {
			off, _ := g.ConstOf(e.Args[3])
			id, perf := g.Pcap(e.Args[0].(*ast.StrLit).Value, int(off.Int))
			hdr := g.Alloc(object.PacketHeaderSize, e.Pos())
			fp := g.Base(hdr)
			g.Scalar(e.Args[2])
			g.Emit(asm.StoreMem(fp, hdr+16, asm.R0, asm.DWord),
				asm.FnKtimeGetBootNs.Call(),
				asm.StoreMem(fp, hdr+8, asm.R0, asm.DWord),
				stImm(fp, hdr, int64(id)))
			g.Scalar(e.Args[1])
			// bpf_skb_output(skb, map, len << 32 | BPF_F_CURRENT_CPU,
			// header, header size): the header, then len bytes of the
			// packet.
			g.Emit(asm.Mov.Reg(asm.R1, asm.R0),
				asm.LoadMapPtr(asm.R2, 0).WithReference(perf),
				asm.LoadMem(asm.R3, fp, hdr+16, asm.DWord),
				asm.LSh.Imm(asm.R3, 32),
				asm.LoadImm(asm.R4, currentCPU, asm.DWord),
				asm.Or.Reg(asm.R3, asm.R4),
				asm.Mov.Reg(asm.R4, fp),
				asm.Add.Imm(asm.R4, int32(hdr)),
				asm.Mov.Imm(asm.R5, object.PacketHeaderSize),
				asm.FnSkbOutput.Call(),
				asm.Mov.Reg32(asm.R0, asm.R0))
		},
		Example: `rawtracepoint:consume_skb { $ret = skboutput("/dev/null", (struct sk_buff *)arg0, 1, 0); printf("%d\n", $ret); exit(); }`})
}
