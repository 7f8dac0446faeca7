package tracefs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTraceableFunctionsFile(t *testing.T) {
	dir := t.TempDir()
	list := "vfs_read\nvfs_write\nmod_fn [some_mod]\n\n"
	if err := os.WriteFile(filepath.Join(dir, "available_filter_functions"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := NewEnv(dir).TraceableFunctions()
	if err != nil {
		t.Fatal(err)
	}
	if !got["vfs_read"] || !got["vfs_write"] || got["mod_fn"] || len(got) != 2 {
		t.Errorf("TraceableFunctions = %v", got)
	}
	// No list: the kernel does not say.
	got, err = NewEnv(t.TempDir()).TraceableFunctions()
	if got != nil || err != nil {
		t.Errorf("without available_filter_functions: %v, %v; want nil, nil", got, err)
	}
}
