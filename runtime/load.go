package runtime

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/object"
)

// load creates the maps and programs of the collection.
func (s *entry) load() error {
	cache := s.opts.BTFCache
	if cache == nil {
		cache = btf.NewCache()
	}
	if !s.dryRun {
		if err := s.require(); err != nil {
			// bpftrace's words for a probe it cannot attach
			return fmt.Errorf("Unable to attach probe: %w", err)
		}
	}
	// fentry/fexit programs are loaded one by one (kfunc.go).
	stripped := withoutSources(s.prog.Collection)
	s.chooseUprobeMulti(stripped)
	spec, separate := splitSeparate(stripped)
	copts := ebpf.CollectionOptions{Cache: cache, MapReplacements: s.replacements(spec)}
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

// ErrStopped is returned by Session.Add when the session was asked to stop
// (a signal, its context) before the program's BEGIN probes ran: nothing
// of the program ran.
var ErrStopped = errors.New("runtime: stopped before the program started")

// loadOrStop loads as load does, unless the session is asked to stop
// first: then it returns ErrStopped at once. A load in the kernel (the
// verifier) cannot be interrupted: it goes on in the background, and what
// it made is closed when it ends (s.loading, Session.AddWithOptions).
func (s *entry) loadOrStop() error {
	if s.stopped() {
		return ErrStopped
	}
	done := make(chan error, 1)
	go func() { done <- s.load() }()
	for {
		select {
		case err := <-done:
			return err
		case <-s.wake: // stopAll wakes the entries it stops
			if s.stopped() {
				s.loading = done
				return ErrStopped
			}
		}
	}
}

// replacements returns the session's kernel maps that the program's maps
// of the same name (user maps, and the stack maps the session shares)
// are to be: the maps of a session outlive the programs that use them.
func (s *entry) replacements(spec *ebpf.CollectionSpec) map[string]*ebpf.Map {
	s.Session.mu.Lock()
	defer s.Session.mu.Unlock()
	repl := map[string]*ebpf.Map{}
	for _, m := range s.prog.Maps {
		if sm := s.maps[m.Name]; sm != nil && spec.Maps[m.BPFName] != nil {
			repl[m.BPFName] = sm.bm
		}
	}
	for role, name := range s.sharedNames() {
		if bm := s.shared[role]; bm != nil && name != "" && spec.Maps[name] != nil && spec.Maps[name].Compatible(bm) == nil {
			repl[name] = bm
		}
	}
	return repl
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
func (s *entry) failedProgram(err error) string {
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
func (s *entry) program(p *object.Probe) (*ebpf.Program, error) {
	bp := s.coll.Programs[p.Program]
	if bp == nil {
		return nil, fmt.Errorf("probe %s: program %q not in the collection", p.Name, p.Program)
	}
	return bp, nil
}

// runOnce runs a BEGIN or END program once with BPF_PROG_TEST_RUN.
func (s *entry) runOnce(p *object.Probe) error {
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
func (s *entry) writeGlobals() error {
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
	// The session's start: elapsed counts from it in every program.
	put := func(off int, ns uint64) error {
		if off < 0 {
			return nil
		}
		if off+8 > len(buf) {
			return fmt.Errorf("globals: offset %d out of range", off)
		}
		binary.NativeEndian.PutUint64(buf[off:], ns)
		return nil
	}
	if err := put(g.StartNsOffset, s.startMono); err != nil {
		return err
	}
	if err := put(g.StartBootOffset, s.startBoot); err != nil {
		return err
	}
	if err := m.Put(uint32(0), buf); err != nil {
		return fmt.Errorf("write globals: %w", err)
	}
	return nil
}
