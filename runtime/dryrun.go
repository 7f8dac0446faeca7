package runtime

import (
	"errors"

	"github.com/gotrace/gotrace/object"
)

// Load loads prog into the kernel, so that the verifier checks every
// program, and closes it again without attaching anything (gotrace
// --dry-run). Like Run, it returns a *LoadError wrapping *ebpf.VerifierError
// when the verifier rejects a program. Programs of a probe type the kernel
// cannot attach (no kprobes) are loaded all the same, and the error says
// so with ErrCannotAttach; a kernel that refuses the trampoline programs
// (fentry, fexit) returns ErrCannotAttach too. Of opts, only BTFCache is
// used.
func Load(prog *object.Program, opts Options) error {
	if prog == nil || prog.Collection == nil {
		return errors.New("runtime: no program")
	}
	if err := raiseMemlock(); err != nil {
		return err
	}
	s := &entry{Session: &Session{opts: opts}, prog: prog, opts: opts, dryRun: true}
	// What the kernel lacks to attach the probes is reported after
	// every program it can load is loaded.
	cannot := s.require()
	err := s.load()
	if err == nil && cannot != nil {
		err = &cannotAttach{cannot}
	}
	return errors.Join(err, s.closeAll())
}

// ErrCannotAttach is in the chain of errors saying that the kernel lacks
// what a probe type needs (kprobes, BPF trampolines), as opposed to errors
// in the program.
var ErrCannotAttach = errors.New("the kernel cannot attach this probe type")

// ErrNoProbes is bpftrace's error for a program left without probes to
// attach (every attach point missing, with missing_probes = ignore or
// warn; a --probe-filter matching none).
var ErrNoProbes = errors.New("No probes to attach")

// ErrTargetExited is the cause (context.Cause) to cancel Run's context with
// when the traced command or process exited (bpftrace -c, -p): the events
// still queued are printed before END, whereas any other stop (a signal,
// a plain cancel) drops them, as bpftrace does.
var ErrTargetExited = errors.New("the traced process exited")

// cannotAttach marks an error as ErrCannotAttach, keeping its message.
type cannotAttach struct{ err error }

func (e *cannotAttach) Error() string        { return e.err.Error() }
func (e *cannotAttach) Unwrap() error        { return e.err }
func (e *cannotAttach) Is(target error) bool { return target == ErrCannotAttach }
