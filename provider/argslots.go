package provider

import "github.com/cilium/ebpf/btf"

// ArgSlots places the parameters of a kernel function in a BPF
// trampoline's context (fentry, fexit, tp_btf): slots[i] is the 8-byte
// slot where parameter i starts, and total is the number of slots all of
// them take, which is also fexit's retval slot. Each parameter takes its
// size rounded up to 8 bytes, as the kernel lays the context out
// (get_ctx_arg_idx): a 9–16 byte struct passed by value (bpfptr_t,
// sockptr_t) takes two slots and moves every later argument along.
func ArgSlots(proto *btf.FuncProto) (slots []int, total int) {
	slots = make([]int, len(proto.Params))
	for i, p := range proto.Params {
		slots[i] = total
		total += ArgWords(p.Type)
	}
	return slots, total
}

// ArgRegisters places the parameters of a kernel function in the x86-64
// argument registers (di, si, dx, cx, r8, r9) of a kprobe's pt_regs: regs[i]
// is the index of the first register of parameter i, or -1 when it is
// passed on the stack. A struct of up to 16 bytes takes two registers when
// two are left and goes to the stack otherwise, a larger one always goes to
// the stack; later scalars still take the registers left (System V ABI).
func ArgRegisters(proto *btf.FuncProto) []int {
	const nregs = 6
	regs := make([]int, len(proto.Params))
	next := 0
	for i, p := range proto.Params {
		regs[i] = -1
		n := ArgWords(p.Type)
		if n > 2 || next+n > nregs {
			continue
		}
		regs[i] = next
		next += n
	}
	return regs
}

// ArgWords is the number of 8-byte words a parameter of type t takes:
// its size rounded up, at least one (a varargs marker or an unsized type).
func ArgWords(t btf.Type) int {
	size, err := btf.Sizeof(t)
	if err != nil || size <= 8 {
		return 1
	}
	return (size + 7) / 8
}
