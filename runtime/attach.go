package runtime

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/tracefs"
)

// The session is the provider.Attacher of its probes: each provider's
// Attach hook (package provider) attaches its kind, and pushes what it
// attached on s.attached.
var _ provider.Attacher = (*entry)(nil)

// require checks, before anything is loaded, that the kernel has what each
// provider of the program needs (tracefs for tracepoints, kprobes), so
// that a missing feature is reported as one line naming it.
func (s *entry) require() error {
	for _, p := range s.prog.Probes {
		def := provider.Lookup(p.Provider)
		if def == nil || def.Require == nil {
			continue
		}
		if err := def.Require(s, p); err != nil {
			return err
		}
	}
	return nil
}

// attach attaches one probe to all its targets through its provider and
// returns how many attach points it counts for in "Attached N probes": one
// per target (one for interval, profile and software probes, however many
// CPUs they run on).
func (s *entry) attach(p *object.Probe) (int, error) {
	bp, err := s.program(p)
	if err != nil {
		return 0, err
	}
	def := provider.Lookup(p.Provider)
	if def == nil || def.Attach == nil {
		return 0, fmt.Errorf("attach %s: unsupported provider %q", p.Name, p.Provider)
	}
	return def.Attach(s, p, bp)
}

// Push implements provider.Attacher.
func (s *entry) Push(c io.Closer) { s.attached.push(c) }

// PushAll implements provider.Attacher: cs close concurrently.
func (s *entry) PushAll(cs []io.Closer) { s.attached.push(closeGroup(cs)) }

// Skip implements provider.Attacher.
func (s *entry) Skip(target string) { s.kf.skip(target) }

// Skipped implements provider.Attacher.
func (s *entry) Skipped() []string {
	s.kf.mu.Lock()
	defer s.kf.mu.Unlock()
	return slices.Clone(s.kf.skipped)
}

// Note implements provider.Attacher.
func (s *entry) Note(msg string) {
	if !s.opts.Quiet {
		s.sink.Info(msg)
	}
}

// Tracefs implements provider.Attacher: the tracefs environment, mounting
// tracefs when Options.TracefsDir is "".
func (s *entry) Tracefs() (*tracefs.Env, error) {
	if s.env != nil {
		return s.env, nil
	}
	dir := s.opts.TracefsDir
	if dir == "" {
		var err error
		if dir, err = tracefs.Mount(); err != nil {
			return nil, err
		}
	}
	s.env = tracefs.NewEnv(dir, tracefs.WithKernelFiles(tracefs.LiveKernel()))
	return s.env, nil
}

// OnlineCPUs implements provider.Attacher.
func (s *entry) OnlineCPUs() ([]int, error) { return onlineCPUs() }

// Pid implements provider.Attacher.
func (s *entry) Pid() int { return s.opts.Pid }

// Child implements provider.Attacher.
func (s *entry) Child() int { return s.opts.Cpid }

// Stdout implements provider.Attacher.
func (s *entry) Stdout() io.Writer { return s.stdout }

// Unsafe implements provider.Attacher.
func (s *entry) Unsafe() bool { return s.opts.Unsafe }

// AttachType implements provider.Attacher: the attach type the program was
// loaded with.
func (s *entry) AttachType(p *object.Probe) ebpf.AttachType {
	if s.uprobeMulti[p.Program] {
		return ebpf.AttachTraceUprobeMulti
	}
	if ps := s.prog.Collection.Programs[p.Program]; ps != nil {
		return ps.AttachType
	}
	return ebpf.AttachNone
}

// Map implements provider.Attacher.
func (s *entry) Map(name string) *ebpf.Map { return s.coll.Maps[name] }

// onlineCPUs lists the online CPUs.
func onlineCPUs() ([]int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, fmt.Errorf("list online CPUs: %w", err)
	}
	cpus, err := parseCPUList(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("list online CPUs: %w", err)
	}
	return cpus, nil
}

// parseCPUList parses a kernel CPU list such as "0-3,5,7-8".
func parseCPUList(s string) ([]int, error) {
	var cpus []int
	for _, part := range strings.Split(s, ",") {
		if part == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("bad CPU list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU list %q", s)
			}
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) == 0 {
		return nil, fmt.Errorf("empty CPU list %q", s)
	}
	return cpus, nil
}
