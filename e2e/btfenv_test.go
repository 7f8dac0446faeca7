package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"
)

// TestBTFEnv: BPFTRACE_BTF names a BTF file the program's types come from
// instead of the running kernel's (a struct only the file has); a file
// that cannot be read is warned about and the kernel's BTF is used.
func TestBTFEnv(t *testing.T) {
	i32 := &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}
	s := &btf.Struct{Name: "gotrace_btf_env_probe", Size: 12, Members: []btf.Member{
		{Name: "a", Type: i32}, {Name: "b", Type: i32, Offset: 32}, {Name: "c", Type: i32, Offset: 64},
	}}
	b, err := btf.NewBuilder([]btf.Type{s}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := b.Marshal(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "types.btf")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `begin { printf("%d %d\n", sizeof(struct gotrace_btf_env_probe), offsetof(struct gotrace_btf_env_probe, c)); exit(); }`
	t.Setenv("BPFTRACE_BTF", file)
	wantOutput(t, run(t, "-e", script), "12 8\n\n\n", 0)

	t.Setenv("BPFTRACE_BTF", filepath.Join(t.TempDir(), "missing.btf"))
	got := run(t, "-e", `begin { printf("%d\n", sizeof(struct task_struct) > 0); exit(); }`)
	wantOutput(t, got, "1\n\n\n", 0)
	if !strings.Contains(got.stderr, "WARNING: BTF: failed to parse BTF from ") {
		t.Errorf("stderr %q, want the warning about the missing file", got.stderr)
	}
}
