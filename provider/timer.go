package provider

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/object"
)

// timeUnits are the units of interval and profile, as -l lists them.
var timeUnits = []string{"hz", "ms", "s", "us"}

// intervalProvider is interval:UNIT:N (or interval:N nanoseconds): a
// cpu-clock perf event on one CPU.
var intervalProvider = timer("interval", "i", false)

// profileProvider is profile:UNIT:N (or profile:N nanoseconds): a
// cpu-clock perf event on every CPU, for the -p process when given.
var profileProvider = timer("profile", "p", true)

func timer(name, alias string, everyCPU bool) *Provider {
	return &Provider{
		Name:      name,
		Aliases:   []string{alias},
		Expand:    func(_ ExpandEnv, raw string, parts []string) ([]*Point, error) { return expandTimer(name, raw, parts) },
		Ctx:       CtxPerfSample,
		UserArgs:  never,
		ProbeType: name,
		Listing:   withoutPeriod,
		Compile: func(pts []*Point, _ Features, probe *object.Probe) Program {
			probe.Provider = name
			r := pts[0].Data.(timerRate)
			switch r.unit {
			case "s":
				probe.Period = r.value * 1e9
			case "ms":
				probe.Period = r.value * 1e6
			case "us":
				probe.Period = r.value * 1e3
			case "hz":
				if everyCPU {
					probe.Freq = r.value
				} else {
					probe.Period = 1e9 / r.value
				}
			}
			return Program{Type: ebpf.PerfEvent, Ctx: CtxPerfSample}
		},
		Require: func(_ Attacher, p *object.Probe) error {
			return checkSampleRate(p, maxSampleRatePath)
		},
		Attach: func(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
			if !everyCPU {
				if p.Period == 0 {
					return 0, fmt.Errorf("attach %s: zero period", p.Name)
				}
				attr := cpuClock(p.Period, 0)
				if err := attachPerf(a, p, prog, &attr, -1, []int{0}); err != nil {
					return 0, err
				}
				return 1, nil
			}
			if p.Freq == 0 && p.Period == 0 {
				return 0, fmt.Errorf("attach %s: zero frequency", p.Name)
			}
			attr := cpuClock(p.Period, p.Freq)
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
			for _, u := range timeUnits {
				if matchGlob(pattern, u) || matchGlob(pattern, u+":") {
					fmt.Fprintf(w, "%s:%s:\n", name, u)
				}
			}
			return nil
		},
	}
}

// expandTimer reads interval and profile attach points as bpftrace 0.26
// does: UNIT:COUNT with UNIT s, ms, us or hz, or a single number of
// nanoseconds (a time suffix allowed: 500ms, 1s) of at least 1000, which
// becomes microseconds.
func expandTimer(name, raw string, parts []string) ([]*Point, error) {
	var unit string
	var v uint64
	switch len(parts) {
	case 1:
		ns, err := parseNumber(parts[0])
		if err != nil {
			return nil, fmt.Errorf("invalid rate of %s probe: %v", name, err)
		}
		if ns < 1000 {
			return nil, fmt.Errorf("invalid rate of %s probe: the minimum is 1000 or 1us, found %d nanoseconds", name, ns)
		}
		unit, v = "us", ns/1000
	case 2:
		unit = parts[0]
		switch unit {
		case "s", "ms", "us", "hz":
		default:
			return nil, fmt.Errorf("invalid %s unit %q: want s, ms, us or hz", name, unit)
		}
		var err error
		if v, err = parseCount(parts[1]); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%s must be %s:unit:count, got %q", name, name, raw)
	}
	return []*Point{{Name: fmt.Sprintf("%s:%s:%d", name, unit, v), Data: timerRate{unit: unit, value: v}}}, nil
}

// maxSampleRatePath holds the kernel's limit on perf sampling frequencies.
const maxSampleRatePath = "/proc/sys/kernel/perf_event_max_sample_rate"

// checkSampleRate refuses a sampling frequency (profile:hz:N) above the
// kernel's perf_event_max_sample_rate, which perf_event_open would reject
// with a bare "invalid argument" after "Attaching".
func checkSampleRate(p *object.Probe, path string) error {
	if p.Freq == 0 {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil // no limit to compare with; the attach reports it
	}
	limit, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 64)
	if err != nil || p.Freq <= limit {
		return nil
	}
	return fmt.Errorf("%s: %d Hz is above the kernel's maximum sampling rate of %d Hz (%s)", p.Name, p.Freq, limit, path)
}

// timerRate is the Point.Data of an interval or profile point: the unit
// ("s", "ms", "us" or "hz") and the number.
type timerRate struct {
	unit  string
	value uint64
}
