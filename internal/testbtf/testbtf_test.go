package testbtf

import (
	"testing"

	"github.com/cilium/ebpf/btf"
)

func TestSpec(t *testing.T) {
	spec := Spec(t)
	var task *btf.Struct
	if err := spec.TypeByName("task_struct", &task); err != nil {
		t.Fatalf("task_struct: %v", err)
	}
	if task.Size == 0 {
		t.Fatal("task_struct has size 0")
	}
	found := false
	for _, m := range task.Members {
		if m.Name == "pid" {
			found = true
			if sz, err := btf.Sizeof(m.Type); err != nil || sz != 4 {
				t.Errorf("task_struct.pid size = %d, %v; want 4", sz, err)
			}
		}
	}
	if !found {
		t.Error("task_struct has no pid member")
	}
	if Spec(t) != spec {
		t.Error("Spec is not cached")
	}
}
