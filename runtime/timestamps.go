package runtime

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/output"
)

// withTimestamps sets the formatter's hook for strftime() values: BPF
// timestamps are CLOCK_MONOTONIC nanoseconds (bpf_ktime_get_ns), turned
// into wall-clock time with the offset between the two clocks now, and
// formatted with the strftime format carried in the value's type.
func withTimestamps(f *output.Formatter) *output.Formatter {
	if f.Timestamp != nil {
		return f
	}
	var mono unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &mono)
	offset := time.Now().UnixNano() - mono.Nano()
	c := *f
	c.Timestamp = func(t *types.Type, ns uint64) string {
		return output.FormatTimestamp(t.Strftime, time.Unix(0, offset+int64(ns)))
	}
	return &c
}
