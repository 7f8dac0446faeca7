package runtime

import (
	"golang.org/x/sys/unix"
)

// raiseMemlock lifts RLIMIT_MEMLOCK as far as it may, which kernels before
// 5.11 charge BPF maps and programs to (later kernels account them to the
// memory cgroup and ignore the limit). It is best effort: without
// CAP_SYS_RESOURCE only the soft limit can rise to the hard one. Unlike
// cilium/ebpf's rlimit package it does not create a probe map first to
// learn which accounting the kernel uses, which would cost every start
// about a millisecond.
func raiseMemlock() error {
	inf := unix.Rlimit{Cur: unix.RLIM_INFINITY, Max: unix.RLIM_INFINITY}
	if unix.Setrlimit(unix.RLIMIT_MEMLOCK, &inf) == nil {
		return nil
	}
	var cur unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_MEMLOCK, &cur) == nil && cur.Cur < cur.Max {
		cur.Cur = cur.Max
		_ = unix.Setrlimit(unix.RLIMIT_MEMLOCK, &cur)
	}
	return nil
}
