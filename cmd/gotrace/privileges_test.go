package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHasCaps(t *testing.T) {
	for _, tc := range []struct {
		caps uint64
		want bool
	}{
		{0x1fffeffffff, true},                   // root
		{0, false},                              // nobody
		{1 << capSysAdmin, true},                // CAP_SYS_ADMIN covers BPF on every kernel
		{1<<capBPF | 1<<capPerfmon, true},       // Linux 5.8's split capabilities
		{1 << capBPF, false},                    // loading, but no perf events
		{1<<capPerfmon | 1<<capNetAdmin, false}, // no BPF
	} {
		if got := hasCaps(tc.caps); got != tc.want {
			t.Errorf("hasCaps(%#x) = %v, want %v", tc.caps, got, tc.want)
		}
	}
}

// capNetAdmin is a capability that does not help.
const capNetAdmin = 12

func TestEffectiveCaps(t *testing.T) {
	status := filepath.Join(t.TempDir(), "status")
	if err := os.WriteFile(status, []byte("Name:\tgotrace\nCapInh:\t0000000000000000\nCapEff:\t000000c000000000\nCapBnd:\t000001ffffffffff\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	caps, err := effectiveCaps(status)
	if err != nil || caps != 1<<capBPF|1<<capPerfmon {
		t.Errorf("effectiveCaps = %#x, %v", caps, err)
	}
	if _, err := effectiveCaps("/proc/self/status"); err != nil {
		t.Errorf("effectiveCaps(/proc/self/status): %v", err)
	}
}
