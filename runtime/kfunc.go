package runtime

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/tracefs"
)

// Concurrency of kernel-function attach and detach (cmd/kbench, 1000
// functions, 6.12 under emulation). Detaching a kprobe or trampoline waits
// for RCU grace periods; closing from 32 goroutines took 1000 kprobes from
// ~80 s (sequential) to 51 s. Attaching from 16 goroutines was no faster
// than one at a time (kprobes ~31 ms each either way; trampolines 19 s for
// 1000 vs 7 s sequential): the kernel serialises it, so attach is
// sequential.
const (
	attachWorkers = 1
	detachWorkers = 32
)

// errENOTSUPP is the kernel-internal ENOTSUPP (524) that BPF syscalls leak.
const errENOTSUPP = unix.Errno(524)

// kfuncState is the kernel-function part of a session.
type kfuncState struct {
	mu      sync.Mutex
	refused map[string]string // program name -> function the kernel refused at load time
	skipped []string          // functions skipped because the kernel refused them
}

func (k *kfuncState) skip(fn string) {
	k.mu.Lock()
	k.skipped = append(k.skipped, fn)
	k.mu.Unlock()
}

// isKfunc reports whether p probes kernel functions or raw tracepoints.
func isKfunc(p *object.Probe) bool {
	switch p.Kind {
	case object.ProbeKprobe, object.ProbeKretprobe, object.ProbeFentry, object.ProbeFexit, object.ProbeRawTracepoint:
		return true
	}
	return false
}

// kindName is the provider name of a probe kind, for messages.
func kindName(k object.ProbeKind) string {
	switch k {
	case object.ProbeKprobe:
		return "kprobe"
	case object.ProbeKretprobe:
		return "kretprobe"
	case object.ProbeFentry:
		return "fentry"
	case object.ProbeFexit:
		return "fexit"
	case object.ProbeRawTracepoint:
		return "rawtracepoint"
	}
	return "probe"
}

// isWildcard reports whether failures of single targets of p are skipped:
// p belongs to a group of more than one target (a kprobe with several
// targets, or one of the programs of a trampoline wildcard). A single
// explicit target that fails is an error.
func (s *session) isWildcard(p *object.Probe) bool {
	return p.Group.Wildcard()
}

// probeLabel names a probe in messages: its name, and how many more
// functions it covers.
func probeLabel(p *object.Probe) string {
	if n := len(p.Targets); n > 1 {
		return fmt.Sprintf("%s (and %d more functions)", p.Name, n-1)
	}
	return p.Name
}

// preflight checks, before anything is loaded, that the kernel has the
// probe types the program needs, so that a missing feature is reported as
// one line naming it. Everything is feature-probed, never inferred from the
// kernel version.
func (s *session) preflight() error {
	for _, p := range s.prog.Probes {
		if p.Kind != object.ProbeKprobe && p.Kind != object.ProbeKretprobe {
			continue
		}
		if err := haveKprobes(s.opts.TracefsDir); err != nil {
			return fmt.Errorf("%s: %w", probeLabel(p), err)
		}
		return nil
	}
	return nil
}

// haveKprobes reports whether the kernel has kprobes: the kprobe PMU
// (/sys/bus/event_source/devices/kprobe, Linux 4.17+) or tracefs's
// kprobe_events, which exist exactly when CONFIG_KPROBES (with
// CONFIG_KPROBE_EVENTS) is set.
func haveKprobes(tracefsDir string) error {
	if _, err := os.Stat("/sys/bus/event_source/devices/kprobe/type"); err == nil {
		return nil
	}
	dir := tracefsDir
	if dir == "" {
		d, err := tracefs.Mount()
		if err != nil {
			return fmt.Errorf("cannot tell whether this kernel has kprobes: %w", err)
		}
		dir = d
	}
	events := filepath.Join(dir, "kprobe_events")
	if _, err := os.Stat(events); err == nil {
		return nil
	}
	return fmt.Errorf("this kernel has no kprobes (CONFIG_KPROBES is not set: %s is missing)", events)
}

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
func (s *session) loadSeparate(spec *ebpf.CollectionSpec, names []string, cache *btf.Cache) error {
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
			p = &object.Probe{Name: r.name, Program: r.name, Kind: object.ProbeFentry}
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
		return fmt.Errorf("the kernel refused every function of the fentry/fexit probes (%s)", skippedList(s.kf.skipped))
	}
	return nil
}

// loadOne loads one program of the collection in a collection of its own
// whose maps are those of s.coll.
func (s *session) loadOne(spec *ebpf.CollectionSpec, name string, cache *btf.Cache) (*ebpf.Program, error) {
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
func (s *session) trampolineFeature(p *object.Probe, ps *ebpf.ProgramSpec, cache *btf.Cache, loadErr error) error {
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
	kind := "fentry"
	if ps.AttachType == ebpf.AttachTraceFExit {
		kind = "fexit"
	}
	return fmt.Errorf("%s: the kernel refused to load a BPF trampoline (%s): %v", p.Name, kind, rootErrno(err))
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

// attachProbes attaches every probe: trampolines (fentry, fexit, tp_btf)
// concurrently, the others in order. It returns what the "Attaching N
// probes" count would have been reduced by skipped functions.
func (s *session) attachProbes(probes []*object.Probe) error {
	var tracing []*object.Probe
	for _, p := range probes {
		if s.stop.Load() {
			return nil
		}
		if _, refused := s.kf.refused[p.Program]; refused {
			continue
		}
		if p.Via != "" && !s.opts.Quiet {
			fmt.Fprintf(s.stderr, "%s: %s\n", p.Name, p.Via)
		}
		switch p.Kind {
		case object.ProbeFentry, object.ProbeFexit, object.ProbeRawTracepoint:
			if bp := s.coll.Programs[p.Program]; bp != nil && bp.Type() == ebpf.Tracing {
				tracing = append(tracing, p)
				continue
			}
		}
		if _, err := s.attach(p); err != nil {
			return err
		}
	}
	if err := s.attachTracing(tracing); err != nil {
		return err
	}
	if n := len(s.kf.skipped); n > 0 {
		fmt.Fprintf(s.stderr, "skipped %d function%s the kernel refused: %s\n", n, plural(n), skippedList(s.kf.skipped))
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// skippedList renders up to 8 names, sorted.
func skippedList(names []string) string {
	names = slices.Clone(names)
	slices.Sort(names)
	const show = 8
	if len(names) > show {
		return strings.Join(names[:show], ", ") + ", ..."
	}
	return strings.Join(names, ", ")
}

// attachTracing attaches one-target Tracing programs (fentry, fexit, tp_btf)
// concurrently. Their links are detached concurrently too.
func (s *session) attachTracing(probes []*object.Probe) error {
	if len(probes) == 0 {
		return nil
	}
	start := time.Now()
	links := make([]link.Link, len(probes))
	errs := make([]error, len(probes))
	parallel(len(probes), attachWorkers, func(i int) {
		p := probes[i]
		bp := s.coll.Programs[p.Program]
		links[i], errs[i] = link.AttachTracing(link.TracingOptions{Program: bp, AttachType: s.attachType(p)})
	})
	var got []io.Closer
	var firstErr error
	for i, p := range probes {
		if errs[i] == nil {
			got = append(got, links[i])
			continue
		}
		target := p.Name
		if len(p.Targets) == 1 {
			target = p.Targets[0]
		}
		if s.isWildcard(p) {
			s.kf.skip(target)
			continue
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("attach %s: %w", p.Name, errs[i])
		}
	}
	s.attached.push(closeGroup(got))
	if firstErr != nil {
		return firstErr
	}
	if len(got) == 0 {
		return fmt.Errorf("the kernel refused every function (%s)", skippedList(s.kf.skipped))
	}
	if !s.opts.Quiet {
		perKind := map[object.ProbeKind]int{}
		for i, p := range probes {
			if errs[i] == nil {
				perKind[p.Kind]++
			}
		}
		for _, k := range []object.ProbeKind{object.ProbeFentry, object.ProbeFexit, object.ProbeRawTracepoint} {
			if n := perKind[k]; n > 1 {
				fmt.Fprintf(s.stderr, "%s: attached %d functions through %d trampolines in %.2fs\n", kindName(k), n, n, time.Since(start).Seconds())
			}
		}
	}
	return nil
}

// splitOffset splits a kprobe target "func+offset".
func splitOffset(target string) (string, uint64, error) {
	fn, off, ok := strings.Cut(target, "+")
	if !ok {
		return target, 0, nil
	}
	v, err := strconv.ParseUint(off, 0, 64)
	if err != nil {
		return "", 0, fmt.Errorf("bad kprobe offset in %q", target)
	}
	return fn, v, nil
}

// attachKprobes attaches a kprobe or kretprobe program to its targets:
// through one kprobe_multi link when the program was loaded for it, else
// one kprobe per target, attached by a bounded pool of goroutines and
// detached the same way.
func (s *session) attachKprobes(p *object.Probe, bp *ebpf.Program) (int, error) {
	ret := p.Kind == object.ProbeKretprobe
	if s.attachType(p) == ebpf.AttachTraceKprobeMulti {
		return s.attachKprobeMulti(p, bp, ret)
	}
	start := time.Now()
	links := make([]link.Link, len(p.Targets))
	errs := make([]error, len(p.Targets))
	parallel(len(p.Targets), attachWorkers, func(i int) {
		fn, off, err := splitOffset(p.Targets[i])
		if err != nil {
			errs[i] = err
			return
		}
		opts := &link.KprobeOptions{Offset: off, TraceFSPrefix: "gotrace"}
		if ret {
			links[i], errs[i] = link.Kretprobe(fn, bp, opts)
		} else {
			links[i], errs[i] = link.Kprobe(fn, bp, opts)
		}
	})
	var got []io.Closer
	var firstErr error
	for i, t := range p.Targets {
		if errs[i] == nil {
			got = append(got, links[i])
			continue
		}
		if len(p.Targets) > 1 {
			s.kf.skip(t)
			continue
		}
		if firstErr == nil {
			firstErr = fmt.Errorf("attach %s to %s: %w", p.Name, t, errs[i])
		}
	}
	s.attached.push(closeGroup(got))
	if firstErr != nil {
		return 0, firstErr
	}
	if len(got) == 0 {
		return 0, fmt.Errorf("attach %s: the kernel refused every function (%s)", p.Name, skippedList(s.kf.skipped))
	}
	if len(p.Targets) > 1 && !s.opts.Quiet {
		fmt.Fprintf(s.stderr, "%s: attached %d functions through %d separate %ss in %.2fs (no kprobe_multi)\n",
			kindName(p.Kind), len(got), len(got), kindName(p.Kind), time.Since(start).Seconds())
	}
	return len(got), nil
}

// attachKprobeMulti attaches every target through one kprobe_multi link.
// When the kernel refuses the set, the functions it refuses are found by
// bisection, skipped, and the rest attached in one link.
func (s *session) attachKprobeMulti(p *object.Probe, bp *ebpf.Program, ret bool) (int, error) {
	start := time.Now()
	try := func(syms []string) (link.Link, error) {
		opts := link.KprobeMultiOptions{Symbols: syms}
		if ret {
			return link.KretprobeMulti(bp, opts)
		}
		return link.KprobeMulti(bp, opts)
	}
	syms := make([]string, 0, len(p.Targets))
	for _, t := range p.Targets {
		fn, off, err := splitOffset(t)
		if err != nil {
			return 0, err
		}
		if off != 0 {
			return 0, fmt.Errorf("attach %s: kprobe_multi cannot attach at an offset (%s)", p.Name, t)
		}
		syms = append(syms, fn)
	}
	l, err := try(syms)
	if err != nil {
		if len(syms) == 1 {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		if errors.Is(err, ebpf.ErrNotSupported) {
			return 0, fmt.Errorf("attach %s: kprobe_multi: %w", p.Name, err)
		}
		var bad []string
		good := bisectRefused(syms, try, &bad)
		for _, b := range bad {
			s.kf.skip(b)
		}
		if len(good) == 0 {
			return 0, fmt.Errorf("attach %s: the kernel refused every function (%s): %w", p.Name, skippedList(bad), err)
		}
		if l, err = try(good); err != nil {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		syms = good
	}
	s.attached.push(l)
	if len(syms) > 1 && !s.opts.Quiet {
		fmt.Fprintf(s.stderr, "%s: attached %d functions through one kprobe_multi link in %.2fs\n",
			kindName(p.Kind), len(syms), time.Since(start).Seconds())
	}
	return len(syms), nil
}

// bisectRefused returns the symbols of syms that try accepts together,
// appending the ones it refuses to bad. Every trial link is closed.
func bisectRefused(syms []string, try func([]string) (link.Link, error), bad *[]string) []string {
	l, err := try(syms)
	if err == nil {
		_ = l.Close()
		return syms
	}
	if len(syms) == 1 {
		*bad = append(*bad, syms[0])
		return nil
	}
	mid := len(syms) / 2
	left := bisectRefused(syms[:mid], try, bad)
	right := bisectRefused(syms[mid:], try, bad)
	return append(slices.Clip(left), right...)
}

// closeGroup returns a Closer that closes cs concurrently.
func closeGroup(cs []io.Closer) io.Closer {
	return closerFunc(func() error {
		errs := make([]error, len(cs))
		parallel(len(cs), detachWorkers, func(i int) { errs[i] = cs[i].Close() })
		return errors.Join(errs...)
	})
}

// parallel runs f(0..n-1) on at most workers goroutines.
func parallel(n, workers int, f func(i int)) {
	if n <= 1 || workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
