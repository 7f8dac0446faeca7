package check_test

import (
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestRetvalType checks how each provider's RetvalType types retval:
// kretprobe and fexit by the return type of the function's BTF prototype
// (kretprobe: int64 over several functions; fexit: each group of
// functions of one return type is a probe instance of its own,
// lang/check/shape.go), and that the other providers have no retval.
func TestRetvalType(t *testing.T) {
	tests := []struct{ probe, want, err string }{
		{"kretprobe:vfs_read", "int64", ""},
		{"kretprobe:d_path", "uint8 *", ""},
		{"kretprobe:vfs_read, kretprobe:d_path", "int64", ""},
		{"fexit:vfs_read", "int64", ""},
		{"fexit:d_path", "uint8 *", ""},
		{"fexit:vfs_read, fexit:vfs_write", "int64", ""},
		{"fentry:vfs_read", "", "retval is not available in fentry probes"},
		{"kprobe:vfs_read", "", "retval is not available in kprobe probes"},
		{"BEGIN", "", "retval is not available in begin probes"},
	}
	for _, tt := range tests {
		src := tt.probe + " { @r = retval; }"
		file, err := syntax.Parse("t.bt", src)
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		prog, err := check.Check(file, testEnv(t), check.Options{})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", src, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", src, syntax.Render(err, src))
			continue
		}
		p := prog.Probes[0]
		var got string
		ast.Inspect(p.AST.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == "retval" {
				got = p.Info.Types[id].String()
			}
			return true
		})
		if got != tt.want {
			t.Errorf("%s: retval is %q, want %s", tt.probe, got, tt.want)
		}
	}
}
