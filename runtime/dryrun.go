package runtime

import (
	"errors"

	"github.com/gotrace/gotrace/object"
)

// Load loads prog into the kernel, so that the verifier checks every
// program, and closes it again without attaching anything (gotrace
// --dry-run). Like Run, it returns a *LoadError wrapping *ebpf.VerifierError
// when the verifier rejects a program. Of opts, only BTFCache is used.
func Load(prog *object.Program, opts Options) error {
	if prog == nil || prog.Collection == nil {
		return errors.New("runtime: no program")
	}
	if err := raiseMemlock(); err != nil {
		return err
	}
	s := &session{prog: prog, opts: opts}
	err := s.load()
	return errors.Join(err, s.closeAll())
}
