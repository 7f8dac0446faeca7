package check

import (
	"github.com/gotrace/gotrace/format"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func checkPrintf(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, -1) {
		return nil
	}
	lit, ok := e.Args[0].(*ast.StrLit)
	if !ok {
		c.errorf(e.Args[0], "%s() format must be a string literal", e.Name)
		return nil
	}
	c.expr(lit)
	f, ok := c.printfFormat(e.Name, lit)
	if !ok {
		return nil
	}
	verbs := f.Specs
	args := e.Args[1:]
	if len(verbs) != len(args) {
		c.errorf(e, "%s(): the format has %d conversion%s but %d argument%s were given", e.Name, len(verbs), plural(len(verbs)), len(args), plural(len(args)))
		return nil
	}
	ok = true
	for i, a := range args {
		t := c.expr(a)
		if t == nil {
			ok = false
			continue
		}
		kind, _ := verbs[i].Arg()
		switch {
		case t.Kind == types.Void, t.IsAggregation():
			c.errorf(a, "%s() argument %d has no printable value (%s)", e.Name, i+1, t)
			ok = false
		case kind == format.Any:
			// %s prints anything.
		case kind == format.Buffer:
			// buffers: buf() results, byte arrays and strings
			if t.Kind != types.String && t.Kind != types.Buf && !(t.Kind == types.Array && t.Elem != nil && t.Elem.Size == 1) {
				c.errorf(a, "%s() %s needs a buffer, not %s", e.Name, f.Texts[i], t)
				ok = false
			}
		case !t.IsInt() && t.Kind != types.Pointer && t.Kind != types.Bool:
			c.errorf(a, "%s() %s needs an integer, not %s", e.Name, f.Texts[i], t)
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return types.VoidT
}

// MaxJoinArgs is how many array elements join() reads, as in bpftrace.
const MaxJoinArgs = 16
