package codegen

import (
	"errors"
	"fmt"
	"math"

	"github.com/cilium/ebpf/asm"
)

// ErrJumpRange is returned (wrapped, with the script position) when a jump
// spans more than 32,767 instructions and the kernel has no 32-bit jump
// (Options.LongJumps).
var ErrJumpRange = errors.New("jump out of range")

// longJumpOp is gotol: BPF_JMP32 | BPF_JA with the distance in the 32-bit
// immediate (Linux 6.4+).
var longJumpOp = asm.OpCode(asm.Jump32Class).SetJumpOp(asm.Ja).SetSource(asm.ImmSource)

// invertJump maps a conditional jump to the one taken in the other case;
// JSet has no inverse.
var invertJump = map[asm.JumpOp]asm.JumpOp{
	asm.JEq: asm.JNE, asm.JNE: asm.JEq,
	asm.JGT: asm.JLE, asm.JLE: asm.JGT,
	asm.JGE: asm.JLT, asm.JLT: asm.JGE,
	asm.JSGT: asm.JSLE, asm.JSLE: asm.JSGT,
	asm.JSGE: asm.JSLT, asm.JSLT: asm.JSGE,
}

// farJump is a jump whose distance does not fit its 16-bit offset.
type farJump struct {
	index int // in the instruction slice
	dist  int // in raw instructions
}

// relaxJumps makes every jump reach its label. Jump offsets are 16 bits
// (±32,767 instructions), and cilium/ebpf truncates a longer distance when
// it encodes the program, so the distances are checked here, after layout.
// With long set (the kernel has gotol), a far unconditional jump becomes
// gotol, and a far conditional jump becomes the inverted condition around
// a gotol:
//
//	if r1 == 0 goto far        if r1 != 0 goto next
//	                    →      gotol far
//	                           next:
//
// (JSet, which has no inverse, jumps over an ordinary jump to next onto the
// gotol.) Inserted instructions lengthen other jumps, so the pass repeats
// until every jump fits. Without long, a far jump is an error; its index
// is returned so that the caller can name the script position.
func relaxJumps(insns asm.Instructions, long bool, newLabel func() string) (asm.Instructions, int, error) {
	for {
		far := farJumps(insns)
		if len(far) == 0 {
			return insns, -1, nil
		}
		if !long {
			f := far[0]
			return insns, f.index, fmt.Errorf("%w: a jump over %d instructions (the limit is %d without the kernel's 32-bit jumps, Linux 6.4 or later): split the script's long branches", ErrJumpRange, f.dist, math.MaxInt16)
		}
		out := make(asm.Instructions, 0, len(insns)+2*len(far))
		next := 0
		for _, f := range far {
			out = append(out, insns[next:f.index]...)
			next = f.index + 1
			ins := insns[f.index]
			target := ins.Reference()
			if ins.OpCode.JumpOp() == asm.Ja {
				out = append(out, toLongJump(ins))
				continue
			}
			// The instruction after the conditional jump gets a label
			// the inverted jump can reach.
			after := insns[next].Symbol()
			if after == "" {
				after = newLabel()
				insns[next] = insns[next].WithSymbol(after)
			}
			gotol := asm.LongJump(target)
			if inv, ok := invertJump[ins.OpCode.JumpOp()]; ok {
				ins.OpCode = ins.OpCode.SetJumpOp(inv)
				out = append(out, ins.WithReference(after), gotol)
				continue
			}
			onto := newLabel()
			out = append(out,
				ins.WithReference(onto),
				asm.Ja.Label(after),
				gotol.WithSymbol(onto),
			)
		}
		insns = append(out, insns[next:]...)
	}
}

// toLongJump turns ja into gotol, keeping its label and source tag.
func toLongJump(ins asm.Instruction) asm.Instruction {
	ins.OpCode = longJumpOp
	ins.Offset = 0
	ins.Constant = -1
	return ins
}

// farJumps lists the jumps (in instruction order) whose distance does not
// fit the 16-bit offset field.
func farJumps(insns asm.Instructions) []farJump {
	offsets := make([]int, len(insns))
	symbols := make(map[string]int)
	off := 0
	for i, ins := range insns {
		offsets[i] = off
		if s := ins.Symbol(); s != "" {
			symbols[s] = off
		}
		off += int(ins.Size() / asm.InstructionSize)
	}
	var far []farJump
	for i, ins := range insns {
		ref := ins.Reference()
		if ref == "" || !ins.OpCode.Class().IsJump() || ins.IsFunctionReference() || ins.OpCode == longJumpOp {
			continue
		}
		if op := ins.OpCode.JumpOp(); op == asm.Call || op == asm.Exit {
			continue
		}
		to, ok := symbols[ref]
		if !ok {
			continue // reported by the encoder
		}
		d := to - offsets[i] - 1
		if d < math.MinInt16 || d > math.MaxInt16 {
			far = append(far, farJump{index: i, dist: d})
		}
	}
	return far
}
