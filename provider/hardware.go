package provider

import "golang.org/x/sys/unix"

// hardwareEvents are the PERF_TYPE_HARDWARE events, sorted by name.
var hardwareEvents = []perfEvent{
	{"backend-stalls", "", unix.PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1000000},
	{"branch-instructions", "branches", unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 100000},
	{"branch-misses", "", unix.PERF_COUNT_HW_BRANCH_MISSES, 100000},
	{"bus-cycles", "", unix.PERF_COUNT_HW_BUS_CYCLES, 100000},
	{"cache-misses", "", unix.PERF_COUNT_HW_CACHE_MISSES, 1000000},
	{"cache-references", "", unix.PERF_COUNT_HW_CACHE_REFERENCES, 1000000},
	{"cpu-cycles", "cycles", unix.PERF_COUNT_HW_CPU_CYCLES, 1000000},
	{"frontend-stalls", "", unix.PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1000000},
	{"instructions", "", unix.PERF_COUNT_HW_INSTRUCTIONS, 1000000},
	{"ref-cycles", "", unix.PERF_COUNT_HW_REF_CPU_CYCLES, 1000000},
}

// hardwareProvider is hardware:EVENT[:COUNT], a PERF_TYPE_HARDWARE event
// sampled every COUNT events on every CPU (most virtual machines have no
// PMU: attaching then fails with the kernel's error).
var hardwareProvider = perfEventProvider("hardware", "h", unix.PERF_TYPE_HARDWARE, hardwareEvents)
