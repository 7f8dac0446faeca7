package cmacro

import "testing"

// TestSyscallMacros: __NR_<name> is the x86-64 syscall number.
func TestSyscallMacros(t *testing.T) {
	for name, want := range map[string]int64{"__NR_read": 0, "__NR_openat": 257, "__NR_execve": 59} {
		if v, ok := Lookup(name); !ok || v != want {
			t.Errorf("Lookup(%s) = %d, %v, want %d", name, v, ok, want)
		}
	}
	if _, ok := Lookup("__NR_nosuchcall"); ok {
		t.Error("__NR_nosuchcall has a value")
	}
}
