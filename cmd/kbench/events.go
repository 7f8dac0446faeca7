package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/internal/btfnames"
	"github.com/gotrace/gotrace/internal/handprog"
	"github.com/gotrace/gotrace/internal/tracingmulti"
	"github.com/gotrace/gotrace/provider"
)

// hotFuncs are the functions of the per-event benchmark: ksys_read, which
// the loop's read(2) of /dev/null calls, and ksys_write, which it does not
// (a multi link needs two functions for gotrace to choose it). Both are in
// BTF (syscall entry points such as __x64_sys_getppid are not, in 7.3).
var hotFuncs = []string{"ksys_read", "ksys_write"}

// mechanism is one way of running a program on hotFuncs[0]: how the
// hand-written program is loaded and attached, and the gotrace script
// (with the features that make gotrace choose the same mechanism).
type mechanism struct {
	name   string
	script string
	feat   *gotrace.Features
	attach func(insns asm.Instructions) (*ebpf.Program, io.Closer, error)
}

func mechanisms() []mechanism {
	return []mechanism{
		{"fentry", "fentry:" + hotFuncs[0] + " { @ = count(); }", nil, func(insns asm.Instructions) (*ebpf.Program, io.Closer, error) {
			prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Tracing, AttachType: ebpf.AttachTraceFEntry, AttachTo: hotFuncs[0], License: "GPL", Instructions: insns})
			if err != nil {
				return nil, nil, err
			}
			l, err := link.AttachTracing(link.TracingOptions{Program: prog, AttachType: ebpf.AttachTraceFEntry})
			return both(prog, l, err)
		}},
		{"tracing_multi", "fentry:" + hotFuncs[0] + ",fentry:" + hotFuncs[1] + " { @ = count(); }", nil, func(insns asm.Instructions) (*ebpf.Program, io.Closer, error) {
			prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Tracing, AttachType: provider.AttachTraceFentryMulti, License: "GPL", Instructions: insns})
			if err != nil {
				return nil, nil, err
			}
			ix, err := btfnames.ReadFile(btfnames.KernelPath)
			if err != nil {
				prog.Close()
				return nil, nil, err
			}
			var ids []uint32
			for _, f := range hotFuncs {
				id, _ := ix.Func(f)
				ids = append(ids, uint32(id))
			}
			l, err := tracingmulti.Attach(prog, provider.AttachTraceFentryMulti, ids, nil)
			return both(prog, l, err)
		}},
		{"kprobe_multi", "kprobe:" + hotFuncs[0] + ",kprobe:" + hotFuncs[1] + " { @ = count(); }", &gotrace.Features{KprobeMulti: true}, func(insns asm.Instructions) (*ebpf.Program, io.Closer, error) {
			prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Kprobe, AttachType: ebpf.AttachTraceKprobeMulti, License: "GPL", Instructions: insns})
			if err != nil {
				return nil, nil, err
			}
			l, err := link.KprobeMulti(prog, link.KprobeMultiOptions{Symbols: hotFuncs})
			return both(prog, l, err)
		}},
		{"kprobe", "kprobe:" + hotFuncs[0] + " { @ = count(); }", &gotrace.Features{}, func(insns asm.Instructions) (*ebpf.Program, io.Closer, error) {
			prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Kprobe, License: "GPL", Instructions: insns})
			if err != nil {
				return nil, nil, err
			}
			l, err := link.Kprobe(hotFuncs[0], prog, nil)
			return both(prog, l, err)
		}},
	}
}

// closers closes a program and its link.
type closers []io.Closer

func (cs closers) Close() error {
	for i := len(cs) - 1; i >= 0; i-- {
		cs[i].Close()
	}
	return nil
}

func both(prog *ebpf.Program, l io.Closer, err error) (*ebpf.Program, io.Closer, error) {
	if err != nil {
		prog.Close()
		return nil, nil, err
	}
	return prog, closers{prog, l}, nil
}

// loop reads 1 byte from /dev/null n times on one OS thread and returns
// the time per call.
func loop(n int) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	fd, err := unix.Open("/dev/null", unix.O_RDONLY, 0)
	if err != nil {
		panic(err)
	}
	defer unix.Close(fd)
	var b [1]byte
	start := time.Now()
	for range n {
		unix.Read(fd, b[:])
	}
	return time.Since(start) / time.Duration(n)
}

// runTime returns the kernel's run time per run of the programs (BPF
// statistics, kernel.bpf_stats_enabled), and the runs.
func runTime(progs ...*ebpf.Program) (time.Duration, uint64) {
	var total time.Duration
	var runs uint64
	for _, p := range progs {
		st, err := p.Stats()
		if err != nil {
			continue
		}
		total += st.Runtime
		runs += st.RunCount
	}
	if runs == 0 {
		return 0, 0
	}
	return total / time.Duration(runs), runs
}

// newPrograms returns the programs loaded since the program ID after.
func newPrograms(after ebpf.ProgramID) []*ebpf.Program {
	var progs []*ebpf.Program
	for id := after; ; {
		next, err := ebpf.ProgramGetNextID(id)
		if err != nil {
			return progs
		}
		id = next
		if p, err := ebpf.NewProgramFromID(id); err == nil {
			progs = append(progs, p)
		}
	}
}

// lastProgramID returns the highest program ID loaded.
func lastProgramID() ebpf.ProgramID {
	var last ebpf.ProgramID
	for {
		next, err := ebpf.ProgramGetNextID(last)
		if err != nil {
			return last
		}
		last = next
	}
}

// benchEvents measures the cost per event of each mechanism on one hot
// function: the time per read(2) with the program attached, less the time
// without, and the program's own run time per event from the kernel's BPF
// statistics (what differs between the hand-written program and
// gotrace's, the mechanism being the same); hand-written program and
// gotrace's alternating, the best of rounds.
func benchEvents(n, rounds int, only map[string]bool) error {
	stats, err := ebpf.EnableStats(uint32(unix.BPF_STATS_RUN_TIME))
	if err != nil {
		return fmt.Errorf("BPF statistics: %w", err)
	}
	defer stats.Close()
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: 1})
	if err != nil {
		return err
	}
	defer m.Close()
	loop(n / 10) // warm up
	for _, mech := range mechanisms() {
		if len(only) > 0 && !only[mech.name] {
			continue
		}
		var base, hand, gt, handRun, gtRun time.Duration
		for r := range rounds {
			b := loop(n)
			if r == 0 || b < base {
				base = b
			}
			prog, c, err := mech.attach(handprog.Counter(asm.LoadMapPtr(asm.R1, m.FD())))
			if err != nil {
				fmt.Printf("events %-14s hand-written: %v\n", mech.name, err)
				break
			}
			h := loop(n)
			hr, _ := runTime(prog)
			c.Close()
			if r == 0 || h < hand {
				hand = h
			}
			if r == 0 || hr < handRun {
				handRun = hr
			}
			g, gr, via, err := gotraceLoop(mech, n)
			if err != nil {
				fmt.Printf("events %-14s gotrace: %v\n", mech.name, err)
				break
			}
			if r == 0 || g < gt {
				gt = g
			}
			if r == 0 || gr < gtRun {
				gtRun = gr
			}
			if r == rounds-1 {
				fmt.Printf("events %-14s read(2) %v/call; +%v/event hand-written, +%v gotrace; program run time %v/event hand-written, %v gotrace (%.2fx)%s\n",
					mech.name, base, hand-base, gt-base, handRun, gtRun, float64(gtRun)/float64(max(handRun, 1)), via)
			}
		}
	}
	return nil
}

// gotraceLoop runs the mechanism's script through gotrace and times the
// loop while it is attached; it returns the time per call, the run time
// per event of gotrace's programs and how gotrace said it attached.
func gotraceLoop(mech mechanism, n int) (time.Duration, time.Duration, string, error) {
	script, err := gotrace.Compile("kbench", mech.script, gotrace.Options{Features: mech.feat})
	if err != nil {
		return 0, 0, "", err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	attached := make(chan struct{})
	done := make(chan error, 1)
	var stderr strings.Builder
	last := lastProgramID()
	go func() {
		_, err := script.Run(ctx, gotrace.RunOptions{
			Stdout: io.Discard, Stderr: &stderr, NoSignals: true, NoExitMaps: true,
			Attached: func() { close(attached) },
		})
		done <- err
	}()
	select {
	case <-attached:
	case err := <-done:
		return 0, 0, "", fmt.Errorf("run: %v\n%s", err, stderr.String())
	}
	progs := newPrograms(last)
	d := loop(n)
	run, _ := runTime(progs...)
	for _, p := range progs {
		p.Close()
	}
	cancel()
	if err := <-done; err != nil {
		return 0, 0, "", fmt.Errorf("run: %v\n%s", err, stderr.String())
	}
	via := ""
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "attached") || strings.Contains(l, "served") {
			via += "; " + l
		}
	}
	return d, run, via, nil
}
