package lang

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func aggCheck(k types.Kind, nargs int) func(*checker, *ast.Call) *types.Type {
	return func(c *checker, e *ast.Call) *types.Type {
		if !c.wantArgs(e, nargs, nargs) {
			return nil
		}
		t := &types.Type{Kind: k, Size: types.AggValueSize(k), Signed: true}
		if nargs == 1 {
			at := c.intArg(e, 0)
			if at == nil {
				return nil
			}
			if k == types.Sum {
				t.Signed = storageType(at).Signed || at.Kind == types.Bool
			}
		} else {
			t.Signed = false
		}
		return t
	}
}

func checkHist(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 1, 2) || c.intArg(e, 0) == nil {
		return nil
	}
	t := &types.Type{Kind: types.Hist, Size: 8}
	if len(e.Args) == 2 {
		bits, ok := c.constInt(e, 1)
		if !ok {
			return nil
		}
		if bits < 0 || bits > 5 {
			c.errorf(e.Args[1], "hist() bits must be between 0 and 5, got %d", bits)
			return nil
		}
		t.Bits = int(bits)
	}
	return t
}

func checkLhist(c *checker, e *ast.Call) *types.Type {
	if !c.wantArgs(e, 4, 4) || c.intArg(e, 0) == nil {
		return nil
	}
	lo, ok1 := c.constInt(e, 1)
	hi, ok2 := c.constInt(e, 2)
	step, ok3 := c.constInt(e, 3)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	switch {
	case lo < 0:
		c.errorf(e.Args[1], "lhist() min must be non-negative, got %d", lo)
	case hi <= lo:
		c.errorf(e.Args[2], "lhist() max must be greater than min")
	case step <= 0:
		c.errorf(e.Args[3], "lhist() step must be positive")
	case (hi-lo)/step > 1000:
		c.errorf(e.Args[3], "lhist() has too many buckets: (max-min)/step must be at most 1000")
	default:
		return &types.Type{Kind: types.Lhist, Size: 8, LMin: lo, LMax: hi, LStep: step}
	}
	return nil
}

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
	return &types.Type{Kind: types.Tseries, Size: 24, Signed: storageType(nt).Signed || nt.Kind == types.Bool, LStep: interval, Len: int(n), Agg: agg}
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
