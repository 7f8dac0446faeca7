package check

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/debuginfo"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// debugInfo returns the DWARF of the binary of the probe being checked, or
// nil with the reason.
func (c *checker) debugInfo(pt *provider.Point) (*debuginfo.File, error) {
	di, ok := c.env.(provider.DebugInfo)
	if !ok {
		return nil, provider.ErrNoHostFiles
	}
	return di.DebugInfo(pt.Module)
}

// dwarfArgs builds the args record of a uprobe from the DWARF of its
// binary. Parameters are placed in registers the way the x86-64 SysV ABI
// passes them: each integer, enum or pointer takes the next of rdi, rsi,
// rdx, rcx, r8, r9 (field offset 8*register); a parameter that cannot be
// read from one register (a float, a struct by value, a 128-bit integer,
// a seventh integer) is left out and its reason kept for args.NAME.
func (c *checker) dwarfArgs(pt *provider.Point) (*types.Type, string) {
	def := c.probe.Def()
	if pt.Offset != 0 {
		return nil, fmt.Sprintf("args is only available at the entry of a function, not at %s", pt.Name)
	}
	f, err := c.debugInfo(pt)
	if err != nil {
		if errors.Is(err, debuginfo.ErrNoDWARF) {
			return nil, def.ArgsErr
		}
		return nil, fmt.Sprintf("args: %v", err)
	}
	fn, err := f.Func(pt.Func)
	if err != nil {
		if errors.Is(err, debuginfo.ErrNoFunc) {
			return nil, fmt.Sprintf("args needs DWARF debug information for %s: the DWARF of %s does not describe it: use arg0...arg5", pt.Func, pt.Module)
		}
		return nil, fmt.Sprintf("args: %v", err)
	}
	rec := &types.Type{Kind: types.Record, Args: true}
	c.info.ArgsUnplaced = map[string]string{}
	reg := 0
	for i, p := range fn.Params {
		name := p.Name
		if name == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		n, why := sysvRegisters(p.Type)
		if why == "" && reg+n > len(argRegisters) {
			why = "it is passed on the stack (only the first six integer arguments are in registers)"
		}
		if why == "" && (n != 1 || isComposite(p.Type)) {
			why = "it is passed by value in registers, which gotrace does not reassemble"
		}
		if why != "" {
			c.info.ArgsUnplaced[name] = fmt.Sprintf("argument %s (%s) of %s cannot be read: %s", name, p.C, pt.Func, why)
			reg += n
			continue
		}
		t := btfToType(p.Type, types.User)
		if t == nil {
			c.info.ArgsUnplaced[name] = fmt.Sprintf("argument %s of %s has type %s, which is not supported", name, pt.Func, p.C)
			reg++
			continue
		}
		rec.Fields = append(rec.Fields, types.Field{Name: name, Type: t, Offset: 8 * reg})
		reg++
	}
	rec.Size = 8 * reg
	return rec, ""
}

// sysvRegisters returns how many integer registers the SysV ABI uses to pass
// a parameter of type t, or why it is not passed in integer registers.
func sysvRegisters(t btf.Type) (int, string) {
	t = btf.UnderlyingType(t)
	switch v := t.(type) {
	case *btf.Int:
		if v.Size > 8 {
			return 2, ""
		}
		return 1, ""
	case *btf.Enum, *btf.Pointer:
		return 1, ""
	case *btf.Float:
		return 0, "floating-point arguments are passed in SSE registers, which uprobes cannot read"
	case *btf.Struct, *btf.Union:
		size, _ := btf.Sizeof(v)
		if size > 16 {
			return 0, fmt.Sprintf("a struct of %d bytes by value is passed on the stack", size)
		}
		return (size + 7) / 8, ""
	}
	return 0, "its type is not supported"
}

// argsUnplaced returns why a uprobe parameter named name is missing from
// args, or "".
func (c *checker) argsUnplaced(name string) string {
	return c.info.ArgsUnplaced[name]
}

// dwarfType finds a struct, union, enum or typedef in the DWARF of the
// binary of the uprobe being checked: user types that the kernel's BTF
// does not have. It returns nil when there is none.
func (c *checker) dwarfType(name string) btf.Type {
	if c.probe == nil || !c.probe.Def().UserBinary {
		return nil
	}
	f, err := c.debugInfo(c.probe.Points[0])
	if err != nil {
		return nil
	}
	t, err := f.Type(name)
	if err != nil {
		return nil
	}
	return t
}

// isComposite reports whether t is a struct or union.
func isComposite(t btf.Type) bool {
	switch btf.UnderlyingType(t).(type) {
	case *btf.Struct, *btf.Union:
		return true
	}
	return false
}
