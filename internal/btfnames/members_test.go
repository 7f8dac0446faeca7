package btfnames_test

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/btfnames"
)

// memberPaths are member chains whose offsets MemberOffset must agree on
// with a full decode: a member of a nested struct (the syscall
// dispatchers' compat check), members behind typedefs, and members of
// anonymous unions and structs.
var memberPaths = [][]string{
	{"task_struct", "thread_info", "status"},
	{"task_struct", "pid"},
	{"task_struct", "real_parent"},
	{"file", "f_path", "dentry"},
	{"sk_buff", "len"},      // in anonymous unions and structs
	{"sk_buff", "protocol"}, // after the headers_start group
	{"dentry", "d_name", "name"},
	{"mm_struct", "arg_start"}, // in the anonymous struct of mm_struct
}

func TestMemberOffset(t *testing.T) {
	raw := pinnedRaw(t)
	spec, err := btf.LoadSpecFromReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	compareOffsets(t, spec, func(s string, p ...string) (int, error) { return btfnames.MemberOffset(raw, s, p...) })

	if _, err := btfnames.MemberOffset(raw, "no_such_struct", "x"); !errors.Is(err, btfnames.ErrNotFound) {
		t.Errorf("missing struct: %v, want ErrNotFound", err)
	}
	if _, err := btfnames.MemberOffset(raw, "task_struct", "no_such_member"); !errors.Is(err, btfnames.ErrNotFound) {
		t.Errorf("missing member: %v, want ErrNotFound", err)
	}
	if _, err := btfnames.MemberOffset(raw[:100], "task_struct", "pid"); !errors.Is(err, btfnames.ErrFormat) {
		t.Errorf("truncated blob: %v, want ErrFormat", err)
	}
}

// TestMemberOffsetKernel does the same on the running kernel's BTF.
func TestMemberOffsetKernel(t *testing.T) {
	if _, err := os.Stat(btfnames.KernelPath); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		t.Fatal(err)
	}
	compareOffsets(t, spec, func(s string, p ...string) (int, error) {
		return btfnames.MemberOffsetFile(btfnames.KernelPath, s, p...)
	})
}

func compareOffsets(t *testing.T, spec *btf.Spec, fast func(string, ...string) (int, error)) {
	t.Helper()
	for _, p := range memberPaths {
		got, err := fast(p[0], p[1:]...)
		if err != nil {
			t.Errorf("%v: %v", p, err)
			continue
		}
		var st *btf.Struct
		if err := spec.TypeByName(p[0], &st); err != nil {
			t.Fatal(err)
		}
		var typ btf.Type = st
		want := 0
		for _, m := range p[1:] {
			off, next, ok := findMember(typ, m)
			if !ok {
				t.Fatalf("%v: the decoded spec has no member %s", p, m)
			}
			want += off
			typ = next
		}
		if got != want {
			t.Errorf("%v: offset %d, decoded %d", p, got, want)
		}
	}
}

// findMember looks m up in a struct or union, through anonymous members,
// and returns its byte offset and type.
func findMember(t btf.Type, m string) (int, btf.Type, bool) {
	var members []btf.Member
	switch c := btf.UnderlyingType(t).(type) {
	case *btf.Struct:
		members = c.Members
	case *btf.Union:
		members = c.Members
	}
	for _, mem := range members {
		if mem.Name == m {
			return int(mem.Offset / 8), mem.Type, true
		}
		if mem.Name == "" {
			if off, typ, ok := findMember(mem.Type, m); ok {
				return int(mem.Offset/8) + off, typ, true
			}
		}
	}
	return 0, nil, false
}

// BenchmarkMemberOffsetKernel: the syscall dispatchers' one BTF lookup,
// against btf.LoadKernelSpec plus TypeByName("task_struct") that it
// replaces.
func BenchmarkMemberOffsetKernel(b *testing.B) {
	if _, err := os.Stat(btfnames.KernelPath); err != nil {
		b.Skipf("no kernel BTF: %v", err)
	}
	for b.Loop() {
		if _, err := btfnames.MemberOffsetFile(btfnames.KernelPath, "task_struct", "thread_info", "status"); err != nil {
			b.Fatal(err)
		}
	}
}
