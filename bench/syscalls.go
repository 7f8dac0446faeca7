package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"time"
)

// syscallWildcard is the one-liner of -mode syscalls: every syscall entry
// tracepoint, counted by probe, for 200 ms.
const syscallWildcard = `tracepoint:syscalls:sys_enter_* { @[probe] = count(); } interval:ms:200 { exit(); }`

// benchSyscalls times syscallWildcard from launch to exit, n times per
// tool, alternating the tools run by run so that they share the machine's
// conditions: gotrace (syscall dispatchers), gotrace with one perf event
// per tracepoint (GOTRACE_SYSCALL_TRACEPOINTS=perf, when perf is set) and
// bpftrace. It prints every run and the medians, and gotrace's median as a
// fraction of bpftrace's.
func benchSyscalls(n int, gotrace, bpftrace string, perf bool) error {
	type tool struct {
		name string
		argv []string
		env  []string
		runs []time.Duration
	}
	tools := []*tool{{name: "gotrace", argv: []string{gotrace}}}
	if perf {
		tools = append(tools, &tool{name: "gotrace (perf events)", argv: []string{gotrace}, env: []string{"GOTRACE_SYSCALL_TRACEPOINTS=perf"}})
	}
	if p, err := exec.LookPath(bpftrace); err == nil {
		tools = append(tools, &tool{name: "bpftrace", argv: []string{p}})
	}
	fmt.Printf("launch to exit of: %s\n", syscallWildcard)
	for i := range n {
		for _, t := range tools {
			cmd := exec.Command(t.argv[0], "-e", syscallWildcard)
			cmd.Env = append(os.Environ(), t.env...)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			d := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %v: %s", t.name, err, out)
			}
			t.runs = append(t.runs, d)
			fmt.Printf("run %2d  %-24s %10s\n", i+1, t.name, d.Round(time.Millisecond))
		}
	}
	med := map[string]time.Duration{}
	for _, t := range tools {
		s := slices.Clone(t.runs)
		slices.Sort(s)
		med[t.name] = s[len(s)/2]
		fmt.Printf("median  %-24s %10s\n", t.name, med[t.name].Round(time.Millisecond))
	}
	if b, ok := med["bpftrace"]; ok {
		fmt.Printf("gotrace / bpftrace = 1/%.1f\n", float64(b)/float64(med["gotrace"]))
	}
	return nil
}
