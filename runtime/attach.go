package runtime

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
)

// attach attaches one probe to all its targets and returns how many attach
// points it counts for in "Attached N probes": one per target (one for
// interval, profile and software probes, however many CPUs they run on).
// What it attaches is pushed on s.attached.
func (s *session) attach(p *object.Probe) (int, error) {
	bp, err := s.program(p)
	if err != nil {
		return 0, err
	}
	switch p.Kind {
	case object.ProbeTracepoint:
		for _, t := range p.Targets {
			if err := s.attachTracepoint(p, bp, t); err != nil {
				return 0, err
			}
		}
		return len(p.Targets), nil
	case object.ProbeInterval:
		if p.Period == 0 {
			return 0, fmt.Errorf("attach %s: zero period", p.Name)
		}
		attr := cpuClock(p.Period, 0)
		if err := s.attachPerf(p, bp, &attr, []int{0}); err != nil {
			return 0, err
		}
		return 1, nil
	case object.ProbeProfile:
		if p.Freq == 0 && p.Period == 0 {
			return 0, fmt.Errorf("attach %s: zero frequency", p.Name)
		}
		attr := cpuClock(p.Period, p.Freq)
		cpus, err := onlineCPUs()
		if err != nil {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		if err := s.attachPerf(p, bp, &attr, cpus); err != nil {
			return 0, err
		}
		return 1, nil
	case object.ProbeSoftware:
		if p.Period == 0 {
			return 0, fmt.Errorf("attach %s: zero period", p.Name)
		}
		attr := unix.PerfEventAttr{
			Type:   unix.PERF_TYPE_SOFTWARE,
			Config: p.Config,
			Sample: p.Period,
		}
		cpus, err := onlineCPUs()
		if err != nil {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		if err := s.attachPerf(p, bp, &attr, cpus); err != nil {
			return 0, err
		}
		return 1, nil
	case object.ProbeRawTracepoint:
		for _, t := range p.Targets {
			var l link.Link
			var err error
			if bp.Type() == ebpf.Tracing {
				// tp_btf: the target was fixed when loading.
				l, err = link.AttachTracing(link.TracingOptions{Program: bp, AttachType: s.attachType(p)})
			} else {
				name := t
				if i := strings.LastIndexByte(name, ':'); i >= 0 {
					name = name[i+1:]
				}
				l, err = link.AttachRawTracepoint(link.RawTracepointOptions{Name: name, Program: bp})
			}
			if err != nil {
				return 0, fmt.Errorf("attach %s to %s: %w", p.Name, t, err)
			}
			s.attached.push(l)
		}
		return len(p.Targets), nil
	case object.ProbeFentry, object.ProbeFexit:
		l, err := link.AttachTracing(link.TracingOptions{Program: bp, AttachType: s.attachType(p)})
		if err != nil {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		s.attached.push(l)
		return max(len(p.Targets), 1), nil
	case object.ProbeKprobe, object.ProbeKretprobe:
		return s.attachKprobes(p, bp)
	case object.ProbeUprobe, object.ProbeUretprobe:
		for _, t := range p.Targets {
			if err := s.attachUprobe(p, bp, t); err != nil {
				return 0, err
			}
		}
		return len(p.Targets), nil
	}
	return 0, fmt.Errorf("attach %s: unsupported probe kind %d", p.Name, p.Kind)
}

// attachType returns the attach type the program was loaded with.
func (s *session) attachType(p *object.Probe) ebpf.AttachType {
	if ps := s.prog.Collection.Programs[p.Program]; ps != nil {
		return ps.AttachType
	}
	return ebpf.AttachNone
}

// attachUprobe attaches to a target "PATH:SYMBOL", "PATH:SYMBOL+OFFSET" or
// "PATH:0xADDRESS".
func (s *session) attachUprobe(p *object.Probe, bp *ebpf.Program, target string) error {
	i := strings.LastIndexByte(target, ':')
	if i <= 0 || i == len(target)-1 {
		return fmt.Errorf("attach %s: bad uprobe target %q, want PATH:SYMBOL", p.Name, target)
	}
	path, sym := target[:i], target[i+1:]
	ex, err := link.OpenExecutable(path)
	if err != nil {
		return fmt.Errorf("attach %s: %w", p.Name, err)
	}
	var uopts link.UprobeOptions
	if addr, err := strconv.ParseUint(sym, 0, 64); err == nil && strings.HasPrefix(sym, "0x") {
		uopts.Address = addr
		sym = ""
	} else if j := strings.LastIndexByte(sym, '+'); j > 0 {
		off, err := strconv.ParseUint(sym[j+1:], 0, 64)
		if err != nil {
			return fmt.Errorf("attach %s: bad offset in %q", p.Name, target)
		}
		sym, uopts.Offset = sym[:j], off
	}
	var l link.Link
	if p.Kind == object.ProbeUprobe {
		l, err = ex.Uprobe(sym, bp, &uopts)
	} else {
		l, err = ex.Uretprobe(sym, bp, &uopts)
	}
	if err != nil {
		return fmt.Errorf("attach %s to %s: %w", p.Name, target, err)
	}
	s.attached.push(l)
	return nil
}

// attachTracepoint attaches bp to the tracepoint "CATEGORY:EVENT" through a
// PERF_TYPE_TRACEPOINT perf event.
func (s *session) attachTracepoint(p *object.Probe, bp *ebpf.Program, target string) error {
	cat, ev, ok := strings.Cut(target, ":")
	if !ok {
		return fmt.Errorf("attach %s: bad tracepoint %q, want CATEGORY:EVENT", p.Name, target)
	}
	id, err := s.env.TracepointID(cat, ev)
	if err != nil {
		return fmt.Errorf("attach %s: %w", p.Name, err)
	}
	attr := unix.PerfEventAttr{
		Type:        unix.PERF_TYPE_TRACEPOINT,
		Config:      uint64(id),
		Sample_type: unix.PERF_SAMPLE_RAW,
		Sample:      1,
		Wakeup:      1,
	}
	// A tracepoint perf event opened for all processes (pid -1) on one CPU
	// runs its BPF program on every CPU.
	if err := s.attachPerf(p, bp, &attr, []int{0}); err != nil {
		return fmt.Errorf("tracepoint %s: %w", target, err)
	}
	return nil
}

// cpuClock returns a PERF_COUNT_SW_CPU_CLOCK event firing every period ns,
// or freq times a second when freq is not 0.
func cpuClock(period, freq uint64) unix.PerfEventAttr {
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_SOFTWARE,
		Config: unix.PERF_COUNT_SW_CPU_CLOCK,
		Sample: period,
	}
	if freq != 0 {
		attr.Sample = freq
		attr.Bits |= unix.PerfBitFreq
	}
	return attr
}

// attachPerf opens the perf event attr for all processes on each of cpus
// and attaches bp to each.
func (s *session) attachPerf(p *object.Probe, bp *ebpf.Program, attr *unix.PerfEventAttr, cpus []int) error {
	attr.Size = uint32(unsafe.Sizeof(*attr))
	for _, cpu := range cpus {
		fd, err := unix.PerfEventOpen(attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			return fmt.Errorf("attach %s: perf_event_open on CPU %d: %w", p.Name, cpu, err)
		}
		c, err := attachPerfFD(fd, bp)
		if err != nil {
			_ = unix.Close(fd)
			return fmt.Errorf("attach %s: %w", p.Name, err)
		}
		s.attached.push(c)
	}
	return nil
}

// attachPerfFD attaches bp to the perf event fd, through a bpf_link (Linux
// 5.15+) or else PERF_EVENT_IOC_SET_BPF. The returned Closer detaches and
// closes fd; on error fd is left open.
func attachPerfFD(fd int, bp *ebpf.Program) (closerFunc, error) {
	l, err := link.AttachRawLink(link.RawLinkOptions{Target: fd, Program: bp, Attach: ebpf.AttachPerfEvent})
	if err == nil {
		// The event was opened enabled.
		return func() error { return errors.Join(l.Close(), unix.Close(fd)) }, nil
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_BPF, bp.FD()); err != nil {
		return nil, fmt.Errorf("attach BPF program to perf event: %w", err)
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
		return nil, fmt.Errorf("enable perf event: %w", err)
	}
	return func() error { return unix.Close(fd) }, nil
}

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
