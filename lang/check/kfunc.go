package check

import (
	"fmt"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// kfuncArgs builds the args record of a kernel-function probe from its BTF
// prototype: a field's offset is 8 times its argument slot (a trampoline's
// context, provider.ArgSlots) or, with regs, its register (pt_regs,
// provider.ArgRegisters). A struct passed by value has no field, but takes
// its slots or registers: the arguments after it move along.
func (c *checker) kfuncArgs(pt *provider.Point, regs bool) (*types.Type, string) {
	proto := pt.FuncProto()
	if proto == nil {
		if base, suffix, ok := provider.RenamedFunc(pt.Func); ok {
			return nil, fmt.Sprintf("args is not available for %s: the compiler renamed %s (%s) and may have changed its arguments, and BTF has no prototype for a renamed function; read them with arg0, arg1, ...", pt.Name, base, suffix)
		}
		return nil, fmt.Sprintf("args is not available for %s: no BTF prototype", pt.Name)
	}
	slots, total := provider.ArgSlots(proto)
	if regs {
		slots, total = provider.ArgRegisters(proto), 0
		for i, r := range slots {
			if r >= 0 {
				total = r + provider.ArgWords(proto.Params[i].Type)
			}
		}
	}
	rec := &types.Type{Kind: types.Record, Args: true}
	for i, p := range proto.Params {
		// Without a __user tag the address space of an argument is unknown:
		// it is read with the helpers that work for both (x86).
		t := btfToType(p.Type, types.NoAS)
		if t == nil || t.Kind == types.Struct || t.Kind == types.Array {
			// passed by value in several registers: not addressable as one slot
			continue
		}
		if slots[i] < 0 {
			continue // on the stack, not in a register
		}
		name := p.Name
		if name == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		rec.Fields = append(rec.Fields, types.Field{Name: name, Type: t, Offset: 8 * slots[i]})
	}
	// args as a whole value (print(args), @ = args) is the slots copied
	// out, a struct passed by value left as zeros without a field.
	rec.Size = 8 * total
	return rec, ""
}

// argRegisters are the x86-64 registers that carry the first arguments.
var argRegisters = []string{"di", "si", "dx", "cx", "r8", "r9"}
