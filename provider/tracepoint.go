package provider

import (
	"fmt"
	"io"
	"strings"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
)

// tracepointProvider is tracepoint:CATEGORY:EVENT, a perf-event
// tracepoint whose args are the fields of its format file.
var tracepointProvider = &Provider{
	Name:            "tracepoint",
	Aliases:         []string{"t"},
	Expand:          expandTracepoint,
	ArgsType:        ArgsBuilder.TracepointArgs,
	ArgsInCtx:       true,
	Ctx:             CtxTracepointRecord,
	UserArgs:        func(pt *Point) bool { return pt.Category == "syscalls" },
	ProbeType:       "tracepoint",
	SharesProgram:   true,
	ProgramPerMatch: wildTarget,
	PidFilter:       true,
	Dispatch:        SyscallDirection,
	Compile: func(pts []*Point, f Features, probe *object.Probe) Program {
		probe.Provider = "tracepoint"
		for _, p := range pts {
			probe.Targets = append(probe.Targets, TracepointTarget{Category: p.Category, Event: p.Event})
		}
		if f.SyscallRawTp && SyscallDirection(pts) != "" {
			// Served by the dispatcher on the raw tracepoint (syscalls.go).
			return Program{Type: ebpf.RawTracepoint, Ctx: CtxSyscall}
		}
		return Program{Type: ebpf.TracePoint, Ctx: CtxTracepointRecord}
	},
	Require: func(a Attacher, _ *object.Probe) error {
		_, err := a.Tracefs()
		return err
	},
	Attach: func(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
		if prog.Type() == ebpf.RawTracepoint {
			return attachSyscall(a, p, prog)
		}
		for _, t := range p.Targets {
			if err := attachTracepoint(a, p, prog, t); err != nil {
				return 0, err
			}
		}
		return len(p.Targets), nil
	},
	List:    listTracepoints,
	ListAll: true,
}

func expandTracepoint(env ExpandEnv, raw string, parts []string) ([]*Point, error) {
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("tracepoint must be tracepoint:category:event, got %q", raw)
	}
	if env == nil {
		return nil, fmt.Errorf("tracepoints are unavailable: no tracing environment")
	}
	names, err := env.Tracepoints(parts[0] + ":" + parts[1])
	if err != nil {
		return nil, fmt.Errorf("listing tracepoints: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("No matches for tracepoint %s:%s.", parts[0], parts[1])
	}
	var out []*Point
	for _, n := range names {
		cat, ev, _ := strings.Cut(n, ":")
		out = append(out, &Point{Name: "tracepoint:" + n, Category: cat, Event: ev})
	}
	return out, nil
}

// attachTracepoint attaches prog to the tracepoint "CATEGORY:EVENT" through
// a PERF_TYPE_TRACEPOINT perf event.
func attachTracepoint(a Attacher, p *object.Probe, prog *ebpf.Program, target object.Target) error {
	t, err := TargetAs[TracepointTarget](p, target)
	if err != nil {
		return err
	}
	cat, ev := t.Category, t.Event
	env, err := a.Tracefs()
	if err != nil {
		return fmt.Errorf("attach %s: %w", p.Name, err)
	}
	id, err := env.TracepointID(cat, ev)
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
	if err := attachPerf(a, p, prog, &attr, -1, []int{0}); err != nil {
		return fmt.Errorf("tracepoint %s: %w", target, err)
	}
	return nil
}

// listTracepoints lists tracepoints, with their format fields when verbose.
func listTracepoints(w io.Writer, env ListEnv, pattern string, verbose bool) error {
	if !strings.Contains(pattern, ":") {
		pattern = "*:" + pattern
	}
	names, err := env.Tracepoints(pattern)
	if err != nil {
		return err
	}
	for _, n := range names {
		fmt.Fprintf(w, "tracepoint:%s\n", n)
		if !verbose {
			continue
		}
		cat, ev, _ := strings.Cut(n, ":")
		f, err := env.TracepointFormat(cat, ev)
		if err != nil {
			continue
		}
		for _, fl := range f.Fields {
			switch {
			case fl.DataLoc:
				fmt.Fprintf(w, "    %s %s\n", fl.CType, fl.Name)
			case fl.ArrayLen > 0:
				fmt.Fprintf(w, "    %s %s[%d]\n", fl.CType, fl.Name, fl.ArrayLen)
			default:
				fmt.Fprintf(w, "    %s %s\n", fl.CType, fl.Name)
			}
		}
	}
	return nil
}
