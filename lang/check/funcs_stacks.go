package check

import (
	"debug/elf"
	"errors"
	"fmt"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// checkKaddr resolves kaddr("symbol") to the symbol's address at compile
// time.
func checkKaddr(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	name, ok := c.constString(e.Args[0])
	if !ok {
		c.errorf(e.Args[0], "kaddr() needs a symbol name as a string literal")
		return nil
	}
	sr, ok := c.env.(SymbolResolver)
	if !ok {
		c.errorf(e, "kaddr() needs the kernel's symbols (/proc/kallsyms)")
		return nil
	}
	addr, err := sr.KernelSymbol(name)
	if errors.Is(err, ErrNoSymbol) {
		c.errorf(e, "Failed to resolve kernel symbol: %s", name)
		return nil
	}
	if err != nil {
		c.errorf(e, "Failed to resolve kernel symbol: %s: %v", name, err)
		return nil
	}
	c.info.Consts[e] = builtin.Const{Int: addr}
	return &types.Type{Kind: types.Int, Size: 8, AS: types.Kernel} // a pointer made from it reads kernel memory
}

// constString checks x and returns its value when it is a string known
// at compile time: a literal, or str($1) of a positional parameter.
func (c *checker) constString(x ast.Expr) (string, bool) {
	if c.expr(x) == nil {
		return "", false
	}
	cv, ok := c.info.Consts[x]
	return cv.Str, ok && cv.IsStr
}

// checkUaddr resolves uaddr("symbol") in a uprobe's binary: the symbol's
// address in the ELF file, a constant for an executable (ET_EXEC); in a
// position-independent file (a PIE executable, a shared library) plus the
// address the traced process mapped the file at, found at run time (see
// Info.Uaddrs), as bpftrace 0.26 does. The pointer's element is an
// unsigned integer of the symbol's size (1, 2, 4 or 8 bytes), else uint64.
func checkUaddr(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 1) {
		return nil
	}
	pt := c.probe.Points[0]
	if !c.probe.Def().UserBinary {
		c.errorf(e, "uaddr() is only available in uprobe and uretprobe probes")
		return nil
	}
	name, ok := c.constString(e.Args[0])
	if !ok {
		c.errorf(e.Args[0], "uaddr() needs a symbol name as a string literal")
		return nil
	}
	sym, err := c.elfSymbolInfo(pt.Module, name)
	if err != nil {
		c.errorf(e.Args[0], "uaddr(%q): %v", name, err)
		return nil
	}
	elem := types.Uint64
	switch sym.Size {
	case 1:
		elem = types.Uint8
	case 2:
		elem = types.Uint16
	case 4:
		elem = types.Uint32
	}
	t := &types.Type{Kind: types.Pointer, Size: 8, Elem: elem, AS: types.User}
	if et, ok := c.env.(ELFTypes); ok {
		typ, err := et.ELFType(pt.Module)
		if err != nil {
			c.errorf(e.Args[0], "uaddr(%q): %v", name, err)
			return nil
		}
		if typ == elf.ET_DYN {
			if err := c.vmaLayout(); err != nil {
				c.errorf(e, "uaddr() in a position-independent file needs kernel BTF: %v", err)
				return nil
			}
			h, _ := c.hostFiles()
			ino, err := h.Inode(pt.Module)
			if err != nil {
				c.errorf(e.Args[0], "uaddr(%q): %s: %v", name, pt.Module, err)
				return nil
			}
			c.info.Uaddrs[e] = Uaddr{Addr: sym.Value, Ino: ino}
			return t
		}
	}
	c.info.Consts[e] = builtin.Const{Int: sym.Value}
	return t
}

// vmaLayout looks up the members uaddr() of a position-independent file
// reads.
func (c *checker) vmaLayout() error {
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return fmt.Errorf("no BTF: %v", err)
	}
	var l VMALayout
	for _, m := range []struct {
		typ, name string
		off       *int
	}{
		{"vm_area_struct", "vm_start", &l.VMStart}, {"vm_area_struct", "vm_pgoff", &l.VMPgoff},
		{"vm_area_struct", "vm_file", &l.VMFile}, {"file", "f_inode", &l.FInode}, {"inode", "i_ino", &l.IIno},
	} {
		var st *btf.Struct
		if err := spec.TypeByName(m.typ, &st); err != nil {
			return err
		}
		f, _, err := findMember(st, m.name)
		if err != nil {
			return fmt.Errorf("%s.%s: %w", m.typ, m.name, err)
		}
		*m.off = f.Offset
	}
	c.prog.VMA = l
	return nil
}
