package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/object"
)

func TestCheckSampleRate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "perf_event_max_sample_rate")
	if err := os.WriteFile(path, []byte("100000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &object.Probe{Name: "profile:hz:99999999", Freq: 99999999}
	err := checkSampleRate(p, path)
	if err == nil || !strings.Contains(err.Error(), "99999999 Hz is above the kernel's maximum sampling rate of 100000 Hz") {
		t.Errorf("got %v", err)
	}
	for _, ok := range []*object.Probe{{Name: "profile:hz:99", Freq: 99}, {Name: "profile:ms:1", Period: 1e6}} {
		if err := checkSampleRate(ok, path); err != nil {
			t.Errorf("%s: %v", ok.Name, err)
		}
	}
}
