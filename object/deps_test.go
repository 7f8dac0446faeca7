package object_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestStageDeps checks that the stages after codegen, and the host file
// access of internal/hostfs, link only the contract: neither the parser
// (participle), the checker (lang) nor the code generator. Of lang, they
// link only the leaves srcpos (positions) and types; internal/hostfs links
// lang/ast too, through the builtin definitions it implements a host for.
func TestStageDeps(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	forbidden := []string{
		"github.com/alecthomas/participle",
		"github.com/gotrace/gotrace/lang",
		"github.com/gotrace/gotrace/codegen",
	}
	for _, pkg := range []string{"format", "internal/hostfs", "object", "output", "provider", "runtime", "tracefs"} {
		out, err := exec.Command(gobin, "list", "-deps", "github.com/gotrace/gotrace/"+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, f := range forbidden {
				if dep == f || strings.HasPrefix(dep, f+"/") && !allowed(pkg, dep) {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

// allowed reports whether pkg may link dep, a package under lang/.
func allowed(pkg, dep string) bool {
	switch dep {
	case "github.com/gotrace/gotrace/lang/srcpos", "github.com/gotrace/gotrace/lang/types":
		return true
	case "github.com/gotrace/gotrace/lang/ast":
		return pkg == "internal/hostfs"
	}
	return false
}
