package lang

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/provider"
)

// expandAttach expands one attach point through its provider's definition
// (package provider).
func (c *checker) expandAttach(ap *ast.AttachPoint) []*AttachPoint {
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
		env = provider.WithPid(c.env, c.opts.Pid)
	}
	points, err := p.Expand(env, ap.Raw, parts[1:])
	if err != nil {
		c.errorf(ap, "%s", err)
		return nil
	}
	for _, pt := range points {
		pt.Pos = ap.Pos()
		pt.Provider = p.Name
	}
	return points
}
