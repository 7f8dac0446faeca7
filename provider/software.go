package provider

import (
	"fmt"
	"io"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
)

// perfEvent is one perf event of the software or hardware provider: its
// name, alias, PERF_COUNT_* config and bpftrace's default sample period.
type perfEvent struct {
	Name, Alias string
	Config      uint64
	Period      uint64
}

// softwareEvents are the PERF_TYPE_SOFTWARE events, sorted by name.
var softwareEvents = []perfEvent{
	{"alignment-faults", "", unix.PERF_COUNT_SW_ALIGNMENT_FAULTS, 1},
	{"bpf-output", "", unix.PERF_COUNT_SW_BPF_OUTPUT, 1},
	{"context-switches", "cs", unix.PERF_COUNT_SW_CONTEXT_SWITCHES, 1000},
	{"cpu-clock", "cpu", unix.PERF_COUNT_SW_CPU_CLOCK, 1000000},
	{"cpu-migrations", "", unix.PERF_COUNT_SW_CPU_MIGRATIONS, 1},
	{"dummy", "", unix.PERF_COUNT_SW_DUMMY, 1},
	{"emulation-faults", "", unix.PERF_COUNT_SW_EMULATION_FAULTS, 1},
	{"major-faults", "", unix.PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1},
	{"minor-faults", "", unix.PERF_COUNT_SW_PAGE_FAULTS_MIN, 100},
	{"page-faults", "faults", unix.PERF_COUNT_SW_PAGE_FAULTS, 100},
	{"task-clock", "", unix.PERF_COUNT_SW_TASK_CLOCK, 1000000},
}

// findEvent looks an event up by name or alias.
func findEvent(events []perfEvent, name string) (perfEvent, bool) {
	for _, e := range events {
		if e.Name == name || e.Alias != "" && e.Alias == name {
			return e, true
		}
	}
	return perfEvent{}, false
}

// listEvents lists events and their aliases as bpftrace -l does
// ("software:cpu-clock:").
func listEvents(w io.Writer, provider string, events []perfEvent, pattern string) {
	for _, e := range events {
		for _, n := range []string{e.Name, e.Alias} {
			if n != "" && (matchGlob(pattern, n) || matchGlob(pattern, n+":")) {
				fmt.Fprintf(w, "%s:%s:\n", provider, n)
			}
		}
	}
}

// softwareProvider is software:EVENT[:COUNT], a PERF_TYPE_SOFTWARE event
// sampled every COUNT events on every CPU, for the -p process when given.
var softwareProvider = perfEventProvider("software", "s", unix.PERF_TYPE_SOFTWARE, softwareEvents)

// perfEventProvider is a provider of perf events of one type (software,
// hardware): name:EVENT[:COUNT], sampled every COUNT events on every CPU,
// for the -p process when given.
func perfEventProvider(name, alias string, typ uint32, events []perfEvent) *Provider {
	return &Provider{
		Name:    name,
		Aliases: []string{alias},
		Expand: func(_ ExpandEnv, raw string, parts []string) ([]*Point, error) {
			return expandPerfEvent(name, events, raw, parts)
		},
		Ctx:       CtxPerfSample,
		UserArgs:  never,
		ProbeType: name,
		Listing:   withoutPeriod,
		Compile: func(pts []*Point, _ Features, probe *object.Probe) Program {
			probe.Provider = name
			s := pts[0].Data.(perfSample)
			ev, _ := findEvent(events, s.event)
			probe.Config = ev.Config
			probe.Period = s.period
			return Program{Type: ebpf.PerfEvent, Ctx: CtxPerfSample}
		},
		Attach: func(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
			if p.Period == 0 {
				return 0, fmt.Errorf("attach %s: zero period", p.Name)
			}
			attr := unix.PerfEventAttr{
				Type:   typ,
				Config: p.Config,
				Sample: p.Period,
			}
			cpus, err := a.OnlineCPUs()
			if err != nil {
				return 0, fmt.Errorf("attach %s: %w", p.Name, err)
			}
			if err := attachPerf(a, p, prog, &attr, taskPid(a), cpus); err != nil {
				return 0, err
			}
			return 1, nil
		},
		List: func(w io.Writer, _ ListEnv, pattern string, _ bool) error {
			listEvents(w, name, events, pattern)
			return nil
		},
		ListAll: true,
	}
}

// expandPerfEvent reads KIND:EVENT[:COUNT]; an empty or missing COUNT
// is the event's default period.
func expandPerfEvent(kind string, events []perfEvent, raw string, parts []string) ([]*Point, error) {
	if len(parts) < 1 || len(parts) > 2 || parts[0] == "" {
		return nil, fmt.Errorf("%s probe must have a %s event name", kind, kind)
	}
	if HasGlob(parts[0]) {
		return nil, fmt.Errorf("wildcards are not allowed for %s probe type", kind)
	}
	ev, ok := findEvent(events, parts[0])
	if !ok {
		return nil, fmt.Errorf("%s is not a %s probe", parts[0], kind)
	}
	period := ev.Period
	if len(parts) == 2 && parts[1] != "" {
		v, err := parseCount(parts[1])
		if err != nil {
			return nil, err
		}
		period = v
	}
	return []*Point{{Name: fmt.Sprintf("%s:%s:%d", kind, parts[0], period), Data: perfSample{event: parts[0], period: period}}}, nil
}

// perfSample is the Point.Data of a software or hardware point: the event
// as written and its sample period.
type perfSample struct {
	event  string
	period uint64
}
