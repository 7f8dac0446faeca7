package runtime

import (
	"errors"
	"fmt"
	goruntime "runtime"
	"slices"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
)

// This file loads trampoline programs (fentry, fexit) one by one, so that
// the kernel refusing one function of a wildcard skips it.

// isSeparate reports whether a program is loaded on its own rather than in
// the collection: fentry and fexit programs, which the kernel may refuse
// one by one (varargs functions, functions without a trampoline).
func isSeparate(ps *ebpf.ProgramSpec) bool {
	return ps.Type == ebpf.Tracing && (ps.AttachType == ebpf.AttachTraceFEntry || ps.AttachType == ebpf.AttachTraceFExit)
}

// splitSeparate returns the collection without the programs loaded one by
// one, and those programs' names, sorted. spec itself is not modified.
func splitSeparate(spec *ebpf.CollectionSpec) (*ebpf.CollectionSpec, []string) {
	var names []string
	for name, ps := range spec.Programs {
		if isSeparate(ps) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return spec, nil
	}
	slices.Sort(names)
	base := *spec
	base.Programs = make(map[string]*ebpf.ProgramSpec, len(spec.Programs)-len(names))
	for name, ps := range spec.Programs {
		if !isSeparate(ps) {
			base.Programs[name] = ps
		}
	}
	return &base, names
}

// loadSeparate loads the programs of spec named by names, each in a collection of
// its own that reuses the maps of s.coll, in parallel, through the shared
// BTF cache (so vmlinux BTF is parsed once). Programs the kernel refuses
// are skipped when they belong to a wildcard; any other refusal is an
// error.
func (s *entry) loadSeparate(spec *ebpf.CollectionSpec, names []string, cache *btf.Cache) error {
	if len(names) == 0 {
		return nil
	}
	probeOf := map[string]*object.Probe{}
	for _, p := range s.prog.Probes {
		probeOf[p.Program] = p
	}
	type result struct {
		name string
		prog *ebpf.Program
		err  error
	}
	results := make([]result, len(names))
	parallel(len(names), max(goruntime.GOMAXPROCS(0), 1), func(i int) {
		name := names[i]
		prog, err := s.loadOne(spec, name, cache)
		results[i] = result{name, prog, err}
	})
	var firstErr error
	for _, r := range results {
		if r.err == nil {
			s.coll.Programs[r.name] = r.prog
			continue
		}
		ps := s.prog.Collection.Programs[r.name]
		p := probeOf[r.name]
		if p == nil {
			p = &object.Probe{Name: r.name, Program: r.name}
		}
		if fe := s.trampolineFeature(p, ps, cache, r.err); fe != nil {
			if firstErr == nil {
				firstErr = fe
			}
			continue
		}
		if s.isWildcard(p) {
			if s.kf.refused == nil {
				s.kf.refused = map[string]string{}
			}
			s.kf.refused[r.name] = ps.AttachTo
			s.kf.skip(ps.AttachTo)
			continue
		}
		if firstErr == nil {
			le := &LoadError{Err: r.err}
			var ve *ebpf.VerifierError
			if errors.As(r.err, &ve) {
				le.Program = r.name
			}
			firstErr = fmt.Errorf("%s: %w", p.Name, le)
		}
	}
	if firstErr != nil {
		// Programs loaded so far are in s.coll and closed with it.
		return firstErr
	}
	if len(s.kf.refused) == len(names) && len(names) > 0 {
		return fmt.Errorf("the kernel refused every function of the fentry/fexit probes (%s)", provider.SkippedList(s.kf.skipped))
	}
	return nil
}

// loadOne loads one program of the collection in a collection of its own
// whose maps are those of s.coll.
func (s *entry) loadOne(spec *ebpf.CollectionSpec, name string, cache *btf.Cache) (*ebpf.Program, error) {
	sub := &ebpf.CollectionSpec{
		Maps:      make(map[string]*ebpf.MapSpec, len(spec.Maps)),
		Programs:  map[string]*ebpf.ProgramSpec{name: spec.Programs[name]},
		Types:     spec.Types,
		ByteOrder: spec.ByteOrder,
	}
	repl := make(map[string]*ebpf.Map, len(spec.Maps))
	for mn, ms := range spec.Maps {
		if m := s.coll.Maps[mn]; m != nil {
			sub.Maps[mn] = ms
			repl[mn] = m
		}
	}
	coll, err := ebpf.NewCollectionWithOptions(sub, ebpf.CollectionOptions{Cache: cache, MapReplacements: repl})
	if err != nil {
		return nil, err
	}
	prog := coll.DetachProgram(name)
	coll.Close() // the map clones
	if prog == nil {
		return nil, fmt.Errorf("program %s missing after load", name)
	}
	return prog, nil
}

// trampolineFeature returns a one-line error naming the missing feature
// when loadErr comes from a kernel that refuses BPF trampolines altogether
// (rather than this program or this function): it loads a trivial program
// of the same attach type on the same function and looks at how that fails.
func (s *entry) trampolineFeature(p *object.Probe, ps *ebpf.ProgramSpec, cache *btf.Cache, loadErr error) error {
	if ps == nil || !isSeparate(ps) || !isFeatureErrno(loadErr) {
		return nil
	}
	trivial := &ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{"probe": {
		Name:         "gotrace_probe",
		Type:         ebpf.Tracing,
		AttachType:   ps.AttachType,
		AttachTo:     ps.AttachTo,
		License:      "GPL",
		Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()},
	}}}
	coll, err := ebpf.NewCollectionWithOptions(trivial, ebpf.CollectionOptions{Cache: cache})
	if err == nil {
		coll.Close()
		return nil
	}
	if !isFeatureErrno(err) {
		return nil
	}
	kind := p.Provider
	if kind == "" {
		kind = ps.AttachType.String()
	}
	return &cannotAttach{fmt.Errorf("%s: the kernel refused to load a BPF trampoline (%s): %v", p.Name, kind, rootErrno(err))}
}

// isFeatureErrno reports whether err is the kind of error a kernel without
// a feature returns (as opposed to a verifier rejection of the program).
func isFeatureErrno(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, errENOTSUPP) || errors.Is(err, unix.EOPNOTSUPP) ||
		errors.Is(err, ebpf.ErrNotSupported)
}

// rootErrno returns the errno inside err, or err.
func rootErrno(err error) error {
	var errno unix.Errno
	if errors.As(err, &errno) {
		if errno == errENOTSUPP {
			return errors.New("operation not supported (ENOTSUPP)")
		}
		return errno
	}
	return err
}
