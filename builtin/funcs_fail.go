package builtin

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/format"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func init() {
	// fail(fmt, args...) is a compile-time error whose message is fmt
	// formatted with args, which must be literals, as bpftrace 0.26's
	// fail(): the error is reported under the call wherever the checker
	// reaches it, that is unless it is in the branch an if comptime does
	// not take.
	defFuncs(&Func{Name: "fail", Result: types.Void,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 1, -1) {
				return nil
			}
			vals := make([]failArg, len(e.Args))
			valid := true
			for i, a := range e.Args {
				t := c.Expr(a)
				if t == nil {
					return nil
				}
				cv, ok := c.ConstOf(a)
				if !ok {
					c.Errorf(a, "fail() arguments need to be literals")
					valid = false
					continue
				}
				vals[i] = failArg{cv, t}
			}
			if !valid {
				return nil
			}
			if !vals[0].IsStr {
				c.Errorf(e.Args[0], "first argument to fail() must be a string literal")
				return nil
			}
			msg, err := formatConsts(vals[0].Str, vals[1:])
			if err != nil {
				c.Errorf(e.Args[0], "fail(): %v", err)
				return nil
			}
			c.Errorf(e, "%s", msg)
			return nil
		},
		Emit:    func(Emitter, *ast.Call) {},
		Example: `BEGIN { if comptime ($# < 1) { fail("no argument: %d given, %d needed", $#, 1) } }`})
}

// failArg is a compile-time argument of fail().
type failArg struct {
	Const
	t *types.Type
}

// formatConsts formats compile-time values with a printf format, with
// the grammar printf uses (package format) and its conversions for
// integers, booleans and strings.
func formatConsts(f string, args []failArg) (string, error) {
	pf := format.Parse(f)
	if errs := pf.Check(); len(errs) > 0 {
		return "", errs[0]
	}
	if len(pf.Specs) != len(args) {
		return "", fmt.Errorf("format has %d conversions but %d arguments", len(pf.Specs), len(args))
	}
	var b strings.Builder
	for i, sp := range pf.Specs {
		b.WriteString(pf.Fragments[i])
		b.WriteString(formatConst(sp, args[i]))
	}
	b.WriteString(pf.Fragments[len(pf.Specs)])
	return b.String(), nil
}

// formatConst formats one value with a conversion: Go's fmt with the same
// flags and width, %u as unsigned, %s of an integer in decimal and of a
// bool as true or false.
func formatConst(sp format.Spec, a failArg) string {
	var flags strings.Builder
	for _, f := range []struct {
		on bool
		c  byte
	}{{sp.Left, '-'}, {sp.Plus, '+'}, {sp.Space, ' '}, {sp.Alt, '#'}, {sp.Zero, '0'}} {
		if f.on {
			flags.WriteByte(f.c)
		}
	}
	if sp.Width > 0 {
		flags.WriteString(strconv.Itoa(sp.Width))
	}
	verb := func(v string) string { return "%" + flags.String() + v }
	signed := a.t.Kind == types.Int && a.t.Signed
	switch {
	case a.IsStr:
		return fmt.Sprintf(verb("s"), a.Str)
	case sp.Verb == "s" && a.t.Kind == types.Bool:
		return fmt.Sprintf(verb("s"), strconv.FormatBool(a.Int != 0))
	case sp.Verb == "c":
		return fmt.Sprintf(verb("c"), rune(byte(a.Int)))
	case sp.Verb == "x" || sp.Verb == "X" || sp.Verb == "o":
		return fmt.Sprintf(verb(sp.Verb), a.Int)
	case sp.Verb == "p":
		return fmt.Sprintf(verb("s"), "0x"+strconv.FormatUint(a.Int, 16))
	case sp.Verb == "u" || !signed:
		return fmt.Sprintf(verb("d"), a.Int)
	}
	return fmt.Sprintf(verb("d"), int64(a.Int))
}
