// Package ref names the bpftrace the side-by-side benchmarks compare
// gotrace with: bpftrace 0.27.1 (bpftrace27, which scripts/bpftrace27.sh
// installs) when it is installed, else the distribution's bpftrace (0.17
// on Debian 12); -bpftrace picks another.
package ref

import (
	"os/exec"
	"path/filepath"
	"strings"
)

// Bpftrace is the default reference binary.
func Bpftrace() string {
	if _, err := exec.LookPath("bpftrace27"); err == nil {
		return "bpftrace27"
	}
	return "bpftrace"
}

// IsBpftrace reports whether tool is a bpftrace rather than a gotrace.
func IsBpftrace(tool string) bool { return strings.HasPrefix(filepath.Base(tool), "bpftrace") }

// CompileFlags are the flags that make bpftrace tool compile a script
// without running it: -d on 0.17, --mode codegen on 0.27.
func CompileFlags(tool string) []string {
	if filepath.Base(tool) == "bpftrace27" {
		return []string{"--mode", "codegen"}
	}
	return []string{"-d"}
}
