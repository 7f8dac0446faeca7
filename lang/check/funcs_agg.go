package check

import (
	"github.com/gotrace/gotrace/lang/srcpos"
)

// checkDummyTSMap checks the map named by Options.DummyTSMap (bpftrace's
// BPFTRACE_DUMMY_TS_MAP): a keyless map of integers, read as tseries()'s
// clock.
func (c *checker) checkDummyTSMap() {
	name := c.opts.DummyTSMap
	if name == "" {
		return
	}
	pos := srcpos.Pos{Filename: "BPFTRACE_DUMMY_TS_MAP"}
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
