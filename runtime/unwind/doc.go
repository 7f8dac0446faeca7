// Package unwind walks a user stack with the DWARF call frame information
// (CFI) of the objects mapped in the process, as perf --call-graph dwarf
// does: the BPF program copies the registers a walk starts from (ip, sp,
// bp) and a bounded chunk of the user stack from sp into a Sample, and
// Unwind replays the CFA rules of .eh_frame (and of .debug_frame where a
// file has one) over that copy, frame by frame, until a rule, an address
// or the copied bytes run out.
//
// The rules are parsed and evaluated by delve's pkg/dwarf/frame and
// pkg/dwarf/op. Only x86-64 is supported (DWARF registers 6 rbp, 7 rsp,
// 16 the return address).
package unwind
