package codegen

import (
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
)

// peephole removes instructions that do nothing: register moves onto
// themselves, jumps to the next instruction, and the context save of a
// program that never reads its context. A removed instruction hands its
// label and source tag to the next one. Code generation still avoids
// emitting them where it can; this pass guarantees none is executed.
func peephole(insns asm.Instructions) asm.Instructions {
	if len(insns) > 1 && isCtxSave(insns[0]) && btf.FuncMetadata(&insns[0]) == nil && !usesReg(insns[1:], rCtx) {
		insns = removeAt(insns, 0, nil)
	}
	for {
		aliases := map[string]string{}
		n := len(insns)
		insns = removeIf(insns, aliases, isSelfMove)
		insns = resolve(insns, aliases)
		insns = removeIf(insns, aliases, nil) // jumps to the next instruction
		insns = resolve(insns, aliases)
		if len(insns) == n {
			return insns
		}
	}
}

func isCtxSave(ins asm.Instruction) bool {
	return ins.OpCode == asm.Mov.Op(asm.RegSource) && ins.Dst == rCtx && ins.Src == asm.R1
}

// usesReg reports whether any instruction names r as source or destination.
func usesReg(insns asm.Instructions, r asm.Register) bool {
	for _, ins := range insns {
		if ins.Dst == r || (ins.Src == r && !ins.OpCode.IsDWordLoad()) {
			return true
		}
	}
	return false
}

// isSelfMove reports whether ins is a 64-bit mov of a register onto itself.
func isSelfMove(ins asm.Instruction) bool {
	return ins.OpCode == asm.Mov.Op(asm.RegSource) && ins.Dst == ins.Src
}

// isJumpToNext reports whether ins is an unconditional jump to label next.
func isJumpToNext(ins asm.Instruction, next string) bool {
	return ins.OpCode.JumpOp() == asm.Ja && ins.OpCode.Class() == asm.JumpClass &&
		next != "" && ins.Reference() == next
}

// removeIf drops the instructions that match drop (nil: jumps to the next
// instruction), recording in aliases the labels they carried.
func removeIf(insns asm.Instructions, aliases map[string]string, drop func(asm.Instruction) bool) asm.Instructions {
	out := insns[:0]
	for i := 0; i < len(insns); i++ {
		ins := insns[i]
		remove := false
		if btf.FuncMetadata(&ins) == nil && i+1 < len(insns) {
			if drop != nil {
				remove = drop(ins)
			} else {
				remove = isJumpToNext(ins, insns[i+1].Symbol())
			}
		}
		if !remove {
			out = append(out, ins)
			continue
		}
		insns[i+1] = handOver(ins, insns[i+1], aliases)
	}
	return out
}

// removeAt drops insns[i], handing its label and source to insns[i+1].
func removeAt(insns asm.Instructions, i int, aliases map[string]string) asm.Instructions {
	if i+1 < len(insns) {
		insns[i+1] = handOver(insns[i], insns[i+1], aliases)
	}
	return append(insns[:i], insns[i+1:]...)
}

// handOver moves the label and source tag of a removed instruction to next.
func handOver(removed, next asm.Instruction, aliases map[string]string) asm.Instruction {
	if sym := removed.Symbol(); sym != "" {
		if next.Symbol() == "" {
			next = next.WithSymbol(sym)
		} else if aliases != nil {
			aliases[sym] = next.Symbol()
		}
	}
	if src := removed.Source(); src != nil && next.Source() == nil {
		next = next.WithSource(src)
	}
	return next
}

// resolve points references at the labels that replaced removed ones.
func resolve(insns asm.Instructions, aliases map[string]string) asm.Instructions {
	if len(aliases) == 0 {
		return insns
	}
	for i := range insns {
		ref := insns[i].Reference()
		to, ok := aliases[ref]
		if !ok {
			continue
		}
		for {
			next, ok := aliases[to]
			if !ok {
				break
			}
			to = next
		}
		insns[i] = insns[i].WithReference(to)
	}
	return insns
}
