package runtime

import (
	"fmt"

	"github.com/cilium/ebpf/rlimit"

	"github.com/gotrace/gotrace/codegen"
)

// Load loads prog into the kernel, so that the verifier checks every
// program, and closes it again without attaching anything (gotrace
// --dry-run). A verifier rejection is returned as a *LoadError.
func Load(prog *codegen.Program, opts Options) error {
	if err := rlimit.RemoveMemlock(); err != nil {
		return fmt.Errorf("remove memlock rlimit: %w", err)
	}
	s := &session{prog: prog, opts: opts}
	defer s.closeAll()
	return s.load()
}
