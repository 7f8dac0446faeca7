package sysnum

import "testing"

// TestTable: Number and Name are inverses on known syscalls, and unknown
// names and numbers have none.
func TestTable(t *testing.T) {
	for name, want := range map[string]int64{"read": 0, "openat": 257, "execve": 59} {
		if nr, ok := Number(name); !ok || nr != want {
			t.Errorf("Number(%s) = %d, %v, want %d", name, nr, ok, want)
		}
		if n, ok := Name(want); !ok || n != name {
			t.Errorf("Name(%d) = %q, %v, want %q", want, n, ok, name)
		}
	}
	if _, ok := Number("nosuchcall"); ok {
		t.Error("nosuchcall has a number")
	}
	if _, ok := Name(-1); ok {
		t.Error("-1 has a name")
	}
}
