package runtime

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestParseKallsyms(t *testing.T) {
	in := "ffffffff81000000 T _stext\nffffffff81000100 t vfs_read\nffffffff81000100 D some_data\nffffffff81000200 T vfs_write\tx\n0000000000000000 T hidden\nffffffffc0000000 t mod_func\t[mod]\n"
	syms, err := parseKallsyms(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	k := &Ksyms{}
	k.once.Do(func() {})
	k.syms = syms
	for _, tc := range []struct {
		addr uint64
		want string
	}{
		{0xffffffff81000100, "vfs_read"},
		{0xffffffff810001ff, "vfs_read"},
		{0xffffffff81000200, "vfs_write"},
		{0xffffffffc0000010, "mod_func"},
		{0x1000, "0x1000"},
	} {
		if got := k.Name(tc.addr); got != tc.want {
			t.Errorf("Name(%#x) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

// TestKsymsKernel resolves the address kallsyms gives for vfs_read.
func TestKsymsKernel(t *testing.T) {
	f, err := os.Open("/proc/kallsyms")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var addr uint64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) >= 3 && fl[2] == "vfs_read" {
			addr, _ = strconv.ParseUint(fl[0], 16, 64)
			break
		}
	}
	if addr == 0 {
		t.Skip("kallsyms hides addresses (not root, or kptr_restrict)")
	}
	k := NewKsyms()
	if got := k.Name(addr); got != "vfs_read" {
		t.Errorf("Name(vfs_read) = %q", got)
	}
	if got := k.Name(addr + 4); got != "vfs_read" {
		t.Errorf("Name(vfs_read+4) = %q", got)
	}
}
