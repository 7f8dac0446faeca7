package check

import (
	"strconv"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/provider"
)

// addPidFilter implements -p (Options.Pid): every AST probe with an attach
// point whose provider needs a pid filter (provider.PidFilter: it cannot be
// restricted to a process when attached, as bpftrace's PidFilter pass
// decides) gets the predicate `pid == Pid`, ANDed
// before its own predicate. It runs once, after the attach points are
// expanded and before the probes are checked.
func (c *checker) addPidFilter() {
	if c.opts.Pid == 0 {
		return
	}
	done := map[*ast.Probe]bool{}
	for _, pr := range c.prog.Probes {
		if done[pr.AST] {
			continue
		}
		for _, pt := range pr.Points {
			if provider.Lookup(pt.Provider).PidFilter {
				done[pr.AST] = true
				break
			}
		}
	}
	for p := range done {
		sp := p.Span
		if p.Pred != nil {
			sp = p.Pred.GetSpan()
		}
		test := &ast.Binary{Span: sp, Op: "==",
			X: &ast.Ident{Span: sp, Name: "pid"},
			Y: &ast.IntLit{Span: sp, Text: strconv.Itoa(c.opts.Pid), Value: uint64(c.opts.Pid)},
		}
		if p.Pred == nil {
			p.Pred = test
		} else {
			p.Pred = &ast.Binary{Span: sp, Op: "&&", X: test, Y: &ast.Paren{Span: sp, X: p.Pred}}
		}
	}
}
