package provider

import (
	"strings"
	"testing"
)

// TestListPerfAndTimers: -l lists software and hardware events with their
// aliases, and the units of interval and profile, as bpftrace does
// ("software:cpu-clock:").
func TestListPerfAndTimers(t *testing.T) {
	for _, tc := range []struct {
		prov, pattern string
		want          []string
	}{
		{"software", "cpu*", []string{"software:cpu-clock:", "software:cpu:", "software:cpu-migrations:"}},
		{"software", "faults", []string{"software:faults:"}},
		{"hardware", "*cycles", []string{"hardware:bus-cycles:", "hardware:cpu-cycles:", "hardware:cycles:", "hardware:ref-cycles:"}},
		{"interval", "*", []string{"interval:hz:", "interval:ms:", "interval:s:", "interval:us:"}},
		{"profile", "hz", []string{"profile:hz:"}},
	} {
		var b strings.Builder
		if err := Lookup(tc.prov).List(&b, nil, tc.pattern, false); err != nil {
			t.Fatal(err)
		}
		if got := strings.Fields(b.String()); strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("-l %s:%s = %q, want %q", tc.prov, tc.pattern, got, tc.want)
		}
	}
	var b strings.Builder
	if err := Lookup("software").List(&b, nil, "*", false); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != len(softwareEvents)+3 { // + cs, cpu, faults
		t.Errorf("software:* lists %d lines, want %d:\n%s", n, len(softwareEvents)+3, b.String())
	}
}
