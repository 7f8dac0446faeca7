package runtime

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// TestLogSizeError: bpftrace's message for a verifier log that did not fit,
// with the trimmed-log warning only when the log lost its closing
// statistics.
func TestLogSizeError(t *testing.T) {
	for _, tc := range []struct {
		e    *LogSizeError
		want string
	}{
		{&LogSizeError{Function: "begin_1", Size: 2, Log: "\n"},
			"Error loading BPF program for begin_1. Error code: -28.\nKernel error log: \n\n\n" +
				"WARNING: Kernel log seems to be trimmed. This may be due to buffer not being big enough, try increasing the BPFTRACE_LOG_SIZE environment variable beyond the current value of 2 bytes"},
		{&LogSizeError{Function: "interval_s_1_1", Size: 80, Log: "processed 13 insns (limit 1000000)\n"},
			"Error loading BPF program for interval_s_1_1. Error code: -28.\nKernel error log: \nprocessed 13 insns (limit 1000000)\n"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q\nwant      %q", got, tc.want)
		}
		if !errors.Is(tc.e, unix.ENOSPC) {
			t.Errorf("%v is not ENOSPC", tc.e)
		}
	}
}
