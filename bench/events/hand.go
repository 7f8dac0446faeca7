package main

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/internal/handprog"
)

// The reference programs, written by hand as one would with cilium/ebpf.

// handCount: tracepoint:syscalls:sys_enter_getppid { @ = count(); }
func handCount() (*ebpf.Collection, link.Link, error) {
	insns := handprog.Counter(asm.LoadMapPtr(asm.R1, 0).WithReference("counts"))
	return load(insns, 1, "syscalls", "sys_enter_getppid")
}

// handHist: tracepoint:raw_syscalls:sys_enter /pid == PID/ { @ = hist(nsecs & 1023); }
func handHist(pid int) (*ebpf.Collection, link.Link, error) {
	insns := asm.Instructions{
		asm.FnGetCurrentPidTgid.Call(),
		asm.RSh.Imm(asm.R0, 32),
		asm.JNE.Imm(asm.R0, int32(pid), "out"),
		asm.FnKtimeGetNs.Call(),
		asm.And.Imm(asm.R0, 1023),
		// bucket: 0 for v < 0, 1 for 0, 2 + floor(log2 v) otherwise
		asm.Mov.Reg(asm.R1, asm.R0),
		asm.Mov.Imm(asm.R0, 0),
		asm.JSLT.Imm(asm.R1, 0, "bucket"),
		asm.Mov.Imm(asm.R0, 1),
		asm.JEq.Imm(asm.R1, 0, "bucket"),
		asm.Mov.Imm(asm.R0, 2),
		asm.Mov.Reg(asm.R2, asm.R1),
		asm.RSh.Imm(asm.R2, 32),
		asm.JEq.Imm(asm.R2, 0, "s16"),
		asm.Mov.Reg(asm.R1, asm.R2),
		asm.Add.Imm(asm.R0, 32),
	}
	next := "s16"
	for _, s := range []int32{16, 8, 4, 2, 1} {
		label := next
		next = fmt.Sprintf("s%d", s/2)
		if s == 1 {
			next = "bucket"
		}
		insns = append(insns,
			asm.JLT.Imm(asm.R1, 1<<s, next).WithSymbol(label),
			asm.RSh.Imm(asm.R1, s),
			asm.Add.Imm(asm.R0, s),
		)
	}
	insns = append(insns, asm.StoreMem(asm.RFP, -4, asm.R0, asm.Word).WithSymbol("bucket"))
	insns = append(insns, handprog.Increment(asm.LoadMapPtr(asm.R1, 0).WithReference("counts"))...)
	return load(insns, 65, "raw_syscalls", "sys_enter")
}

// load creates the per-CPU array "counts" of n uint64 slots, loads insns
// as a tracepoint program and attaches it to group:name.
func load(insns asm.Instructions, n uint32, group, name string) (*ebpf.Collection, link.Link, error) {
	spec := &ebpf.CollectionSpec{
		Maps: map[string]*ebpf.MapSpec{
			"counts": {Name: "counts", Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: n},
		},
		Programs: map[string]*ebpf.ProgramSpec{
			"prog": {Name: "hand", Type: ebpf.TracePoint, Instructions: insns, License: "GPL"},
		},
	}
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		return nil, nil, fmt.Errorf("load: %w", err)
	}
	l, err := link.Tracepoint(group, name, coll.Programs["prog"], nil)
	if err != nil {
		coll.Close()
		return nil, nil, fmt.Errorf("attach: %w", err)
	}
	return coll, l, nil
}
