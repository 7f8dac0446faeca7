package codegen

import (
	"strings"
	"testing"
)

// TestBpftraceFunction: programs are named as bpftrace names them
// (the probe's name with every other character an underscore, then its
// 1-based position), within the 127 characters every kernel takes as a
// BTF function name, distinct however long.
func TestBpftraceFunction(t *testing.T) {
	for name, want := range map[string]string{
		"tracepoint:syscalls:sys_enter_read": "tracepoint_syscalls_sys_enter_read_1",
		"uprobe:/bin/sh:0x1000":              "uprobe__bin_sh_0x1000_1",
		"interval:ms:100":                    "interval_ms_100_1",
	} {
		if got := bpftraceFunction(name, 1); got != want {
			t.Errorf("bpftraceFunction(%q) = %q, want %q", name, got, want)
		}
	}
	long := "uprobe:/" + strings.Repeat("d/", 80) + "bin:main"
	a, b := bpftraceFunction(long, 12), bpftraceFunction(long+"2", 12)
	for _, n := range []string{a, b} {
		if len(n) != maxFuncName || !strings.HasPrefix(n, "uprobe__d_d_") || !strings.HasSuffix(n, "_12") {
			t.Errorf("long name %q (%d characters): want %d, the start kept, _12 at the end", n, len(n), maxFuncName)
		}
	}
	if a == b {
		t.Errorf("two long names are both %q", a)
	}
}
