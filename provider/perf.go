package provider

import (
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
)

// closerFunc adapts a function to io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

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

// attachPerf opens the perf event attr for process pid (-1: all) on each
// of cpus and attaches prog to each.
func attachPerf(a Attacher, p *object.Probe, prog *ebpf.Program, attr *unix.PerfEventAttr, pid int, cpus []int) error {
	for _, cpu := range cpus {
		c, err := openPerf(p, prog, attr, pid, cpu)
		if err != nil {
			return err
		}
		a.Push(c)
	}
	return nil
}

// openPerf opens the perf event attr for process pid (-1: all) on cpu
// (-1: any) and attaches prog to it; closing the result detaches it.
func openPerf(p *object.Probe, prog *ebpf.Program, attr *unix.PerfEventAttr, pid, cpu int) (io.Closer, error) {
	attr.Size = uint32(unsafe.Sizeof(*attr))
	fd, err := unix.PerfEventOpen(attr, pid, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("attach %s: perf_event_open on CPU %d: %w", p.Name, cpu, err)
	}
	c, err := attachPerfFD(fd, prog)
	if err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("attach %s: %w", p.Name, err)
	}
	return c, nil
}

// attachPerfFD attaches prog to the perf event fd, through a bpf_link
// (Linux 5.15+) or else PERF_EVENT_IOC_SET_BPF. The returned Closer
// detaches and closes fd; on error fd is left open.
func attachPerfFD(fd int, prog *ebpf.Program) (closerFunc, error) {
	l, err := link.AttachRawLink(link.RawLinkOptions{Target: fd, Program: prog, Attach: ebpf.AttachPerfEvent})
	if err == nil {
		// The event was opened enabled.
		return func() error { return errors.Join(l.Close(), unix.Close(fd)) }, nil
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_BPF, prog.FD()); err != nil {
		return nil, fmt.Errorf("attach BPF program to perf event: %w", err)
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
		return nil, fmt.Errorf("enable perf event: %w", err)
	}
	return func() error { return unix.Close(fd) }, nil
}

// tracedPid is the process every probe is limited to, as bpftrace limits
// them: the -p process, else the -c child, else 0 for every process.
func tracedPid(a Attacher) int {
	if pid := a.Pid(); pid > 0 {
		return pid
	}
	if a.Child() > 0 {
		return a.Child()
	}
	return 0
}

// taskPid is tracedPid as perf_event_open takes it: -1 for every process.
func taskPid(a Attacher) int {
	if pid := tracedPid(a); pid > 0 {
		return pid
	}
	return -1
}
