package handprog

import "github.com/cilium/ebpf/asm"

// Counter adds 1 to the 8-byte value at key 0 (a 4-byte key) of the array
// map that loadMap loads into R1, e.g. asm.LoadMapPtr(asm.R1, m.FD()) or
// asm.LoadMapPtr(asm.R1, 0).WithReference("counts").
func Counter(loadMap asm.Instruction) asm.Instructions {
	return append(asm.Instructions{asm.StoreImm(asm.RFP, -4, 0, asm.Word)}, Increment(loadMap)...)
}

// Increment adds 1 to the 8-byte value of the map loadMap loads into R1 at
// the 4-byte key the program stored at R10-4, and returns 0.
func Increment(loadMap asm.Instruction) asm.Instructions {
	return asm.Instructions{
		loadMap,
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
}
