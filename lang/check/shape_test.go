package check_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestShapeGroups checks how the functions of an fentry/fexit probe are
// grouped into instances by the shape of what the body reads: each args
// field's slot and type (bpf_check's attr follows its prog; bpfptr_t
// takes two slots) and retval's type. A body that reads args as a whole
// value, or probe, has one instance per function.
func TestShapeGroups(t *testing.T) {
	tests := []struct{ src, want string }{
		{"fentry:bpf_check,fentry:bpf_prog_load,fentry:map_create { @[args.attr] = count(); }",
			"[bpf_check] [bpf_prog_load map_create]"},
		{"fentry:bpf_check,fentry:bpf_prog_load,fentry:map_create { @ = count(); }",
			"[bpf_check bpf_prog_load map_create]"},
		// uattr_size: bpf_check's after a pointer and a bpfptr_t (slot 4),
		// bpf_prog_load's after a pointer and a bpfptr_t too (slot 3).
		{"fentry:bpf_check,fentry:bpf_prog_load { @ = args.uattr_size; }",
			"[bpf_check] [bpf_prog_load]"},
		{"fexit:vfs_read,fexit:vfs_write,fexit:d_path { print(retval); }",
			"[vfs_read vfs_write] [d_path]"},
		{"fexit:vfs_read,fexit:vfs_write { print(args); }",
			"[vfs_read] [vfs_write]"},
		{"fentry:vfs_read,fentry:vfs_write { @[probe] = sum(args.count); }",
			"[vfs_read] [vfs_write]"},
	}
	for _, tt := range tests {
		file, err := syntax.Parse("t.bt", tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		prog, err := check.Check(file, testEnv(t), check.Options{})
		if err != nil {
			t.Errorf("%s: %v", tt.src, syntax.Render(err, tt.src))
			continue
		}
		var got []string
		for _, p := range prog.Probes {
			var names []string
			for _, pt := range p.Points {
				names = append(names, pt.Func)
			}
			got = append(got, fmt.Sprint(names))
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("%s: instances %s, want %s", tt.src, g, tt.want)
		}
	}
}
