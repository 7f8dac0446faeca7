package provider

import "testing"

// TestExpandWatchpoint: watchpoint:ADDRESS:LENGTH:MODE is checked as
// bpftrace checks it; the mode is kept sorted (wr is rw).
func TestExpandWatchpoint(t *testing.T) {
	for _, tc := range []struct {
		raw, want, err string
	}{
		{raw: "watchpoint:0x10000000:1:w", want: "watchpoint:0x10000000:1:w w 1"},
		{raw: "watchpoint:4096:8:wr", want: "watchpoint:0x1000:8:wr rw 8"},
		{raw: "watchpoint:0x10:4:x", want: "watchpoint:0x10:4:x x 4"},
		{raw: "watchpoint:0:1:w", err: "watchpoint must be attached to a non-zero address"},
		{raw: "watchpoint:0x10:3:w", err: "watchpoint length must be one of (1,2,4,8)"},
		{raw: "watchpoint:0x10:1:q", err: "watchpoint mode must be combination of (r,w,x)"},
		{raw: "watchpoint:0x10:1:ww", err: "watchpoint modes may not be duplicated"},
		{raw: "watchpoint:0x10:1:r", err: "invalid watchpoint mode: r (supported modes: rw,w,x)"},
		{raw: "watchpoint:0x10:1", err: "watchpoint probe type requires 3 arguments, found 2"},
		{raw: "watchpoint:foo:1:w", err: `Invalid function/address argument: "foo" is not an unsigned integer`},
	} {
		parts := SplitAttach(tc.raw)
		pts, err := watchpointProvider.Expand(nil, tc.raw, parts[1:])
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: error %v, want %q", tc.raw, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		w := pts[0].Data.(WatchTarget)
		got := pts[0].Name + " " + w.Mode + " " + string(rune('0'+w.Length))
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.raw, got, tc.want)
		}
	}
}
