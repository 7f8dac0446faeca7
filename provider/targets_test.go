package provider

import (
	"errors"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/object"
)

// TestTargetStrings: each provider's target type names itself as the
// messages, the list of refused functions and the codegen goldens spell
// it.
func TestTargetStrings(t *testing.T) {
	for _, tc := range []struct {
		target object.Target
		want   string
	}{
		{FuncTarget{Func: "vfs_read"}, "vfs_read"},
		{FuncTarget{Func: "do_sys_open", Offset: 16}, "do_sys_open+16"},
		{TracepointTarget{Category: "syscalls", Event: "sys_enter_openat"}, "syscalls:sys_enter_openat"},
		{BinaryTarget{File: "/bin/bash", Func: "readline"}, "/bin/bash:readline"},
		{BinaryTarget{File: "/bin/bash", Func: "readline", Offset: 4}, "/bin/bash:readline+4"},
		{USDTTarget{File: "/bin/app", Offset: 0x1234, Semaphore: 0x40, First: true}, "/bin/app:0x1234:0x40:1"},
		{USDTTarget{File: "/bin/app", Offset: 0x1240}, "/bin/app:0x1240:0x0:0"},
		{WatchTarget{Addr: 0x404040, Length: 8, Mode: "w"}, "0x404040:8:w"},
	} {
		if got := tc.target.String(); got != tc.want {
			t.Errorf("%#v: %q, want %q", tc.target, got, tc.want)
		}
	}
}

// TestTargetAs: a provider reads its targets back as its own type, and a
// target of another type is an error naming both, never a wrong attach.
func TestTargetAs(t *testing.T) {
	p := &object.Probe{Name: "kprobe:vfs_read"}
	got, err := TargetAs[FuncTarget](p, FuncTarget{Func: "vfs_read", Offset: 8})
	if err != nil || got.Func != "vfs_read" || got.Offset != 8 {
		t.Fatalf("TargetAs = %+v, %v", got, err)
	}
	_, err = TargetAs[FuncTarget](p, TracepointTarget{Category: "sched", Event: "sched_switch"})
	if err == nil || errors.Unwrap(err) != nil || !strings.Contains(err.Error(), "provider.TracepointTarget") || !strings.Contains(err.Error(), "provider.FuncTarget") {
		t.Errorf("TargetAs of a TracepointTarget as a FuncTarget: %v", err)
	}
}

// TestFuncTargetsAddress: kprobe:ADDRESS keeps the address it probes in
// its target, so that attaching does not parse the name again.
func TestFuncTargetsAddress(t *testing.T) {
	got := funcTargets([]*Point{{Func: "vfs_read"}, {Func: "18446744072635809024"}})
	if ft := got[0].(FuncTarget); ft.ByAddr {
		t.Errorf("vfs_read: ByAddr set: %+v", ft)
	}
	if ft := got[1].(FuncTarget); !ft.ByAddr || ft.Addr != 18446744072635809024 {
		t.Errorf("an address: %+v", ft)
	}
}
