package codegen

import (
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// argsRecordBuffer builds the value of args as a whole (print(args), @x =
// args, a tuple holding args) in a fresh stack buffer, for providers whose
// arguments are registers or argument slots (uprobe with DWARF, fentry,
// rawtracepoint): each field is read like args.NAME and stored at its
// offset in the record. ok is false for other providers.
func (g *gen) argsRecordBuffer(e *ast.Ident) (off int16, ok bool) {
	t := g.info.TypeOf(e)
	if t == nil || t.Kind != types.Record || g.probe.Def().ArgsInCtx || g.ctx.SyscallRegs() {
		return 0, false
	}
	if t.Size == 0 {
		return 0, false // no layout (the kernel-function records)
	}
	for _, f := range t.Fields {
		if f.Type.IsBuffer() || f.Offset+sizeOfField(f.Type) > t.Size {
			return 0, false
		}
	}
	off = g.alloc(t.Size, e.Pos())
	g.zero(off, t.Size)
	for _, f := range t.Fields {
		g.kfuncArg(f.Offset/8, f.Type, e.Pos())
		g.emit(g.stx(off+int16(f.Offset), asm.R0, sizeOf(f.Type)))
	}
	return off, true
}

// sizeOfField is the size of a scalar field in bytes.
func sizeOfField(t *types.Type) int {
	if t.Kind == types.Pointer {
		return 8
	}
	return t.Size
}
