package builtin

import (
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

func checkHist(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 1, 2) || c.IntArg(e, 0) == nil {
		return nil
	}
	t := &types.Type{Kind: types.Hist, Size: 8}
	if len(e.Args) == 2 {
		bits, ok := c.ConstInt(e, 1)
		if !ok {
			return nil
		}
		if bits < 0 || bits > 5 {
			c.Errorf(e.Args[1], "hist() bits must be between 0 and 5, got %d", bits)
			return nil
		}
		t.Bits = int(bits)
	}
	return t
}

func checkLhist(c Checker, e *ast.Call) *types.Type {
	if !c.WantArgs(e, 4, 4) || c.IntArg(e, 0) == nil {
		return nil
	}
	lo, ok1 := c.ConstInt(e, 1)
	hi, ok2 := c.ConstInt(e, 2)
	step, ok3 := c.ConstInt(e, 3)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	switch {
	case lo < 0:
		c.Errorf(e.Args[1], "lhist() min must be non-negative, got %d", lo)
	case hi <= lo:
		c.Errorf(e.Args[2], "lhist() max must be greater than min")
	case step <= 0:
		c.Errorf(e.Args[3], "lhist() step must be positive")
	case (hi-lo)/step > 1000:
		c.Errorf(e.Args[3], "lhist() has too many buckets: (max-min)/step must be at most 1000")
	default:
		return &types.Type{Kind: types.Lhist, Size: 8, LMin: lo, LMax: hi, LStep: step}
	}
	return nil
}

func aggCheck(k types.Kind, nargs int) func(Checker, *ast.Call) *types.Type {
	return func(c Checker, e *ast.Call) *types.Type {
		if !c.WantArgs(e, nargs, nargs) {
			return nil
		}
		t := &types.Type{Kind: k, Size: types.AggValueSize(k), Signed: true}
		if nargs == 1 {
			at := c.IntArg(e, 0)
			if at == nil {
				return nil
			}
			// signed as the argument is, as bpftrace 0.27's are
			// (max((uint64)x) of 2^63 is 9223372036854775808)
			t.Signed = types.Storage(at).Signed || at.Kind == types.Bool
		} else {
			t.Signed = false
		}
		return t
	}
}

// MaxTseriesIntervals bounds tseries()'s number of intervals.
const MaxTseriesIntervals = 1000

// checkTseries types tseries(n, interval, num_intervals[, agg]).
func checkTseries(c Checker, e *ast.Call) *types.Type {
	if !c.Unstable(e, "tseries", "unstable_tseries", "warn") {
		return nil
	}
	if !c.WantArgs(e, 3, 4) {
		return nil
	}
	nt := c.IntArg(e, 0)
	interval, ok1 := c.ConstInt(e, 1)
	n, ok2 := c.ConstInt(e, 2)
	if nt == nil || !ok1 || !ok2 {
		return nil
	}
	if interval <= 0 {
		c.Errorf(e.Args[1], "tseries() interval must be positive")
		return nil
	}
	if n <= 0 || n > MaxTseriesIntervals {
		c.Errorf(e.Args[2], "tseries() number of intervals must be between 1 and %d", MaxTseriesIntervals)
		return nil
	}
	agg := types.Invalid
	if len(e.Args) == 4 {
		lit, ok := e.Args[3].(*ast.StrLit)
		if ok {
			agg, ok = types.TseriesAggs[lit.Value]
		}
		if !ok {
			c.Errorf(e.Args[3], "tseries() aggregation must be \"avg\", \"max\", \"min\" or \"sum\"")
			return nil
		}
		c.Expr(lit)
	}
	return &types.Type{Kind: types.Tseries, Size: 24, Signed: types.Storage(nt).Signed || nt.Kind == types.Bool, LStep: interval, Len: int(n), Agg: agg}
}
