package runtime

import (
	"sync"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/object"
)

// Concurrency of kernel-function attach and detach (cmd/kbench, 1000
// functions, 6.12 under emulation). Detaching a kprobe or trampoline waits
// for RCU grace periods; closing from 32 goroutines took 1000 kprobes from
// ~80 s (sequential) to 51 s. Attaching from 16 goroutines was no faster
// than one at a time (kprobes ~31 ms each either way; trampolines 19 s for
// 1000 vs 7 s sequential): the kernel serialises it, so attach is
// sequential.
const (
	attachWorkers = 1
	detachWorkers = 32
)

// errENOTSUPP is the kernel-internal ENOTSUPP (524) that BPF syscalls leak.
const errENOTSUPP = unix.Errno(524)

// kfuncState is the kernel-function part of a session.
type kfuncState struct {
	mu      sync.Mutex
	refused map[string]string // program name -> function the kernel refused at load time
	skipped []string          // functions skipped because the kernel refused them
}

func (k *kfuncState) skip(fn string) {
	k.mu.Lock()
	k.skipped = append(k.skipped, fn)
	k.mu.Unlock()
}

// isWildcard reports whether failures of single targets of p are skipped:
// p belongs to a group of more than one target (a kprobe with several
// targets, or one of the programs of a trampoline wildcard). A single
// explicit target that fails is an error.
func (s *entry) isWildcard(p *object.Probe) bool {
	return p.Group.Wildcard()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
