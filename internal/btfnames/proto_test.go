package btfnames_test

import (
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/btfnames"
	"github.com/gotrace/gotrace/internal/testbtf"
)

// TestTrampolineRefusals checks the in-place reading of prototypes against
// the decoded types of the pinned BTF, over every function: a struct or
// union return, one of more than 16 bytes by value, variable arguments or
// more than 12 are refused, anything else is not.
func TestTrampolineRefusals(t *testing.T) {
	ix, err := btfnames.Read(pinnedRaw(t))
	if err != nil {
		t.Fatal(err)
	}
	spec := testbtf.Spec(t)
	var ids []btf.TypeID
	for _, e := range ix.Funcs() {
		ids = append(ids, e.ID)
	}
	got, err := ix.TrampolineRefusals(ids)
	if err != nil {
		t.Fatal(err)
	}
	refused := 0
	for _, e := range ix.Funcs() {
		typ, err := spec.TypeByID(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := decodedRefusal(typ.(*btf.Func).Type.(*btf.FuncProto)) || denied[e.Name]
		if (got[e.ID] != "") != want {
			t.Errorf("%s: refusal %q, decoded types say refused=%v", e.Name, got[e.ID], want)
		}
		if want {
			refused++
		}
	}
	if refused == 0 || refused == len(ids) {
		t.Errorf("%d of %d functions refused", refused, len(ids))
	}
	if why := got[mustFunc(t, ix, "vfs_read")]; why != "" {
		t.Errorf("vfs_read refused: %s", why)
	}
	if why := got[mustFunc(t, ix, "_printk")]; why != "takes variable arguments" {
		t.Errorf("_printk: %q, want variable arguments", why)
	}
	if why := got[mustFunc(t, ix, "migrate_disable")]; why != "is denied to trampolines by the kernel" {
		t.Errorf("migrate_disable: %q, want denied", why)
	}
}

// pinnedRaw returns the raw blob of the pinned BTF.
func pinnedRaw(t *testing.T) []byte {
	t.Helper()
	path, err := testbtf.Path()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := testbtf.ReadRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func mustFunc(t *testing.T, ix *btfnames.Index, name string) btf.TypeID {
	t.Helper()
	id, ok := ix.Func(name)
	if !ok {
		t.Fatalf("no function %s", name)
	}
	return id
}

// denied are the functions the kernel denies trampolines (its btf_id_deny
// set; Linux 7.3 refused ___migrate_enable, migrate_disable,
// migrate_enable, __rcu_read_lock and __rcu_read_unlock in a tracing_multi
// link of every traceable function).
var denied = map[string]bool{
	"___migrate_enable": true, "migrate_disable": true, "migrate_enable": true, "rcu_read_unlock_strict": true,
	"preempt_count_add": true, "preempt_count_sub": true, "__rcu_read_lock": true, "__rcu_read_unlock": true,
}

// decodedRefusal is the rule on decoded types.
func decodedRefusal(p *btf.FuncProto) bool {
	agg := func(t btf.Type) (bool, uint32) {
		switch u := btf.UnderlyingType(t).(type) {
		case *btf.Struct:
			return true, u.Size
		case *btf.Union:
			return true, u.Size
		}
		return false, 0
	}
	if ok, _ := agg(p.Return); ok {
		return true
	}
	if len(p.Params) > 12 {
		return true
	}
	for _, prm := range p.Params {
		if _, va := prm.Type.(*btf.Void); va {
			return true
		}
		if ok, size := agg(prm.Type); ok && size > 16 {
			return true
		}
	}
	return false
}
