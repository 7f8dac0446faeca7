package provider

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
)

// Hardware breakpoint types (include/uapi/linux/hw_breakpoint.h).
const (
	hwBreakpointR = 1
	hwBreakpointW = 2
	hwBreakpointX = 4
)

// watchpointModes are the modes x86-64's debug registers support (there is
// no read-only watchpoint), sorted.
var watchpointModes = []string{"rw", "w", "x"}

// watchpointProvider is watchpoint:ADDRESS:LENGTH:MODE, a hardware
// breakpoint (PERF_TYPE_BREAKPOINT) on LENGTH bytes at ADDRESS, firing on
// reads (r), writes (w) or execution (x): in every thread of the -p
// process, threads it creates later included, or on every CPU.
var watchpointProvider = &Provider{
	Name:      "watchpoint",
	Aliases:   []string{"w"},
	Expand:    expandWatchpoint,
	Ctx:       CtxPerfSample,
	UserArgs:  never,
	ProbeType: "watchpoint",
	Compile: func(pts []*Point, _ Features, probe *object.Probe) Program {
		probe.Provider = "watchpoint"
		probe.Targets = []object.Target{pts[0].Data.(WatchTarget)}
		return Program{Type: ebpf.PerfEvent, Ctx: CtxPerfSample}
	},
	Attach: attachWatchpoint,
	// bpftrace lists no watchpoints: any address is one.
	List: func(io.Writer, ListEnv, string, bool) error { return nil },
}

// asyncWatchpointProvider is asyncwatchpoint:ADDRESS:LENGTH:MODE, which
// bpftrace 0.26 no longer has.
var asyncWatchpointProvider = &Provider{Name: "asyncwatchpoint", Aliases: []string{"aw"}, Needs: "bpftrace before 0.20 (use watchpoint)"}

// expandWatchpoint reads watchpoint:ADDRESS:LENGTH:MODE with bpftrace's
// checks. The point keeps the address in Offset, the length in Value and
// the sorted mode in Event.
func expandWatchpoint(_ ExpandEnv, raw string, parts []string) ([]*Point, error) {
	if len(parts) != 3 {
		return nil, fmt.Errorf("watchpoint probe type requires 3 arguments, found %d", len(parts))
	}
	addr, err := strconv.ParseUint(parts[0], 0, 64)
	if err != nil {
		return nil, fmt.Errorf("Invalid function/address argument: %q is not an unsigned integer", parts[0])
	}
	length, err := strconv.ParseUint(parts[1], 0, 64)
	if err != nil {
		return nil, fmt.Errorf("Invalid length argument: %q is not an unsigned integer", parts[1])
	}
	if addr == 0 {
		return nil, errors.New("watchpoint must be attached to a non-zero address")
	}
	if length != 1 && length != 2 && length != 4 && length != 8 {
		return nil, errors.New("watchpoint length must be one of (1,2,4,8)")
	}
	mode := []byte(parts[2])
	sort.Slice(mode, func(i, j int) bool { return mode[i] < mode[j] })
	if len(mode) == 0 || strings.Trim(string(mode), "rwx") != "" {
		return nil, errors.New("watchpoint mode must be combination of (r,w,x)")
	}
	for i := 1; i < len(mode); i++ {
		if mode[i] == mode[i-1] {
			return nil, errors.New("watchpoint modes may not be duplicated")
		}
	}
	if m := sortMode(string(mode)); !contains(watchpointModes, m) {
		return nil, fmt.Errorf("invalid watchpoint mode: %s (supported modes: %s)", m, strings.Join(watchpointModes, ","))
	}
	return []*Point{{Name: fmt.Sprintf("watchpoint:0x%x:%d:%s", addr, length, parts[2]), Data: WatchTarget{Addr: addr, Length: length, Mode: sortMode(string(mode))}}}, nil
}

// sortMode spells a mode as bpftrace compares it: r before w ("wr" is
// "rw"), then x.
func sortMode(m string) string {
	var b strings.Builder
	for _, c := range "rwx" {
		if strings.ContainsRune(m, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// attachWatchpoint opens the hardware breakpoint: for each thread of the
// -p process, or else of the -c child (inherited by the threads they
// create), as bpftrace does; else on every CPU.
// Threads or CPUs that refuse it are skipped, as bpftrace does; it fails
// only when none accepts it. Each one is registered under its address,
// which unwatch() detaches.
func attachWatchpoint(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
	if len(p.Targets) != 1 {
		return 0, fmt.Errorf("attach %s: no watchpoint target", p.Name)
	}
	t, err := TargetAs[WatchTarget](p, p.Targets[0])
	if err != nil {
		return 0, err
	}
	addr, length, mode := t.Addr, t.Length, t.Mode
	attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_BREAKPOINT, Sample: 1, Ext1: addr, Ext2: length}
	for _, c := range mode {
		switch c {
		case 'r':
			attr.Bp_type |= hwBreakpointR
		case 'w':
			attr.Bp_type |= hwBreakpointW
		case 'x':
			attr.Bp_type |= hwBreakpointX
		}
	}
	if attr.Bp_type&hwBreakpointX != 0 {
		attr.Ext2 = 8 // sizeof(long), as perf_event_open(2) asks for execution
	}
	type target struct{ pid, cpu int }
	var targets []target
	if pid := taskPid(a); pid > 0 {
		attr.Bits |= unix.PerfBitInherit // threads created later
		tids, err := processThreads(pid)
		if err != nil {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		for _, tid := range tids {
			targets = append(targets, target{tid, -1})
		}
	} else {
		cpus, err := a.OnlineCPUs()
		if err != nil {
			return 0, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		for _, cpu := range cpus {
			targets = append(targets, target{-1, cpu})
		}
	}
	var firstErr error
	n := 0
	for _, t := range targets {
		c, err := openPerf(p, prog, &attr, t.pid, t.cpu)
		if err == nil {
			a.Watch(addr, c)
			n++
			continue
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if n == 0 {
		if errors.Is(firstErr, unix.ENOSPC) {
			return 0, fmt.Errorf("attach %s: No more HW registers left", p.Name)
		}
		return 0, firstErr
	}
	return 1, nil
}

// processThreads lists the thread ids of process pid.
func processThreads(pid int) ([]int, error) {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, fmt.Errorf("list the threads of process %d: %w", pid, err)
	}
	var tids []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}
