package hostfs

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/builtin"
)

// procPidInitIno is the inode number of the initial PID namespace
// (PROC_PID_INIT_INO in the kernel's proc_ns.h).
const procPidInitIno = 0xeffffffc

// Host returns what the checker needs to know about the tracer's own
// process: its PID namespace (zero in the initial one) and the offset from
// CLOCK_BOOTTIME to CLOCK_TAI.
func Host() builtin.Host {
	var h builtin.Host
	if fi, err := os.Stat("/proc/self/ns/pid"); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Ino != procPidInitIno {
			h.PidNS = builtin.PidNS{Dev: st.Dev, Ino: st.Ino}
		}
	}
	h.TAIOffset = taiOffset()
	return h
}

// taiOffset is CLOCK_TAI minus CLOCK_BOOTTIME in nanoseconds, read between
// two reads of the boot clock (the smallest window of three tries).
func taiOffset() int64 {
	best, bestWidth := int64(0), int64(-1)
	for range 3 {
		var b1, tai, b2 unix.Timespec
		if unix.ClockGettime(unix.CLOCK_BOOTTIME, &b1) != nil ||
			unix.ClockGettime(unix.CLOCK_TAI, &tai) != nil ||
			unix.ClockGettime(unix.CLOCK_BOOTTIME, &b2) != nil {
			return 0
		}
		width := b2.Nano() - b1.Nano()
		if bestWidth < 0 || width < bestWidth {
			best, bestWidth = tai.Nano()-(b1.Nano()+width/2), width
		}
	}
	return best
}
