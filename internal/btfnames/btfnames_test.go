package btfnames_test

import (
	"os"
	"slices"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/btfnames"
	"github.com/gotrace/gotrace/internal/testbtf"
)

// TestReadMatchesSpec compares the name-only pass over the pinned blob with
// the index built by decoding every type.
func TestReadMatchesSpec(t *testing.T) {
	spec := testbtf.Spec(t)
	fast, err := btfnames.For(spec) // registered by testbtf: the raw reader
	if err != nil {
		t.Fatal(err)
	}
	slow, err := btfnames.FromSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, spec, fast, slow)
}

// TestKernel does the same on the running kernel's BTF.
func TestKernel(t *testing.T) {
	if _, err := os.Stat(btfnames.KernelPath); err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	fast, err := btfnames.ReadFile(btfnames.KernelPath)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		t.Fatal(err)
	}
	slow, err := btfnames.FromSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	compare(t, spec, fast, slow)
}

func compare(t *testing.T, spec *btf.Spec, fast, slow *btfnames.Index) {
	t.Helper()
	if len(fast.Funcs()) < 1000 {
		t.Fatalf("only %d functions", len(fast.Funcs()))
	}
	if !slices.Equal(fast.Funcs(), slow.Funcs()) {
		t.Errorf("functions differ: %d from the raw pass, %d decoded", len(fast.Funcs()), len(slow.Funcs()))
	}
	if !slices.Equal(fast.Typedefs(""), slow.Typedefs("")) {
		t.Errorf("typedefs differ: %d from the raw pass, %d decoded", len(fast.Typedefs("")), len(slow.Typedefs("")))
	}
	id, ok := fast.Func("vfs_read")
	if !ok {
		t.Fatal("vfs_read not listed")
	}
	typ, err := spec.TypeByID(id)
	if err != nil {
		t.Fatal(err)
	}
	if fn, ok := typ.(*btf.Func); !ok || fn.Name != "vfs_read" {
		t.Errorf("ID %d is %v, want func vfs_read", id, typ)
	}
	tps := fast.Typedefs("btf_trace_")
	if len(tps) == 0 || tps[0].Name < "btf_trace_" {
		t.Errorf("btf_trace_ typedefs: %v", tps[:min(len(tps), 3)])
	}
	for _, name := range []string{"TASK_COMM_LEN", "BPF_MAP_TYPE_HASH"} {
		f, ok1 := fast.Enumerator(name)
		s, ok2 := slow.Enumerator(name)
		if !ok1 || f != s || !ok2 {
			t.Errorf("enumerator %s: raw %d %v, decoded %d %v", name, f, ok1, s, ok2)
		}
	}
}
