package provider

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// pmuType reads the perf event type of a dynamic PMU (kprobe, uprobe).
func pmuType(name string) (uint32, error) {
	b, err := os.ReadFile("/sys/bus/event_source/devices/" + name + "/type")
	if err != nil {
		return 0, fmt.Errorf("%s PMU: %w", name, err)
	}
	typ, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 32)
	if err != nil {
		return 0, fmt.Errorf("%s PMU type: %w", name, err)
	}
	return uint32(typ), nil
}

// kprobeAddress reads a kprobe's FUNCTION part that is an address
// (kprobe:0xffffffff81234560, kprobe:305419896); ok is false for a name.
func kprobeAddress(fn string) (uint64, bool) { return parseUprobeAddress(fn) }

// attachKprobeAt attaches prog to a kprobe (or kretprobe) at a kernel
// address, through the kprobe PMU (no name, the address in kprobe_addr):
// bpftrace's kprobe:ADDRESS, which needs --unsafe, as the kernel is given
// the address unchecked.
func attachKprobeAt(a Attacher, prog *ebpf.Program, addr uint64, ret bool) error {
	typ, err := pmuType("kprobe")
	if err != nil {
		return err
	}
	attr := unix.PerfEventAttr{Type: typ, Sample: 1, Wakeup: 1, Ext2: addr}
	if ret {
		attr.Config = 1 // format/retprobe: config:0
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	fd, err := unix.PerfEventOpen(&attr, -1, 0, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return fmt.Errorf("kprobe at address %#x: %w", addr, err)
	}
	c, err := attachPerfFD(fd, prog)
	if err != nil {
		_ = unix.Close(fd)
		return err
	}
	a.Push(c)
	return nil
}
