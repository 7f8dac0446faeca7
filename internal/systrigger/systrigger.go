// Package systrigger makes known syscalls with known arguments, for the
// syscall tracepoint tests on the host (e2e, through the command
// e2e/testdata/systrigger) and in the guests (e2e/vm, through the test
// binary itself): an openat of a missing file, a read of 4321 bytes from
// /dev/zero, getppid 7 times, getpgrp 3 times (Go makes it getpgid(0)), and
// exit_group with status 3. Script traces them through every kind of
// syscall probe, and Want holds lines its output must contain.
package systrigger

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// Script traces the syscalls of a process named systrigger running Run
// through every kind of syscall probe: typed args of entry and exit,
// __syscall_nr, ret, probe under a wildcard, several blocks on one
// syscall, and an attach list mixing directions.
const Script = `
tracepoint:syscalls:sys_enter_openat /comm == "systrigger"/ {
	if (str(args.filename) == "/nonexistent/gotrace-systp") {
		printf("%s nr=%d dfd=%d file=%s flags=%d\n", probe, args.__syscall_nr, args.dfd, str(args.filename), args.flags);
		@missing[tid] = 1;
	}
}
tracepoint:syscalls:sys_exit_openat /@missing[tid]/ {
	printf("%s nr=%d ret=%d\n", probe, args.__syscall_nr, args.ret);
	delete(@missing[tid]);
}
tracepoint:syscalls:sys_enter_read /comm == "systrigger" && args.count == 4321/ {
	printf("%s nr=%d count=%d\n", probe, args.__syscall_nr, args.count);
	@reading[tid] = 1;
}
tracepoint:syscalls:sys_exit_read /@reading[tid]/ {
	printf("%s ret=%d\n", probe, args.ret);
	delete(@reading[tid]);
}
tracepoint:syscalls:sys_enter_getp?id /comm == "systrigger"/ { @enter[probe] = count(); }
tracepoint:syscalls:sys_enter_getppid /comm == "systrigger"/ { @second = count(); }
tracepoint:syscalls:sys_exit_getppid /comm == "systrigger"/ { @ppid_ok[args.ret == ppid] = count(); }
tracepoint:syscalls:sys_enter_getpgid, tracepoint:syscalls:sys_exit_getpgid /comm == "systrigger"/ { @both = count(); }
tracepoint:syscalls:sys_enter_exit_group /comm == "systrigger"/ { @exit[probe, args.error_code] = count(); }
`

// Want are lines the output of Script must contain, whichever way syscall
// tracepoints are served.
var Want = []string{
	"tracepoint:syscalls:sys_enter_openat nr=257 dfd=-100 file=/nonexistent/gotrace-systp flags=0\n",
	"tracepoint:syscalls:sys_exit_openat nr=257 ret=-2\n",
	"tracepoint:syscalls:sys_enter_read nr=0 count=4321\n",
	"tracepoint:syscalls:sys_exit_read ret=4321\n",
	"@exit[tracepoint:syscalls:sys_enter_exit_group, 3]: 1\n",
	"@both: 6\n",
	"@enter[tracepoint:syscalls:sys_enter_getpgid]: 3\n",
	"@enter[tracepoint:syscalls:sys_enter_getppid]: 7\n",
	"@ppid_ok[true]: 7\n",
	"@second: 7\n",
}

// Problems compares Script's output (stdout and stderr) with syscall
// tracepoints served by the raw tracepoint dispatchers against the output
// with one perf event each, and returns what differs or lacks a Want line
// (nil when all is well).
func Problems(rawOut, rawErr, perfOut, perfErr string) []string {
	var out []string
	if rawOut != perfOut {
		out = append(out, fmt.Sprintf("raw tracepoint dispatch and perf events differ:\n--- dispatch\n%s--- perf\n%s", rawOut, perfOut))
	}
	if rawErr, perfErr = withoutTimings(rawErr), withoutTimings(perfErr); rawErr != perfErr {
		out = append(out, fmt.Sprintf("stderr differs:\n--- dispatch\n%s--- perf\n%s", rawErr, perfErr))
	}
	for _, want := range Want {
		if !strings.Contains(rawOut, want) {
			out = append(out, fmt.Sprintf("output lacks %q:\n%s", want, rawOut))
		}
	}
	return out
}

// Run makes the syscalls and exits with status 3.
func Run() {
	_, _ = syscall.Open("/nonexistent/gotrace-systp", syscall.O_RDONLY, 0)
	fd, err := syscall.Open("/dev/zero", syscall.O_RDONLY, 0)
	if err != nil {
		os.Exit(1)
	}
	buf := make([]byte, 4321)
	_, _ = syscall.Read(fd, buf)
	for range 7 {
		syscall.Getppid()
	}
	for range 3 {
		syscall.Getpgrp()
	}
	// Let the tracer print the events before the exit stops it.
	time.Sleep(300 * time.Millisecond)
	os.Exit(3)
}

// withoutTimings drops the lines that report a slow attach or detach,
// which depend on the machine's load, not on the way syscalls are served.
func withoutTimings(stderr string) string {
	var b strings.Builder
	for line := range strings.Lines(stderr) {
		if strings.HasPrefix(line, "Attaching took ") || strings.HasPrefix(line, "Detached probes in ") {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}
