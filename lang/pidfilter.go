package lang

import (
	"strconv"

	"github.com/gotrace/gotrace/lang/ast"
)

// needsPidFilter reports whether probes of a provider must test the pid in
// their program for -p, as bpftrace's PidFilter pass decides: these cannot
// be restricted to a process when attached. uprobes are (bpftrace passes
// the pid to the kernel), and interval, profile, software, BEGIN and END
// probes are not filtered at all.
func needsPidFilter(provider string) bool {
	switch provider {
	case "kprobe", "kretprobe", "fentry", "fexit", "tracepoint", "rawtracepoint":
		return true
	}
	return false
}

// addPidFilter implements -p (Options.Pid): every AST probe with an attach
// point that needs a pid filter gets the predicate `pid == Pid`, ANDed
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
			if needsPidFilter(pt.Provider) {
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
