package tracingmulti

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// bpfLinkCreate is the BPF_LINK_CREATE command of bpf(2).
const bpfLinkCreate = 28

// tracingMultiAttr is link_create's tracing_multi layout (see above).
type tracingMultiAttr struct {
	progFD     uint32
	targetFD   uint32
	attachType uint32
	flags      uint32
	ids        uint64
	cookies    uint64
	cnt        uint32
	_          uint32
	_          [24]byte // the rest of link_create, zero
}

// Link is a tracing_multi link's file descriptor.
type Link struct{ fd int }

// Close detaches the link.
func (l *Link) Close() error {
	if l.fd < 0 {
		return nil
	}
	err := unix.Close(l.fd)
	l.fd = -1
	return err
}

// Attach attaches prog, loaded with attach type at (one of the
// multi types), to the kernel functions whose vmlinux BTF IDs are ids,
// through one tracing_multi link; cookies, when not nil, gives each
// function its bpf_get_attach_cookie value.
func Attach(prog *ebpf.Program, at ebpf.AttachType, ids []uint32, cookies []uint64) (*Link, error) {
	if len(ids) == 0 {
		return nil, errors.New("tracing_multi: no functions")
	}
	if cookies != nil && len(cookies) != len(ids) {
		return nil, fmt.Errorf("tracing_multi: %d cookies for %d functions", len(cookies), len(ids))
	}
	attr := tracingMultiAttr{
		progFD:     uint32(prog.FD()),
		attachType: uint32(at),
		ids:        uint64(uintptr(unsafe.Pointer(&ids[0]))),
		cnt:        uint32(len(ids)),
	}
	if cookies != nil {
		attr.cookies = uint64(uintptr(unsafe.Pointer(&cookies[0])))
	}
	fd, _, errno := unix.Syscall(unix.SYS_BPF, bpfLinkCreate, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	runtime.KeepAlive(ids)
	runtime.KeepAlive(cookies)
	runtime.KeepAlive(prog)
	if errno != 0 {
		return nil, fmt.Errorf("tracing_multi link of %d functions: %w", len(ids), errno)
	}
	return &Link{fd: int(fd)}, nil
}
