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
	"github.com/gotrace/gotrace/internal/tracingmulti"
	"github.com/gotrace/gotrace/provider"
)

// hotFuncs are the functions of the per-event benchmark: getppid(2)'s
// entry, which the loop calls, and getpgrp(2)'s, which it does not (a
// multi link needs two functions for gotrace to choose it).
var hotFuncs = []string{"__x64_sys_getppid", "__x64_sys_getpgrp"}

// mechanism is one way of running a program on hotFuncs[0]: how the
// hand-written program is loaded and attached, and the gotrace script
// (with the features that make gotrace choose the same mechanism).
type mechanism struct {
	name   string
	script string
	feat   *gotrace.Features
	attach func(insns asm.Instructions) (io.Closer, error)
}

func mechanisms() []mechanism {
	return []mechanism{
		{"fentry", "fentry:" + hotFuncs[0] + " { @ = count(); }", nil, func(insns asm.Instructions) (io.Closer, error) {
			prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Tracing, AttachType: ebpf.AttachTraceFEntry, AttachTo: hotFuncs[0], License: "GPL", Instructions: insns})
			if err != nil {
				return nil, err
			}
			l, err := link.AttachTracing(link.TracingOptions{Program: prog, AttachType: ebpf.AttachTraceFEntry})
			return both(prog, l, err)
		}},
		{"tracing_multi", "fentry:" + hotFuncs[0] + ",fentry:" + hotFuncs[1] + " { @ = count(); }", nil, func(insns asm.Instructions) (io.Closer, error) {
			prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Tracing, AttachType: provider.AttachTraceFentryMulti, License: "GPL", Instructions: insns})
			if err != nil {
				return nil, err
			}
			ix, err := btfnames.ReadFile(btfnames.KernelPath)
			if err != nil {
				prog.Close()
				return nil, err
			}
			var ids []uint32
			for _, f := range hotFuncs {
				id, _ := ix.Func(f)
				ids = append(ids, uint32(id))
			}
			l, err := tracingmulti.Attach(prog, provider.AttachTraceFentryMulti, ids, nil)
			return both(prog, l, err)
		}},
		{"kprobe_multi", "kprobe:" + hotFuncs[0] + ",kprobe:" + hotFuncs[1] + " { @ = count(); }", &gotrace.Features{KprobeMulti: true}, func(insns asm.Instructions) (io.Closer, error) {
			prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Kprobe, AttachType: ebpf.AttachTraceKprobeMulti, License: "GPL", Instructions: insns})
			if err != nil {
				return nil, err
			}
			l, err := link.KprobeMulti(prog, link.KprobeMultiOptions{Symbols: hotFuncs})
			return both(prog, l, err)
		}},
		{"kprobe", "kprobe:" + hotFuncs[0] + " { @ = count(); }", &gotrace.Features{}, func(insns asm.Instructions) (io.Closer, error) {
			prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Kprobe, License: "GPL", Instructions: insns})
			if err != nil {
				return nil, err
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

func both(prog *ebpf.Program, l io.Closer, err error) (io.Closer, error) {
	if err != nil {
		prog.Close()
		return nil, err
	}
	return closers{prog, l}, nil
}

// counter is the hand-written program: what gotrace compiles "@ = count()"
// to, one increment of a per-CPU array slot.
func counter(m *ebpf.Map) asm.Instructions {
	return asm.Instructions{
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
		asm.LoadMapPtr(asm.R1, m.FD()),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	}
}

// loop calls getppid(2) n times on one OS thread and returns the time per
// call.
func loop(n int) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	for range n {
		unix.Getppid()
	}
	return time.Since(start) / time.Duration(n)
}

// benchEvents measures the cost per event of each mechanism on one hot
// function: the time per getppid(2) call with the program attached, less
// the time without; hand-written program and gotrace's, alternating, the
// best of rounds.
func benchEvents(n, rounds int, only map[string]bool) error {
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
		var base, hand, gt time.Duration
		for r := range rounds {
			b := loop(n)
			if r == 0 || b < base {
				base = b
			}
			c, err := mech.attach(counter(m))
			if err != nil {
				fmt.Printf("events %-14s hand-written: %v\n", mech.name, err)
				break
			}
			h := loop(n)
			c.Close()
			if r == 0 || h < hand {
				hand = h
			}
			g, via, err := gotraceLoop(mech, n)
			if err != nil {
				fmt.Printf("events %-14s gotrace: %v\n", mech.name, err)
				break
			}
			if r == 0 || g < gt {
				gt = g
			}
			if r == rounds-1 {
				fmt.Printf("events %-14s base %v/call, hand-written +%v/event, gotrace +%v/event (%.2fx)%s\n", mech.name, base,
					hand-base, gt-base, float64(gt-base)/float64(max(hand-base, 1)), via)
			}
		}
	}
	return nil
}

// gotraceLoop runs the mechanism's script through gotrace and times the
// loop while it is attached; it returns how gotrace said it attached.
func gotraceLoop(mech mechanism, n int) (time.Duration, string, error) {
	script, err := gotrace.Compile("kbench", mech.script, gotrace.Options{Features: mech.feat})
	if err != nil {
		return 0, "", err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	attached := make(chan struct{})
	done := make(chan error, 1)
	var stderr strings.Builder
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
		return 0, "", fmt.Errorf("run: %v\n%s", err, stderr.String())
	}
	d := loop(n)
	cancel()
	if err := <-done; err != nil {
		return 0, "", fmt.Errorf("run: %v\n%s", err, stderr.String())
	}
	via := ""
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "attached") || strings.Contains(l, "served") {
			via += "; " + l
		}
	}
	return d, via, nil
}
