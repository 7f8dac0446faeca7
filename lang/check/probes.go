package check

import (
	"cmp"
	"errors"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/provider"
)

// expandAttach expands one attach point through its provider's definition
// (package provider).
func (c *checker) expandAttach(ap *ast.AttachPoint) []*provider.Point {
	parts := provider.SplitAttach(ap.Raw)
	p := provider.Lookup(parts[0])
	if p == nil {
		c.errorf(ap, "unknown probe type %q", parts[0])
		return nil
	}
	if !p.Supported() {
		c.errorf(ap, "%s", p.Refusal())
		return nil
	}
	var env provider.ExpandEnv
	if c.env != nil {
		env = provider.WithTarget(c.env, provider.Target{Pid: c.opts.Pid, Unsafe: c.opts.Unsafe, TraceableFunctions: c.opts.TraceableFunctions, NoCppDemangle: c.prog.Config.NoCppDemangle})
	}
	points, err := p.Expand(env, ap.Raw, parts[1:])
	var nt *provider.NotTraceable
	if errors.As(err, &nt) {
		// bpftrace warns, then says No matches (below); with
		// missing_probes = warn the error becomes a warning; with
		// --unsafe the points are attached all the same.
		c.prog.Warnings.Add(ap, "%s", nt.Warning())
		if nt.Points != nil {
			points, err, nt = nt.Points, nil, nil
		}
	}
	if err != nil {
		if errors.Is(err, provider.ErrNoMatch) {
			if c.noMatchOK {
				c.noMatch = append(c.noMatch, noMatch{ap, err.Error()})
				return nil
			}
			// bpftrace's words for a probe whose one wildcard matches nothing
			c.errorf(ap, "Probe has no valid attach points (%s).", err)
			return nil
		}
		n := len(c.errs)
		c.errorf(ap, "%s", err)
		if nt != nil && len(c.errs) > n {
			// Warnings are not shown with errors: this one goes with it.
			c.errs[n].Warnings = append(c.errs[n].Warnings, nt.Warning())
		}
		return nil
	}
	for _, pt := range points {
		pt.Pos = ap.Pos()
		pt.Provider = p.Name
	}
	return points
}

// noMatch is a wildcard attach point that matched nothing, in a probe
// with other attach points: bpftrace drops it quietly, and the probe is
// missing only when none of its attach points match.
type noMatch struct {
	ap  *ast.AttachPoint
	msg string
}

// DefaultMaxBPFProgs is bpftrace's default max_bpf_progs.
const DefaultMaxBPFProgs = 1024

// countPrograms counts the n matches of attach point ap toward config
// max_bpf_progs when bpftrace gives each match a program of its own (a
// wildcard tracepoint, rawtracepoint, fentry/fexit, iter or usdt, a kprobe
// with a wildcard module; any attach point of a probe that reads the probe
// builtin), and refuses the script past the limit, as bpftrace does.
func (c *checker) countPrograms(ap *ast.AttachPoint, n int, usesProbe bool) {
	parts := provider.SplitAttach(ap.Raw)
	def := provider.Lookup(parts[0])
	if def == nil || n == 0 {
		return
	}
	full := usesProbe || def.ProgramPerMatch != nil && def.ProgramPerMatch(parts[1:], c.opts.Pid)
	if !full {
		return
	}
	c.bpfProgs += n
	if limit := cmp.Or(c.prog.Config.MaxBPFProgs, DefaultMaxBPFProgs); c.bpfProgs > limit {
		if c.quiet {
			return
		}
		c.errorf(ap, "Your program is trying to generate more than %d BPF programs, which exceeds the current limit of %d", c.bpfProgs, limit)
		e := c.errs[len(c.errs)-1]
		e.Hints = append(e.Hints, "You can increase the limit through the BPFTRACE_MAX_BPF_PROGS environment variable.")
	}
}
