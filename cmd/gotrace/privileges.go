package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Capability numbers (linux/capability.h).
const (
	capSysAdmin = 21
	capPerfmon  = 38
	capBPF      = 39
)

// errPrivileges is the one line a run without the needed privileges gets,
// instead of the first kernel call's misleading error (a map that cannot be
// created, a tracepoint that is not found, an empty probe list).
var errPrivileges = errors.New("gotrace needs root (or the capabilities CAP_BPF and CAP_PERFMON, and CAP_SYS_ADMIN for some probe types)")

// checkPrivileges returns errPrivileges unless the process's effective
// capabilities allow loading and attaching BPF programs: CAP_SYS_ADMIN, or
// CAP_BPF with CAP_PERFMON (Linux 5.8 or later).
func checkPrivileges() error {
	caps, err := effectiveCaps("/proc/self/status")
	if err != nil {
		// Without /proc, let the kernel decide.
		return nil
	}
	if hasCaps(caps) {
		return nil
	}
	return errPrivileges
}

// hasCaps reports whether the capability set caps is enough to trace.
func hasCaps(caps uint64) bool {
	has := func(c uint) bool { return caps&(1<<c) != 0 }
	return has(capSysAdmin) || has(capBPF) && has(capPerfmon)
}

// effectiveCaps reads the CapEff line of a /proc/PID/status file.
func effectiveCaps(status string) (uint64, error) {
	f, err := os.Open(status)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("%s: no CapEff line", status)
}
