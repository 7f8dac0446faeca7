package tracingmulti

import (
	"testing"
	"unsafe"
)

// TestAttrLayout checks the attribute against union bpf_attr's
// link_create as Linux 7.3's BTF lays it out: prog_fd 0, attach_type 8,
// tracing_multi.ids 16, .cookies 24, .cnt 32, link_create 64 bytes.
func TestAttrLayout(t *testing.T) {
	var a tracingMultiAttr
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"prog_fd", unsafe.Offsetof(a.progFD), 0},
		{"target_fd", unsafe.Offsetof(a.targetFD), 4},
		{"attach_type", unsafe.Offsetof(a.attachType), 8},
		{"flags", unsafe.Offsetof(a.flags), 12},
		{"tracing_multi.ids", unsafe.Offsetof(a.ids), 16},
		{"tracing_multi.cookies", unsafe.Offsetof(a.cookies), 24},
		{"tracing_multi.cnt", unsafe.Offsetof(a.cnt), 32},
		{"size", unsafe.Sizeof(a), 64},
	} {
		if c.got != c.want {
			t.Errorf("%s at %d, want %d", c.name, c.got, c.want)
		}
	}
}
