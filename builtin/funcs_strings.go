package builtin

import (
	"math/bits"

	"github.com/cilium/ebpf/asm"

	"net/netip"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func checkStrlen(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 1) {
		return nil
	}
	t := c.Expr(e.Args[0])
	switch {
	case t == nil:
		return nil
	case t.Kind == types.Pointer:
		if !charPointer(c, e.Args[0], t) {
			return nil
		}
	case t.Kind != types.String:
		c.Errorf(e.Args[0], "strlen() needs a string, not %s", t)
		return nil
	}
	return types.Uint64
}

// evalStrlen is the length of the string before its NUL: the buffer holds
// at most Size-1 bytes before it.
func evalStrlen(args []EvalArg, _ int) (uint64, bool) {
	if len(args) != 1 || !args[0].IsStr {
		return 0, false
	}
	return uint64(min(len(args[0].Str), args[0].Size)), true
}

// charPointer checks that a string-like pointer points to int8, as
// bpftrace's stdlib asserts (char, uint8 and void pointers are refused:
// cast them to int8 *).
func charPointer(c Checker, x ast.Expr, t *types.Type) bool {
	if e := t.Elem; e == nil || e.Kind != types.Int || e.Size != 1 || !e.Signed || e.Enum() != nil {
		c.Errorf(x, "string-like pointers must point to a char-like type (int8 *), not %s", t)
		return false
	}
	return true
}

func checkStrncmp(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 3, 3) {
		return nil
	}
	for i := 0; i < 2; i++ {
		if t := c.Expr(e.Args[i]); t == nil {
			return nil
		} else if t.Kind != types.String {
			c.Errorf(e.Args[i], "strncmp() needs strings, not %s", t)
			return nil
		}
	}
	if n, ok := c.ConstInt(e, 2); !ok {
		return nil
	} else if n < 0 {
		c.Errorf(e.Args[2], "strncmp() length must not be negative")
		return nil
	}
	return types.Int64
}

// evalStrncmp is 0 when the first n bytes of the strings are equal, else 1.
func evalStrncmp(args []EvalArg, _ int) (uint64, bool) {
	if len(args) != 3 || !args[0].IsStr || !args[1].IsStr || args[2].IsStr {
		return 0, false
	}
	n := int(min(args[2].Bits, 1<<20))
	a, b := args[0].Str, args[1].Str
	if len(a) > n {
		a = a[:n]
	}
	if len(b) > n {
		b = b[:n]
	}
	if a != b {
		return 1, true
	}
	return 0, true
}

func checkBswap(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 1) {
		return nil
	}
	t := c.IntArg(e, 0)
	if t == nil {
		return nil
	}
	size := t.Size
	if t.Kind == types.Bool {
		size = 1
	}
	return types.NewInt(size, false)
}

// checkNtop types ntop([af,] addr): addr is an IPv4 address as an integer
// (network byte order, as loaded) or a 4- or 16-byte array.
func checkNtop(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 2) {
		return nil
	}
	if len(e.Args) == 2 && c.IntArg(e, 0) == nil {
		return nil
	}
	addr := e.Args[len(e.Args)-1]
	t := c.Expr(addr)
	if t == nil {
		return nil
	}
	switch {
	case t.IsInt():
	case (t.Kind == types.Array || t.Kind == types.String) && (t.Size == 4 || t.Size == 16):
	default:
		c.Errorf(addr, "ntop() needs an IPv4 address as an integer or a 4- or 16-byte array, not %s", t)
		return nil
	}
	return &types.Type{Kind: types.Inet, Size: 24}
}

// emitMemcmp compares count bytes of two buffers, unrolled: 0 when equal,
// else the difference of the first differing bytes.
func emitMemcmp(g Emitter, e *ast.Call) {
	a := g.Buffer(e.Args[0])
	b := g.Buffer(e.Args[1])
	cv, _ := g.ConstOf(e.Args[2])
	end := g.NewLabel("memcmpend")
	g.Emit(asm.Mov.Imm(asm.R0, 0))
	for i := range int16(cv.Int) {
		g.Emit(
			asm.LoadMem(asm.R1, g.Base(a+i), a+i, asm.Byte),
			asm.LoadMem(asm.R2, g.Base(b+i), b+i, asm.Byte),
			asm.Mov.Reg(asm.R0, asm.R1),
			asm.Sub.Reg(asm.R0, asm.R2),
			asm.JNE.Imm(asm.R0, 0, end),
		)
	}
	g.Mark(end)
}

func checkMemcmp(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 3, 3) {
		return nil
	}
	for i := 0; i < 2; i++ {
		t := c.Expr(e.Args[i])
		if t == nil {
			return nil
		}
		if !t.IsBuffer() {
			c.Errorf(e.Args[i], "memcmp() compares strings, arrays or tuples, not %s", t)
			return nil
		}
	}
	if n, ok := c.ConstInt(e, 2); !ok {
		return nil
	} else if n < 0 || int(n) > min(c.TypeOf(e.Args[0]).Size, c.TypeOf(e.Args[1]).Size) {
		c.Errorf(e.Args[2], "memcmp() count must be between 0 and the size of both operands")
		return nil
	}
	return types.Int64
}

// checkPton parses an IP address literal at compile time into its bytes
// (network byte order).
func checkPton(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 1) {
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.Errorf(e.Args[0], "pton() needs an address as a string literal")
		return nil
	}
	c.Expr(lit)
	addr, err := netip.ParseAddr(lit.Value)
	if err != nil {
		c.Errorf(lit, "pton(%q): not an IPv4 or IPv6 address", lit.Value)
		return nil
	}
	b := addr.AsSlice()
	c.SetConst(e, Const{IsStr: true, Str: string(b)})
	return &types.Type{Kind: types.Array, Size: len(b), Len: len(b), Elem: types.Uint8}
}

// checkMacaddr types macaddr(addr): six bytes printed as a MAC address.
func checkMacaddr(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 1) {
		return nil
	}
	t := c.Expr(e.Args[0])
	if t == nil {
		return nil
	}
	if _, ok := ast.Unparen(e.Args[0]).(*ast.StrLit); ok {
		// as bpftrace 0.27, at the call
		c.Errorf(e, "macaddr() does not support literal string arguments")
		return nil
	}
	if !(t.Kind == types.Pointer || t.IsInt() || (t.Kind == types.Array || t.Kind == types.String) && t.Size >= 6) {
		c.Errorf(e.Args[0], "macaddr() needs a pointer to or an array of 6 bytes, not %s", t)
		return nil
	}
	return &types.Type{Kind: types.MacAddr, Size: 8}
}

// checkStrConcat types str_concat(a, b): bpftrace's string[1024], which
// holds the first 1023 bytes of a then b.
func checkStrConcat(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 2, 2) {
		return nil
	}
	for i := 0; i < 2; i++ {
		t := c.Expr(e.Args[i])
		if t == nil {
			return nil
		}
		if t.Kind != types.String {
			c.Errorf(e.Args[i], "str_concat() needs strings, not %s", t)
			return nil
		}
	}
	// bpftrace's stdlib builds the result in a string[1024] (its
	// sizeof, strcap and typeinfo say so) and cuts a longer
	// concatenation there.
	return types.NewString(strConcatSize)
}

// strConcatSize is the size of the string bpftrace's str_concat returns.
const strConcatSize = 1024

// checkStrPair types strcontains(haystack, needle) and strstr.
func checkStrPair(result *types.Type) func(Checker, *ast.Call) *types.Type {
	return func(c Checker, e *ast.Call) *types.Type {
		if !c.WantArgs(e, 2, 2) {
			return nil
		}
		for i := 0; i < 2; i++ {
			t := c.Expr(e.Args[i])
			if t == nil {
				return nil
			}
			if t.Kind != types.String {
				c.Errorf(e.Args[i], "%s() needs strings, not %s", e.Name, t)
				return nil
			}
		}
		return result
	}
}

// bufferType is the type of buf(): bytes printed with %r.
func bufferType(n int) *types.Type {
	return &types.Type{Kind: types.Array, Size: n, Len: n, Elem: types.Uint8, Name: types.BufferName}
}

// checkBuf types buf(data[, length]): length bytes read from data (a
// pointer, an array or a string). A constant length (or the array's
// size) is part of the type, at most max_strlen; a length known only at
// run time makes a Buf of max_strlen-4 bytes that carries the length, as
// bpftrace 0.26's buffers do (a larger or negative length reads
// max_strlen-4 bytes).
func checkBuf(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 2) {
		return nil
	}
	t := c.Expr(e.Args[0])
	if t == nil {
		return nil
	}
	n := 0
	switch {
	case len(e.Args) == 2:
		if c.IntArg(e, 1) == nil {
			return nil
		}
		cv, isConst := c.ConstOf(e.Args[1])
		if !isConst {
			n = -1 // known at run time
			break
		}
		n = int(int64(cv.Int))
		if n <= 0 || n > c.MaxStrlen() {
			c.Errorf(e, "buf() length must be between 1 and max_strlen (%d)", c.MaxStrlen())
			return nil
		}
	case t.Kind == types.Array || t.Kind == types.String:
		n = t.Size
	default:
		c.Errorf(e, "buf() of %s needs a length", t)
		return nil
	}
	if t.Kind != types.Pointer && !t.IsInt() && t.Kind != types.Array && t.Kind != types.String {
		c.Errorf(e.Args[0], "buf() reads from a pointer or an array, not %s", t)
		return nil
	}
	if n < 0 {
		if c.MaxStrlen() <= types.BufHeader {
			c.Errorf(e, "buf() of a run-time length needs max_strlen above %d", types.BufHeader)
			return nil
		}
		return types.NewBuf(c.MaxStrlen() - types.BufHeader)
	}
	if n > c.MaxStrlen() {
		c.Errorf(e, "buf() length must be between 1 and max_strlen (%d)", c.MaxStrlen())
		return nil
	}
	return bufferType(n)
}

// evalBswap reverses the bytes of an integer of the call's size.
func evalBswap(args []EvalArg, size int) (uint64, bool) {
	if len(args) != 1 || args[0].IsStr {
		return 0, false
	}
	x := args[0].Bits
	switch size {
	case 1:
		return x, true
	case 2:
		return uint64(bits.ReverseBytes16(uint16(x))), true
	case 4:
		return uint64(bits.ReverseBytes32(uint32(x))), true
	}
	return bits.ReverseBytes64(x), true
}
