package builtin

import (
	"strings"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// maxPrintkArgs is how many arguments bpf_trace_printk takes after its
// format.
const maxPrintkArgs = 3

// printkConversions are the conversions bpf_trace_printk accepts, with
// whether they take a string (else an integer), as bpftrace's debugf.
var printkConversions = map[byte]bool{'d': false, 'u': false, 'x': false, 'p': false, 's': true}

// printkSpecs returns the conversion letters of a format ("%%" is none),
// or the first unknown one.
func printkSpecs(format string) (specs []byte, bad string) {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		j := i + 1
		for j < len(format) && strings.IndexByte("-+ #0123456789.l", format[j]) >= 0 {
			j++
		}
		if j == len(format) {
			return nil, format[i:]
		}
		if format[j] == '%' && j == i+1 {
			i = j
			continue
		}
		if _, ok := printkConversions[format[j]]; !ok {
			return nil, format[i : j+1]
		}
		specs = append(specs, format[j])
		i = j
	}
	return specs, ""
}

func init() {
	// debugf(fmt, args...) prints to the kernel's trace pipe with
	// bpf_trace_printk (bpftrace 0.26): at most three arguments, and only
	// the conversions %d %u %x %p (integers) and %s (strings).
	defFuncs(&Func{Name: "debugf", Result: types.Void,
		Check: func(c Checker, e *ast.Call) *types.Type {
			c.Warnf(e, "The debugf() builtin is not recommended for production use. For more information see bpf_trace_printk in bpf-helpers(7).")
			if !c.WantArgs(e, 1, 1+maxPrintkArgs) {
				return nil
			}
			lit, ok := e.Args[0].(*ast.StrLit)
			if !ok {
				c.Errorf(e.Args[0].Pos(), "debugf() needs a string literal format")
				return nil
			}
			c.Expr(lit)
			specs, bad := printkSpecs(lit.Value)
			if bad != "" {
				c.Errorf(lit.Pos(), "invalid format specifier for debugf(): %s", bad)
				return nil
			}
			if len(specs) != len(e.Args)-1 {
				c.Errorf(e.Pos(), "debugf() format has %d conversions but %d arguments", len(specs), len(e.Args)-1)
				return nil
			}
			for i, a := range e.Args[1:] {
				t := c.Expr(a)
				if t == nil {
					return nil
				}
				if wantStr := printkConversions[specs[i]]; wantStr != (t.Kind == types.String) || !wantStr && !t.IsInt() && t.Kind != types.Pointer && t.Kind != types.Bool {
					c.Errorf(a.Pos(), "type %s does not match format specifier %%%c", t, specs[i])
					return nil
				}
			}
			return types.VoidT
		},
		Emit: func(g Emitter, e *ast.Call) {
			// Arguments first (they clobber registers): integers in stack
			// slots, strings as stack buffers passed by address.
			type slot struct {
				off int16
				str bool
			}
			var slots []slot
			for _, a := range e.Args[1:] {
				if g.TypeOf(a).Kind == types.String {
					slots = append(slots, slot{g.Buffer(a), true})
					continue
				}
				g.Scalar(a)
				off := g.AllocScalar(a.Pos())
				g.Emit(asm.StoreMem(g.Base(off), off, asm.R0, asm.DWord))
				slots = append(slots, slot{off, false})
			}
			format := g.Buffer(e.Args[0])
			g.Emit(
				asm.Mov.Reg(asm.R1, g.Base(format)),
				asm.Add.Imm(asm.R1, int32(format)),
				asm.Mov.Imm(asm.R2, int32(len(e.Args[0].(*ast.StrLit).Value)+1)),
			)
			for i, s := range slots {
				reg := asm.R3 + asm.Register(i)
				if s.str {
					g.Emit(asm.Mov.Reg(reg, g.Base(s.off)), asm.Add.Imm(reg, int32(s.off)))
				} else {
					g.Emit(asm.LoadMem(reg, g.Base(s.off), s.off, asm.DWord))
				}
			}
			g.Emit(asm.FnTracePrintk.Call())
		},
		Example: `BEGIN { debugf("gotrace debugf %d %s %x", 1, comm, 255) }`})
}
