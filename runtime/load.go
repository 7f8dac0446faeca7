package runtime

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
)

// load creates the maps and programs of the collection.
func (s *session) load() error {
	cache := s.opts.BTFCache
	if cache == nil {
		cache = btf.NewCache()
	}
	if !s.dryRun {
		if err := s.require(); err != nil {
			return err
		}
	}
	// fentry/fexit programs are loaded one by one (kfunc.go).
	stripped := withoutSources(s.prog.Collection)
	spec, separate := splitSeparate(stripped)
	copts := ebpf.CollectionOptions{Cache: cache}
	if s.opts.Verbose != nil {
		copts.Programs.LogLevel = ebpf.LogLevelStats
	}
	coll, err := ebpf.NewCollectionWithOptions(spec, copts)
	if err != nil {
		le := &LoadError{Err: err}
		var ve *ebpf.VerifierError
		if errors.As(err, &ve) {
			le.Program = s.failedProgram(err)
		}
		return le
	}
	if s.opts.Verbose != nil {
		if err := s.checkLogSize(coll); err != nil {
			coll.Close()
			return err
		}
	}
	s.coll = coll
	s.others.push(closerFunc(func() error { coll.Close(); return nil }))
	s.printVerbose(spec)
	return s.loadSeparate(stripped, separate, cache)
}

// errStopped is loadOrStop's answer to a stop that came first.
var errStopped = errors.New("stopped before the program started")

// loadOrStop loads as load does, unless ctx is done first: then it returns
// errStopped at once. A load in the kernel (the verifier) cannot be
// interrupted: it goes on in the background, and what it made is closed
// when it ends (Run's deferred close waits on s.loading).
func (s *session) loadOrStop(ctx context.Context) error {
	if ctx.Err() != nil {
		return errStopped
	}
	done := make(chan error, 1)
	go func() { done <- s.load() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		s.loading = done
		return errStopped
	}
}

// endUnstarted ends a run stopped before its BEGIN probes ran: no probe
// runs, and the output ends as a run without events ends.
func (s *session) endUnstarted() error {
	if s.json() {
		return nil
	}
	return s.write("\n\n")
}

// withoutSources returns a copy of spec whose instructions carry no source
// tags. The tags would make the library build BTF line info (and probe the
// kernel for it) on every start; the verifier's instruction numbers are
// mapped back to the script from the original spec instead
// (codegen.VerifierPosition).
func withoutSources(spec *ebpf.CollectionSpec) *ebpf.CollectionSpec {
	cp := spec.Copy()
	for _, p := range cp.Programs {
		for i := range p.Instructions {
			if p.Instructions[i].Source() != nil {
				p.Instructions[i] = p.Instructions[i].WithSource(nil)
			}
		}
	}
	return cp
}

// failedProgram finds which program an ebpf load error is about: the
// library names it as `program NAME: ...`.
func (s *session) failedProgram(err error) string {
	msg := err.Error()
	best := ""
	for name := range s.prog.Collection.Programs {
		if len(name) > len(best) && strings.Contains(msg, "program "+name+":") {
			best = name
		}
	}
	return best
}

// program returns the loaded program of a probe.
func (s *session) program(p *object.Probe) (*ebpf.Program, error) {
	bp := s.coll.Programs[p.Program]
	if bp == nil {
		return nil, fmt.Errorf("probe %s: program %q not in the collection", p.Name, p.Program)
	}
	return bp, nil
}

// runOnce runs a BEGIN or END program once with BPF_PROG_TEST_RUN.
func (s *session) runOnce(p *object.Probe) error {
	bp, err := s.program(p)
	if err != nil {
		return err
	}
	if _, err := bp.Run(&ebpf.RunOptions{}); err != nil {
		return fmt.Errorf("run %s probe: %w", p.Name, err)
	}
	return nil
}

// writeGlobals fills in the globals map.
func (s *session) writeGlobals() error {
	g := s.prog.Globals
	if s.prog.GlobalsMap == "" {
		return nil
	}
	m := s.coll.Maps[s.prog.GlobalsMap]
	if m == nil {
		return fmt.Errorf("globals map %q not in the collection", s.prog.GlobalsMap)
	}
	size := g.Size
	if size <= 0 {
		size = int(m.ValueSize())
	}
	buf := make([]byte, size)
	put := func(off int, clock int32) error {
		if off < 0 {
			return nil
		}
		if off+8 > len(buf) {
			return fmt.Errorf("globals: offset %d out of range", off)
		}
		var ts unix.Timespec
		if err := unix.ClockGettime(clock, &ts); err != nil {
			return fmt.Errorf("read clock: %w", err)
		}
		binary.NativeEndian.PutUint64(buf[off:], uint64(ts.Nano()))
		return nil
	}
	if err := put(g.StartNsOffset, unix.CLOCK_MONOTONIC); err != nil {
		return err
	}
	if err := put(g.StartBootOffset, unix.CLOCK_BOOTTIME); err != nil {
		return err
	}
	if err := m.Put(uint32(0), buf); err != nil {
		return fmt.Errorf("write globals: %w", err)
	}
	return nil
}
