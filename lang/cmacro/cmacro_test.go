package cmacro_test

import (
	"errors"
	"sort"
	"testing"

	"github.com/gotrace/gotrace/lang/cmacro"
)

func TestLookup(t *testing.T) {
	for name, want := range map[string]int64{
		"AF_INET": 2, "AF_UNSPEC": 0, "AF_INET6": 10, "EPERM": 1, "ENOENT": 2,
		"TASK_RUNNING": 0, "TASK_INTERRUPTIBLE": 1, "TASK_UNINTERRUPTIBLE": 2,
		"DT_REG": 8, "DT_DIR": 4, "ICMP_ECHO": 8, "SOCK_STREAM": 1,
		"IPPROTO_TCP": 6, "TCP_ESTABLISHED": 1, "O_CREAT": 0o100, "S_IFREG": 0o100000,
		"SIGKILL": 9, "CLONE_VM": 0x100, "MAP_SHARED": 1, "PROT_READ": 1, "ETH_P_IP": 0x800,
	} {
		got, ok := cmacro.Lookup(name)
		if !ok || got != want {
			t.Errorf("Lookup(%s) = %d, %v, want %d", name, got, ok, want)
		}
	}
	for _, name := range []string{"", "NO_SUCH_MACRO", "af_inet", "__NR_no_such_call"} {
		if v, ok := cmacro.Lookup(name); ok {
			t.Errorf("Lookup(%q) = %d, want none", name, v)
		}
	}
}

func TestTableSorted(t *testing.T) {
	all := cmacro.All()
	if !sort.SliceIsSorted(all, func(i, j int) bool { return all[i].Name < all[j].Name }) {
		t.Fatal("table is not sorted by name")
	}
	for i := 1; i < len(all); i++ {
		if all[i].Name == all[i-1].Name {
			t.Errorf("duplicate %s", all[i].Name)
		}
	}
}

func TestEval(t *testing.T) {
	defs := map[string]string{"A": "2", "B": "(A << 4) | 1", "SELF": "SELF", "F": ""}
	lookup := func(n string) (string, bool) { b, ok := defs[n]; return b, ok }
	tests := []struct {
		expr string
		cond bool
		want int64
	}{
		{"1 + 2 * 3", false, 7},
		{"(1 + 2) * 3", false, 9},
		{"0x10 | 010 | 0b1", false, 25},
		{"100UL - 1ull", false, 99},
		{"-1", false, -1},
		{"~0 & 0xff", false, 255},
		{"B", false, 33},
		{"A > 1 ? 10 : 20", false, 10},
		{"'a'", false, 97},
		{"defined(A) && !defined B", true, 0},
		{"defined A || UNDEFINED", true, 1},
		{"UNDEFINED + 3", true, 3},
		{"7 / 2 % 2 == 1 && 1 << 2 >= 4", false, 1},
	}
	for _, tt := range tests {
		got, err := cmacro.Eval(tt.expr, lookup, tt.cond)
		if err != nil || got != tt.want {
			t.Errorf("Eval(%q, %v) = %d, %v, want %d", tt.expr, tt.cond, got, err, tt.want)
		}
	}
	for _, expr := range []string{"UNDEFINED", "SELF", "1 +", "(1", "1 / 0", `"s"`, "(int)1", "defined(A)"} {
		if v, err := cmacro.Eval(expr, lookup, false); !errors.Is(err, cmacro.ErrNotConstant) {
			t.Errorf("Eval(%q) = %d, %v, want ErrNotConstant", expr, v, err)
		}
	}
}

func TestSystemHeader(t *testing.T) {
	for _, name := range []string{"linux/socket.h", "net/sock.h", "sys/xattr.h", "errno.h", "stdint.h", "stddef.h", "asm/unistd.h", "linux/anything/deep.h"} {
		if !cmacro.SystemHeader(name) {
			t.Errorf("SystemHeader(%q) = false, want true", name)
		}
	}
	for _, name := range []string{"lol/no.h", "foo.h", "myheader.h", ""} {
		if cmacro.SystemHeader(name) {
			t.Errorf("SystemHeader(%q) = true, want false", name)
		}
	}
}
