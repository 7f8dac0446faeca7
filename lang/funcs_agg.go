package lang

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// MaxTseriesIntervals bounds tseries()'s number of intervals.
const MaxTseriesIntervals = 1000

// checkTseries types tseries(n, interval, num_intervals[, agg]).
func checkTseries(c *checker, e *ast.Call) *types.Type {
	if !c.unstableFeature(e, "tseries", "unstable_tseries", "warn") {
		return nil
	}
	if !c.wantArgs(e, 3, 4) {
		return nil
	}
	nt := c.intArg(e, 0)
	interval, ok1 := c.constInt(e, 1)
	n, ok2 := c.constInt(e, 2)
	if nt == nil || !ok1 || !ok2 {
		return nil
	}
	if interval <= 0 {
		c.errorf(e.Args[1], "tseries() interval must be positive")
		return nil
	}
	if n <= 0 || n > MaxTseriesIntervals {
		c.errorf(e.Args[2], "tseries() number of intervals must be between 1 and %d", MaxTseriesIntervals)
		return nil
	}
	agg := types.Invalid
	if len(e.Args) == 4 {
		lit, ok := e.Args[3].(*ast.StrLit)
		if ok {
			agg, ok = types.TseriesAggs[lit.Value]
		}
		if !ok {
			c.errorf(e.Args[3], "tseries() aggregation must be \"avg\", \"max\", \"min\" or \"sum\"")
			return nil
		}
		c.expr(lit)
	}
	return &types.Type{Kind: types.Tseries, Size: 24, Signed: types.Storage(nt).Signed || nt.Kind == types.Bool, LStep: interval, Len: int(n), Agg: agg}
}

// checkDummyTSMap checks the map named by Options.DummyTSMap (bpftrace's
// BPFTRACE_DUMMY_TS_MAP): a keyless map of integers, read as tseries()'s
// clock.
func (c *checker) checkDummyTSMap() {
	name := c.opts.DummyTSMap
	if name == "" {
		return
	}
	pos := ast.Pos{Filename: "BPFTRACE_DUMMY_TS_MAP"}
	mt := c.prog.Maps[name]
	switch {
	case mt == nil:
		c.errorf(pos, "dummy_ts_map: %q not found", name)
	case mt.Keys != nil:
		c.errorf(pos, "dummy_ts_map: %q must be scalar", name)
	case mt.Value == nil || !mt.Value.IsInt() || mt.Value.IsAggregation():
		c.errorf(pos, "dummy_ts_map: %q value must be an integer", name)
	default:
		c.prog.DummyTSMap = name
	}
}
