package runtime

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// DefaultLogSize is bpftrace's default log_size: 1,000,000 bytes of
// verifier log per program.
const DefaultLogSize = 1000000

// LogSizeError is a program load that fails because its verifier log does
// not fit in Options.LogSize bytes: the kernel then refuses the program
// with ENOSPC, keeping the log's last LogSize-1 bytes. It wraps
// unix.ENOSPC.
type LogSizeError struct {
	// Function is bpftrace's name of the program (object.Probe.Function).
	Function string
	// Size is the log buffer's size; Log what the kernel left in it.
	Size int
	Log  string
}

// Error is bpftrace 0.26's message for the failure with -v: the program,
// the error code, the log, and a warning when the log lacks its closing
// statistics (it was trimmed).
func (e *LogSizeError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Error loading BPF program for %s. Error code: %d.\nKernel error log: \n%s\n", e.Function, -int(unix.ENOSPC), e.Log)
	if !(strings.Contains(e.Log, "processed") && strings.Contains(e.Log, "insns")) {
		fmt.Fprintf(&b, "WARNING: Kernel log seems to be trimmed. This may be due to buffer not being big enough, try increasing the BPFTRACE_LOG_SIZE environment variable beyond the current value of %d bytes", e.Size)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (e *LogSizeError) Unwrap() error { return unix.ENOSPC }

// checkLogSize applies Options.LogSize to the verifier logs of a loaded
// collection. The library grows its log buffer until the whole log fits,
// so the programs did load; but a kernel given a buffer of LogSize bytes
// refuses a program whose log (with its terminating NUL) is longer, and
// so does this, for the first such program in script order.
func (s *entry) checkLogSize(coll *ebpf.Collection) error {
	size := s.opts.LogSize
	if size <= 0 {
		size = DefaultLogSize
	}
	for _, p := range s.prog.Probes {
		bp := coll.Programs[p.Program]
		if bp == nil || len(bp.VerifierLog)+1 <= size {
			continue
		}
		name := p.Function
		if name == "" {
			name = p.Program
		}
		// The kernel's log rotates: the buffer keeps the end of the log.
		log := bp.VerifierLog[len(bp.VerifierLog)-(size-1):]
		return &LogSizeError{Function: name, Size: size, Log: log}
	}
	return nil
}
