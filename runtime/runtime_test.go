package runtime

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
)

// These tests load real programs into the running kernel; they need root.

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of Run and
// reads of the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

const eventsMap = "events"

func ringbufSpec(size uint32) *ebpf.MapSpec {
	return &ebpf.MapSpec{Name: eventsMap, Type: ebpf.RingBuf, MaxEntries: size}
}

// emit appends instructions sending the 8-byte words at fp-8*len(words)...
// to the ring buffer; each word is an immediate or, when reg is set for it,
// a register.
type word struct {
	imm int64
	reg asm.Register
	use bool
}

func imm(v int64) word           { return word{imm: v} }
func reg(r asm.Register) word    { return word{reg: r, use: true} }
func ev(k object.EventKind) word { return imm(int64(k)) }

func emit(words ...word) asm.Instructions {
	base := int16(-8 * len(words))
	var insns asm.Instructions
	for i, w := range words {
		off := base + int16(8*i)
		if w.use {
			insns = append(insns, asm.StoreMem(asm.RFP, off, w.reg, asm.DWord))
		} else {
			insns = append(insns,
				asm.LoadImm(asm.R1, w.imm, asm.DWord),
				asm.StoreMem(asm.RFP, off, asm.R1, asm.DWord))
		}
	}
	return append(insns,
		asm.LoadMapPtr(asm.R1, 0).WithReference(eventsMap),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, int32(base)),
		asm.Mov.Imm(asm.R3, int32(8*len(words))),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
	)
}

// stImm64 stores a 64-bit immediate on the stack through R1, optionally
// labelling the first instruction.
func stImm64(off int16, v int64, label ...string) asm.Instructions {
	first := asm.Mov.Imm(asm.R1, int32(v))
	if len(label) > 0 {
		first = first.WithSymbol(label[0])
	}
	return asm.Instructions{first, asm.StoreMem(asm.RFP, off, asm.R1, asm.DWord)}
}

// fetchAdd64 is asm.FetchAdd.Mem(dst, src, asm.DWord, 0) working around a
// cilium/ebpf v0.22.0 bug: Instruction.Marshal takes the immediate from
// Constant before it derives it from the atomic op, so every atomic op is
// encoded as a plain add (imm 0) and the fetch is lost. Setting Constant to
// the op's immediate (BPF_ADD|BPF_FETCH) by hand encodes it correctly.
func fetchAdd64(dst, src asm.Register) asm.Instruction {
	ins := asm.FetchAdd.Mem(dst, src, asm.DWord, 0)
	ins.Constant = int64(asm.FetchAdd >> 8)
	return ins
}

func ret0() asm.Instructions {
	return asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}
}

func concat(parts ...asm.Instructions) asm.Instructions {
	var out asm.Instructions
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func progSpec(name string, typ ebpf.ProgramType, insns asm.Instructions) *ebpf.ProgramSpec {
	return &ebpf.ProgramSpec{Name: name, Type: typ, License: "GPL", Instructions: insns}
}

// printfInt is a printf whose single int64 argument follows the header.
func printfInt(format string) *object.Printf {
	return &object.Printf{Format: format, Args: []object.Arg{{Type: types.Int64, Offset: 16}}, Size: 24}
}

func countFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// run runs prog and returns its stdout and stderr.
func run(t *testing.T, ctx context.Context, prog *object.Program, opts Options) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut syncBuffer
	opts.Stdout, opts.Stderr = &out, &errOut
	code, err := Run(ctx, prog, opts)
	if err != nil {
		t.Fatalf("Run: %v\nstderr: %s", err, errOut.String())
	}
	return code, out.String(), errOut.String()
}

func TestBeginPrintfExit(t *testing.T) {
	requireRoot(t)
	before := countFDs(t)
	prog := &object.Program{
		Collection: &ebpf.CollectionSpec{
			Maps: map[string]*ebpf.MapSpec{eventsMap: ringbufSpec(1 << 16)},
			Programs: map[string]*ebpf.ProgramSpec{
				"begin": progSpec("begin", ebpf.RawTracepoint, concat(
					emit(ev(object.EventPrintf), imm(0), imm(42)),
					emit(ev(object.EventExit), imm(3)),
					// Ignored: after exit().
					emit(ev(object.EventPrintf), imm(0), imm(43)),
					ret0())),
			},
		},
		Probes:    []*object.Probe{{Provider: "begin", Name: "BEGIN", Program: "begin"}},
		Printfs:   []*object.Printf{printfInt("value %d\n")},
		EventsMap: eventsMap,
	}
	code, stdout, stderr := run(t, context.Background(), prog, Options{NoSignals: true})
	if code != 3 {
		t.Errorf("exit code = %d, want 3", code)
	}
	if want := "value 42\n\n\n"; stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
	if want := "Attached 1 probe\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	if after := countFDs(t); after != before {
		t.Errorf("fds: %d before, %d after", before, after)
	}
}

func TestBeginEndOnly(t *testing.T) {
	requireRoot(t)
	// Without exit() a program with only BEGIN and END stops by itself.
	prog := &object.Program{
		Collection: &ebpf.CollectionSpec{
			Maps: map[string]*ebpf.MapSpec{eventsMap: ringbufSpec(1 << 16)},
			Programs: map[string]*ebpf.ProgramSpec{
				"begin2": progSpec("begin2", ebpf.RawTracepoint, concat(emit(ev(object.EventPrintf), imm(0), imm(2)), ret0())),
				"begin1": progSpec("begin1", ebpf.RawTracepoint, concat(emit(ev(object.EventPrintf), imm(0), imm(1)), ret0())),
				"end":    progSpec("end", ebpf.RawTracepoint, concat(emit(ev(object.EventPrintf), imm(1), imm(3)), ret0())),
			},
		},
		Probes: []*object.Probe{
			{Provider: "end", Name: "END", Program: "end"},
			{Provider: "begin", Name: "BEGIN", Program: "begin2", Order: 2},
			{Provider: "begin", Name: "BEGIN", Program: "begin1", Order: 1},
		},
		Printfs:   []*object.Printf{printfInt("begin %d\n"), printfInt("end %d\n")},
		EventsMap: eventsMap,
	}
	code, stdout, stderr := run(t, context.Background(), prog, Options{NoSignals: true})
	if code != 0 {
		t.Errorf("exit code = %d", code)
	}
	if want := "begin 1\nbegin 2\nend 3\n\n\n"; stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
	if want := "Attached 3 probes\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	// Quiet drops the line.
	_, _, stderr = run(t, context.Background(), prog, Options{NoSignals: true, Quiet: true})
	if stderr != "" {
		t.Errorf("quiet stderr = %q", stderr)
	}
}

// waitFor polls until f returns true or fails the test after 10s.
func waitFor(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// runAsync starts Run in a goroutine; the returned function waits for it.
func runAsync(t *testing.T, ctx context.Context, prog *object.Program, opts Options) (stdout, stderr *syncBuffer, wait func() (int, error)) {
	stdout, stderr = new(syncBuffer), new(syncBuffer)
	opts.Stdout, opts.Stderr = stdout, stderr
	type result struct {
		code int
		err  error
	}
	done := make(chan result, 1)
	go func() {
		code, err := Run(ctx, prog, opts)
		done <- result{code, err}
	}()
	return stdout, stderr, func() (int, error) {
		select {
		case r := <-done:
			return r.code, r.err
		case <-time.After(20 * time.Second):
			t.Fatal("Run did not return")
			return 0, nil
		}
	}
}

func TestTracepointCount(t *testing.T) {
	requireRoot(t)
	before := countFDs(t)
	pid := os.Getpid()
	// @ = count() for calls to getpgid and getppid from this process.
	insns := concat(asm.Instructions{
		asm.FnGetCurrentPidTgid.Call(),
		asm.RSh.Imm(asm.R0, 32),
		asm.JNE.Imm(asm.R0, int32(pid), "out"),
	}, stImm64(-8, 0), asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference("count"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -8),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "init"),
		asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
		asm.Add.Imm(asm.R1, 1),
		asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
		asm.Ja.Label("out"),
	}, stImm64(-16, 1, "init"), asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference("count"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -8),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -16),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnMapUpdateElem.Call(),
		asm.Mov.Imm(asm.R0, 0).WithSymbol("out"),
		asm.Return(),
	})
	prog := &object.Program{
		Collection: &ebpf.CollectionSpec{
			Maps: map[string]*ebpf.MapSpec{
				eventsMap: ringbufSpec(1 << 16),
				"count":   {Name: "count", Type: ebpf.PerCPUHash, KeySize: 8, ValueSize: 8, MaxEntries: 1},
			},
			Programs: map[string]*ebpf.ProgramSpec{
				"tp": progSpec("tp", ebpf.TracePoint, insns),
			},
		},
		Probes: []*object.Probe{{
			Provider: "tracepoint", Name: "tracepoint:syscalls:sys_enter_getp*id",
			Program: "tp", Targets: []object.Target{provider.TracepointTarget{Category: "syscalls", Event: "sys_enter_getpgid"}, provider.TracepointTarget{Category: "syscalls", Event: "sys_enter_getppid"}},
		}},
		Maps: []*object.Map{{
			Name: "@", BPFName: "count", Key: types.Uint64,
			Value: &types.Type{Kind: types.Count, Size: 8}, PerCPU: true,
		}},
		EventsMap: eventsMap,
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	attached := make(chan struct{})
	stdout, stderr, wait := runAsync(t, ctx, prog, Options{NoSignals: true, Attached: func() { close(attached) }})
	<-attached
	const n = 57
	for range n {
		unix.Getppid()
	}
	for range n {
		// Not getpid: the Go runtime calls it to preempt goroutines.
		unix.Getpgid(0)
	}
	cancel()
	code, err := wait()
	if err != nil || code != 0 {
		t.Fatalf("Run = %d, %v", code, err)
	}
	if want := fmt.Sprintf("\n\n@: %d\n", 2*n); stdout.String() != want {
		t.Errorf("stdout = %q, want %q", stdout.String(), want)
	}
	if want := "Attached 2 probes\n"; stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
	if after := countFDs(t); after != before {
		t.Errorf("fds: %d before, %d after", before, after)
	}
}

// intervalProg counts its firings in an array map, sends "tick N" each
// time and exits after the third.
func intervalProg(kind string) *object.Program {
	insns := concat(asm.Instructions{
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
		asm.LoadMapPtr(asm.R1, 0).WithReference("n"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.Mov.Imm(asm.R7, 1),
		fetchAdd64(asm.R0, asm.R7), // R7 = old value
		asm.Add.Imm(asm.R7, 1),
	},
		emit(ev(object.EventPrintf), imm(0), reg(asm.R7)),
		asm.Instructions{asm.JLT.Imm(asm.R7, 3, "out")},
		emit(ev(object.EventExit), imm(0)),
		asm.Instructions{asm.Mov.Imm(asm.R0, 0).WithSymbol("out"), asm.Return()},
	)
	return &object.Program{
		Collection: &ebpf.CollectionSpec{
			Maps: map[string]*ebpf.MapSpec{
				eventsMap: ringbufSpec(1 << 16),
				"n":       {Name: "n", Type: ebpf.Array, KeySize: 4, ValueSize: 8, MaxEntries: 1},
			},
			Programs: map[string]*ebpf.ProgramSpec{"tick": progSpec("tick", ebpf.PerfEvent, insns)},
		},
		Probes:    []*object.Probe{{Provider: kind, Name: "interval:ms:20", Program: "tick", Period: 20e6, Freq: 0}},
		Printfs:   []*object.Printf{printfInt("tick %d\n")},
		EventsMap: eventsMap,
	}
}

func TestInterval(t *testing.T) {
	requireRoot(t)
	before := countFDs(t)
	start := time.Now()
	code, stdout, stderr := run(t, context.Background(), intervalProg("interval"), Options{NoSignals: true})
	if code != 0 {
		t.Errorf("exit code = %d", code)
	}
	if want := "tick 1\ntick 2\ntick 3\n\n\n"; stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
	if want := "Attached 1 probe\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	// cpu-clock counts CPU time: on an idle CPU 0 it advances with wall time.
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("3 ticks of 20ms took %v", d)
	}
	if after := countFDs(t); after != before {
		t.Errorf("fds: %d before, %d after", before, after)
	}
}

func TestProfile(t *testing.T) {
	requireRoot(t)
	prog := intervalProg("profile")
	prog.Probes[0].Period, prog.Probes[0].Freq = 0, 99
	code, stdout, _ := run(t, context.Background(), prog, Options{NoSignals: true})
	// Several CPUs may fire at once, so ticks may come out of order and a
	// few more may precede the exit event.
	if code != 0 || !strings.HasSuffix(stdout, "\n\n\n") {
		t.Errorf("Run = %d, stdout %q", code, stdout)
	}
	for _, want := range []string{"tick 1\n", "tick 2\n", "tick 3\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout %q lacks %q", stdout, want)
		}
	}
}

func TestMapEvents(t *testing.T) {
	requireRoot(t)
	// @a[1] = 5; print(@a); zero(@a); print(@a); clear(@a); exit()
	insns := concat(stImm64(-8, 1), stImm64(-16, 5), asm.Instructions{
		asm.LoadMapPtr(asm.R1, 0).WithReference("a"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -8),
		asm.Mov.Reg(asm.R3, asm.RFP),
		asm.Add.Imm(asm.R3, -16),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnMapUpdateElem.Call(),
	},
		emit(ev(object.EventPrint), imm(0)),
		emit(ev(object.EventZero), imm(0)),
		emit(ev(object.EventPrint), imm(0)),
		emit(ev(object.EventClear), imm(0)),
		emit(ev(object.EventPrint), imm(0)),
		emit(ev(object.EventExit), imm(0)),
		ret0(),
	)
	prog := &object.Program{
		Collection: &ebpf.CollectionSpec{
			Maps: map[string]*ebpf.MapSpec{
				eventsMap: ringbufSpec(1 << 16),
				"a":       {Name: "a", Type: ebpf.Hash, KeySize: 8, ValueSize: 8, MaxEntries: 16},
			},
			Programs: map[string]*ebpf.ProgramSpec{"begin": progSpec("begin", ebpf.RawTracepoint, insns)},
		},
		Probes: []*object.Probe{{Provider: "begin", Name: "BEGIN", Program: "begin"}},
		Maps: []*object.Map{{
			Name: "@a", BPFName: "a", Keys: []*types.Type{types.Int64},
			Key: types.NewTuple([]*types.Type{types.Int64}, nil), Value: types.Int64,
		}},
		EventsMap: eventsMap,
	}
	_, stdout, _ := run(t, context.Background(), prog, Options{NoSignals: true})
	if want := "@a[1]: 5\n@a[1]: 0\n\n\n"; stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
}

func TestGlobals(t *testing.T) {
	requireRoot(t)
	// printf("%d %d", start_ns, start_boot_ns) from the globals map.
	insns := concat(asm.Instructions{
		asm.StoreImm(asm.RFP, -4, 0, asm.Word),
		asm.LoadMapPtr(asm.R1, 0).WithReference("globals"),
		asm.Mov.Reg(asm.R2, asm.RFP),
		asm.Add.Imm(asm.R2, -4),
		asm.FnMapLookupElem.Call(),
		asm.JEq.Imm(asm.R0, 0, "out"),
		asm.LoadMem(asm.R6, asm.R0, 8, asm.DWord),
		asm.LoadMem(asm.R7, asm.R0, 16, asm.DWord),
	},
		emit(ev(object.EventPrintf), imm(0), reg(asm.R6), reg(asm.R7)),
		asm.Instructions{asm.Mov.Imm(asm.R0, 0).WithSymbol("out"), asm.Return()},
	)
	prog := &object.Program{
		Collection: &ebpf.CollectionSpec{
			Maps: map[string]*ebpf.MapSpec{
				eventsMap: ringbufSpec(1 << 16),
				"globals": {Name: "globals", Type: ebpf.Array, KeySize: 4, ValueSize: 24, MaxEntries: 1},
			},
			Programs: map[string]*ebpf.ProgramSpec{"begin": progSpec("begin", ebpf.RawTracepoint, insns)},
		},
		Probes: []*object.Probe{{Provider: "begin", Name: "BEGIN", Program: "begin"}},
		Printfs: []*object.Printf{{Format: "%lu %lu\n", Size: 32, Args: []object.Arg{
			{Type: types.Uint64, Offset: 16}, {Type: types.Uint64, Offset: 24},
		}}},
		EventsMap:  eventsMap,
		GlobalsMap: "globals",
		Globals:    object.GlobalsLayout{Size: 24, StartNsOffset: 8, StartBootOffset: 16},
	}
	clock := func(id int32) uint64 {
		var ts unix.Timespec
		if err := unix.ClockGettime(id, &ts); err != nil {
			t.Fatal(err)
		}
		return uint64(ts.Nano())
	}
	mono0, boot0 := clock(unix.CLOCK_MONOTONIC), clock(unix.CLOCK_BOOTTIME)
	_, stdout, _ := run(t, context.Background(), prog, Options{NoSignals: true})
	mono1, boot1 := clock(unix.CLOCK_MONOTONIC), clock(unix.CLOCK_BOOTTIME)
	fields := strings.Fields(stdout)
	if len(fields) != 2 {
		t.Fatalf("stdout = %q", stdout)
	}
	mono, _ := strconv.ParseUint(fields[0], 10, 64)
	boot, _ := strconv.ParseUint(fields[1], 10, 64)
	if mono < mono0 || mono > mono1 {
		t.Errorf("start ns %d not within [%d, %d]", mono, mono0, mono1)
	}
	if boot < boot0 || boot > boot1 {
		t.Errorf("start boot ns %d not within [%d, %d]", boot, boot0, boot1)
	}
}

func TestLostEvents(t *testing.T) {
	requireRoot(t)
	// BEGIN sends 200 records of 24 bytes (32 with the ring buffer's
	// header) into a 4096-byte ring buffer, whose producer can be at most
	// 4095 bytes ahead of the consumer: 127 fit, and the 73 that
	// do not are counted in a per-CPU "dropped" map as codegen does.
	const total, fit = 200, (4096 - 1) / 32
	var insns asm.Instructions
	for i := range total {
		insns = append(insns, emit(ev(object.EventPrintf), imm(0), imm(int64(i)))...)
		skip := fmt.Sprintf("ok%d", i)
		insns = append(insns,
			asm.JEq.Imm(asm.R0, 0, skip),
			asm.StoreImm(asm.RFP, -4, 0, asm.Word),
			asm.LoadMapPtr(asm.R1, 0).WithReference("dropped"),
			asm.Mov.Reg(asm.R2, asm.RFP),
			asm.Add.Imm(asm.R2, -4),
			asm.FnMapLookupElem.Call(),
			asm.JEq.Imm(asm.R0, 0, skip),
			asm.LoadMem(asm.R1, asm.R0, 0, asm.DWord),
			asm.Add.Imm(asm.R1, 1),
			asm.StoreMem(asm.R0, 0, asm.R1, asm.DWord),
			asm.Mov.Imm(asm.R0, 0).WithSymbol(skip),
		)
	}
	insns = append(insns, asm.Return())
	prog := &object.Program{
		Collection: &ebpf.CollectionSpec{
			Maps: map[string]*ebpf.MapSpec{
				eventsMap: ringbufSpec(4096),
				"dropped": {Name: "dropped", Type: ebpf.PerCPUArray, KeySize: 4, ValueSize: 8, MaxEntries: 1},
			},
			Programs: map[string]*ebpf.ProgramSpec{"begin": progSpec("begin", ebpf.RawTracepoint, insns)},
		},
		Probes:     []*object.Probe{{Provider: "begin", Name: "BEGIN", Program: "begin"}},
		Printfs:    []*object.Printf{printfInt("%d\n")},
		EventsMap:  eventsMap,
		DroppedMap: "dropped",
	}
	_, stdout, stderr := run(t, context.Background(), prog, Options{NoSignals: true})
	if got := strings.Count(stdout, "\n"); got != fit+2 {
		t.Errorf("%d lines printed, want %d + 2", got, fit)
	}
	lost := total - fit
	if want := fmt.Sprintf("Attached 1 probe\nLost %d events\nWARNING: Total lost event count: %d\n", lost, lost); stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
}

func TestSignal(t *testing.T) {
	requireRoot(t)
	prog := intervalProg("interval")
	prog.Probes[0].Period = 10e9 // never fires during the test
	attached := make(chan struct{})
	stdout, _, wait := runAsync(t, context.Background(), prog, Options{Attached: func() { close(attached) }})
	<-attached
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, err := wait()
	if err != nil || code != 0 {
		t.Fatalf("Run = %d, %v", code, err)
	}
	if stdout.String() != "\n\n" {
		t.Errorf("stdout = %q", stdout.String())
	}
}

func TestVerifierError(t *testing.T) {
	requireRoot(t)
	before := countFDs(t)
	prog := &object.Program{
		Collection: &ebpf.CollectionSpec{
			Maps: map[string]*ebpf.MapSpec{eventsMap: ringbufSpec(1 << 16)},
			Programs: map[string]*ebpf.ProgramSpec{
				"good": progSpec("good", ebpf.RawTracepoint, ret0()),
				// R0 is never set.
				"bad": progSpec("bad", ebpf.RawTracepoint, asm.Instructions{
					asm.Mov.Imm(asm.R1, 1).WithSource(asm.Comment("stdin:1:9-10")),
					asm.Return(),
				}),
			},
		},
		Probes: []*object.Probe{
			{Provider: "begin", Name: "BEGIN", Program: "good"},
			{Provider: "end", Name: "END", Program: "bad"},
		},
		EventsMap: eventsMap,
	}
	var out, errOut bytes.Buffer
	code, err := Run(context.Background(), prog, Options{Stdout: &out, Stderr: &errOut, NoSignals: true})
	if err == nil {
		t.Fatal("Run succeeded")
	}
	var ve *ebpf.VerifierError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v does not wrap *ebpf.VerifierError", err)
	}
	var le *LoadError
	if !errors.As(err, &le) || le.Program != "bad" {
		t.Errorf("LoadError = %+v", le)
	}
	if !strings.Contains(fmt.Sprintf("%+v", ve), "R0 !read_ok") {
		t.Errorf("verifier log: %+v", ve)
	}
	if code != 1 || out.Len() != 0 || errOut.Len() != 0 {
		t.Errorf("code %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
	if after := countFDs(t); after != before {
		t.Errorf("fds: %d before, %d after", before, after)
	}
}

func TestAttachErrorCleansUp(t *testing.T) {
	requireRoot(t)
	before := countFDs(t)
	prog := intervalProg("interval")
	// The second target does not exist: the first must be detached again.
	prog.Collection.Programs["tp"] = progSpec("tp", ebpf.TracePoint, ret0())
	prog.Probes = append(prog.Probes, &object.Probe{
		Provider: "tracepoint", Name: "tracepoint:syscalls:*", Program: "tp",
		Targets: []object.Target{provider.TracepointTarget{Category: "syscalls", Event: "sys_enter_getppid"}, provider.TracepointTarget{Category: "syscalls", Event: "sys_enter_nosuch"}},
	})
	var out, errOut bytes.Buffer
	_, err := Run(context.Background(), prog, Options{Stdout: &out, Stderr: &errOut, NoSignals: true})
	if err == nil || !strings.Contains(err.Error(), "sys_enter_nosuch") {
		t.Fatalf("Run error = %v", err)
	}
	if after := countFDs(t); after != before {
		t.Errorf("fds: %d before, %d after", before, after)
	}
}

func TestParseCPUList(t *testing.T) {
	got, err := parseCPUList("0-2,4,6-7")
	if err != nil || fmt.Sprint(got) != "[0 1 2 4 6 7]" {
		t.Errorf("parseCPUList = %v, %v", got, err)
	}
	for _, bad := range []string{"", "a", "3-1", "1-x"} {
		if _, err := parseCPUList(bad); err == nil {
			t.Errorf("parseCPUList(%q) succeeded", bad)
		}
	}
}

func TestAsyncActions(t *testing.T) {
	requireRoot(t)
	file := t.TempDir() + "/f"
	if err := os.WriteFile(file, []byte("file contents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := &object.Program{
		Collection: &ebpf.CollectionSpec{
			Maps: map[string]*ebpf.MapSpec{eventsMap: ringbufSpec(1 << 16)},
			Programs: map[string]*ebpf.ProgramSpec{
				"begin": progSpec("begin", ebpf.RawTracepoint, concat(
					emit(ev(object.EventCat), imm(0)),
					emit(ev(object.EventSystem), imm(1)),
					emit(ev(object.EventTime), imm(0)),
					emit(ev(object.EventPrintValue), imm(2), imm(-7)),
					emit(ev(object.EventErrorf), imm(3), imm(1)),
					emit(ev(object.EventWarnf), imm(3), imm(2)),
					ret0())),
			},
		},
		Probes: []*object.Probe{{Provider: "begin", Name: "BEGIN", Program: "begin"}},
		Printfs: []*object.Printf{
			{Format: file, Size: 16},
			{Format: "echo from system", Size: 16},
			printfInt(""),
			printfInt("problem %d"),
		},
		Times:     []string{"<%Y>\n"},
		EventsMap: eventsMap,
	}
	_, stdout, stderr := run(t, context.Background(), prog, Options{NoSignals: true, Unsafe: true})
	year := time.Now().Year()
	if want := fmt.Sprintf("file contents\nfrom system\n\n<%d>\n-7\n\n\n", year); stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
	if want := "Attached 1 probe\nERROR: problem 1\nWARNING: problem 2\n"; stderr != want {
		t.Errorf("stderr = %q, want %q", stderr, want)
	}
	// system() needs Unsafe.
	_, stdout, stderr = run(t, context.Background(), prog, Options{NoSignals: true})
	if strings.Contains(stdout, "from system") || !strings.Contains(stderr, "ERROR: system() not allowed in safe mode") {
		t.Errorf("safe mode: stdout %q, stderr %q", stdout, stderr)
	}
}

func TestSoftware(t *testing.T) {
	requireRoot(t)
	prog := intervalProg("software")
	prog.Probes[0].Name = "software:page-faults:1"
	prog.Probes[0].Config = unix.PERF_COUNT_SW_PAGE_FAULTS
	prog.Probes[0].Period = 1
	stdout, stderr, wait := runAsync(t, context.Background(), prog, Options{NoSignals: true})
	// Fault in fresh pages until the program has seen three faults.
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			b, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
			if err != nil {
				return
			}
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			unix.Munmap(b)
			time.Sleep(time.Millisecond)
		}
	}()
	code, err := wait()
	close(done)
	if err != nil || code != 0 {
		t.Fatalf("Run = %d, %v", code, err)
	}
	if !strings.Contains(stdout.String(), "tick 3\n") || stderr.String() != "Attached 1 probe\n" {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

func TestLoad(t *testing.T) {
	requireRoot(t)
	before := countFDs(t)
	prog := intervalProg("interval")
	if err := Load(prog, Options{}); err != nil {
		t.Fatal(err)
	}
	prog.Collection.Programs["tick"].Instructions = asm.Instructions{asm.Return()}
	var ve *ebpf.VerifierError
	if err := Load(prog, Options{}); !errors.As(err, &ve) {
		t.Fatalf("Load of a bad program = %v, want a VerifierError", err)
	}
	if after := countFDs(t); after != before {
		t.Errorf("fds: %d before, %d after", before, after)
	}
}

// TestAttachedLine checks bpftrace 0.26's banner, left whole, and the
// line added when attaching was slow.
func TestAttachedLine(t *testing.T) {
	for _, tc := range []struct {
		n    int
		took time.Duration
		want string
	}{
		{1, 0, "Attached 1 probe"},
		{3, time.Millisecond, "Attached 3 probes"},
		{6, 190 * time.Millisecond, "Attached 6 probes"},
		{40, 2500 * time.Millisecond, "Attached 40 probes\nAttaching took 2.50s"},
	} {
		if got := attachedLine(tc.n, tc.took); got != tc.want {
			t.Errorf("attachedLine(%d, %v) = %q, want %q", tc.n, tc.took, got, tc.want)
		}
	}
}
