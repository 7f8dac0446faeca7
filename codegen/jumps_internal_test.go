package codegen

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/cilium/ebpf/asm"
)

// farProgram is a program whose jumps (ja, jeq, jset) all skip a body of n
// instructions to label "end".
func farProgram(n int) asm.Instructions {
	insns := asm.Instructions{
		asm.Mov.Imm(asm.R0, 0),
		asm.JEq.Imm(asm.R0, 2, "end"),
		asm.JSet.Imm(asm.R0, 4, "end"),
		asm.Ja.Label("end"),
	}
	for i := 0; i < n; i++ {
		insns = append(insns, asm.Add.Imm(asm.R0, 1))
	}
	return append(insns, asm.Return().WithSymbol("end"))
}

// jumpTargets resolves every jump to the index of its target instruction,
// from the encoded offsets, as the kernel reads them.
func jumpTargets(t *testing.T, insns asm.Instructions) map[int]int {
	t.Helper()
	var b strings.Builder
	if err := insns.Marshal(&b, binary.LittleEndian); err != nil {
		t.Fatal(err)
	}
	dec, err := asm.AppendInstructions(nil, strings.NewReader(b.String()), binary.LittleEndian, "linux")
	if err != nil {
		t.Fatal(err)
	}
	index := map[int]int{} // raw offset → instruction index
	off := 0
	for i, ins := range dec {
		index[off] = i
		off += int(ins.Size() / asm.InstructionSize)
	}
	targets := map[int]int{}
	off = 0
	for i, ins := range dec {
		if ins.OpCode.Class().IsJump() && ins.OpCode.JumpOp() != asm.Call && ins.OpCode.JumpOp() != asm.Exit {
			d := int(ins.Offset)
			if ins.OpCode == longJumpOp {
				d = int(ins.Constant)
			}
			to, ok := index[off+1+d]
			if !ok {
				t.Fatalf("instruction %d (%v) jumps into nowhere", i, ins)
			}
			targets[i] = to
		}
		off += int(ins.Size() / asm.InstructionSize)
	}
	return targets
}

func TestRelaxJumps(t *testing.T) {
	const body = math.MaxInt16 + 10
	n := 0
	newLabel := func() string { n++; return fmt.Sprintf("far_%d", n) }
	insns, _, err := relaxJumps(farProgram(body), true, newLabel)
	if err != nil {
		t.Fatal(err)
	}
	// jne r0, 2 → L1; gotol end; L1: jset r0, 4 → L2; ja L3; L2: gotol end; L3: gotol end
	want := []string{"MovImm", "JNEImm", "Ja32", "JSetImm", "Ja", "Ja32", "Ja32", "AddImm"}
	for i, w := range want {
		if got := fmt.Sprint(insns[i].OpCode); got != w {
			t.Errorf("instruction %d is %s, want %s:\n%v", i, got, w, insns[:len(want)])
		}
	}
	end := len(insns) - 1
	targets := jumpTargets(t, insns)
	for from, to := range map[int]int{1: 3, 2: end, 3: 5, 4: 6, 5: end, 6: end} {
		if targets[from] != to {
			t.Errorf("instruction %d (%v) jumps to %d, want %d", from, insns[from], targets[from], to)
		}
	}

	// Jumps that fit are left alone.
	short := farProgram(100)
	got, _, err := relaxJumps(append(asm.Instructions(nil), short...), true, newLabel)
	if err != nil || len(got) != len(short) || fmt.Sprint(got[3].OpCode) != "Ja" {
		t.Errorf("short jumps changed: %v, %v", err, got[:4])
	}

	// Without gotol a far jump is an error naming the jump.
	_, at, err := relaxJumps(farProgram(body), false, newLabel)
	if err == nil || at != 1 || !strings.Contains(err.Error(), "jump out of range") {
		t.Errorf("without long jumps: at %d, %v", at, err)
	}
}
