package provider

import (
	"strings"
	"testing"

	"github.com/gotrace/gotrace/object"
)

// TestTimerBareNumber: interval:N and profile:N read N as nanoseconds
// (bpftrace 0.26), in microseconds from 1000 on; before, N was hertz.
func TestTimerBareNumber(t *testing.T) {
	for _, tc := range []struct {
		raw        string
		name       string
		period     uint64
		freq       uint64
		wantErrSub string
	}{
		{raw: "interval:500000000", name: "interval:us:500000", period: 500e6},
		{raw: "profile:10000000", name: "profile:us:10000", period: 10e6},
		{raw: "interval:1s", name: "interval:us:1000000", period: 1e9},
		{raw: "interval:100ms", name: "interval:us:100000", period: 100e6},
		{raw: "interval:1e9", name: "interval:us:1000000", period: 1e9},
		{raw: "interval:us:1e3", name: "interval:us:1000", period: 1e6},
		{raw: "interval:s:1", name: "interval:s:1", period: 1e9},
		{raw: "profile:hz:99", name: "profile:hz:99", freq: 99},
		{raw: "interval:hz:10", name: "interval:hz:10", period: 1e8},
		{raw: "profile:99", wantErrSub: "minimum is 1000 or 1us, found 99 nanoseconds"},
		{raw: "interval:5x", wantErrSub: "invalid trailing bytes"},
		{raw: "interval:s:0", wantErrSub: `invalid count "0"`},
		{raw: "interval:m:1", wantErrSub: `invalid interval unit "m"`},
	} {
		parts := SplitAttach(tc.raw)
		def := Lookup(parts[0])
		pts, err := def.Expand(nil, tc.raw, parts[1:])
		if tc.wantErrSub != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErrSub) {
				t.Errorf("%s: error %v, want one containing %q", tc.raw, err, tc.wantErrSub)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		if pts[0].Name != tc.name {
			t.Errorf("%s: name %q, want %q", tc.raw, pts[0].Name, tc.name)
		}
		var probe object.Probe
		def.Compile(pts, Features{}, &probe)
		if probe.Period != tc.period || probe.Freq != tc.freq {
			t.Errorf("%s: period %d freq %d, want %d %d", tc.raw, probe.Period, probe.Freq, tc.period, tc.freq)
		}
	}
}

// TestSoftwareCounts: the count of a software probe may be left out or
// empty (the event's default) and written as 1e6.
func TestSoftwareCounts(t *testing.T) {
	for _, tc := range []struct {
		raw    string
		period uint64
		config uint64
	}{
		{"software:faults", 100, 2},
		{"software:faults:", 100, 2},
		{"software:cpu:1e6", 1000000, 0},
		{"software:cs:1_000", 1000, 3},
		{"s:major-faults:0x10", 16, 6},
	} {
		parts := SplitAttach(tc.raw)
		def := Lookup(parts[0])
		pts, err := def.Expand(nil, tc.raw, parts[1:])
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		var probe object.Probe
		def.Compile(pts, Features{}, &probe)
		if probe.Period != tc.period || probe.Config != tc.config || probe.Provider != "software" {
			t.Errorf("%s: %+v, want period %d config %d", tc.raw, probe, tc.period, tc.config)
		}
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]uint64{
		"0": 0, "10": 10, "1_000": 1000, "0x10": 16, "0b101": 5, "017": 15, "1e3": 1000,
		"2us": 2000, "3ms": 3e6, "1s": 1e9, "1m": 60e9, "1e3ns": 1000, "7u": 7,
	} {
		got, err := parseNumber(in)
		if err != nil || got != want {
			t.Errorf("parseNumber(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "10e3", "1q", "99999999999999999999", "2e19", "1e", "5e0"} {
		if v, err := parseNumber(in); err == nil {
			t.Errorf("parseNumber(%q) = %d, want an error", in, v)
		}
	}
}
