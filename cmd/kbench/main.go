package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/internal/bisect"
	"github.com/gotrace/gotrace/internal/btfnames"
	"github.com/gotrace/gotrace/internal/tracingmulti"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/tracefs"
)

// Worker counts for separate kprobes and trampolines (the runtime uses 1
// and 32).
var attachWorkers, detachWorkers int

func main() {
	n := flag.Int("n", 1000, "number of kernel functions (0: every candidate)")
	only := flag.String("only", "tracing_multi,kprobe_multi,kprobe,fentry,gotrace-fentry", "methods to measure")
	flag.IntVar(&attachWorkers, "attach-workers", 1, "goroutines attaching separate kprobes/trampolines")
	flag.IntVar(&detachWorkers, "detach-workers", 32, "goroutines detaching them")
	events := flag.Int("events", 0, "measure the cost per event of each mechanism with this many calls instead (see events.go)")
	rounds := flag.Int("rounds", 3, "with -events, rounds to take the best of")
	flag.Parse()
	if *events > 0 {
		set := map[string]bool{}
		if f := flag.Lookup("only"); f != nil && f.Value.String() != f.DefValue {
			for _, m := range strings.Split(*only, ",") {
				set[m] = true
			}
		}
		if err := rlimit.RemoveMemlock(); err != nil {
			fmt.Fprintln(os.Stderr, "kbench:", err)
			os.Exit(1)
		}
		if err := benchEvents(*events, *rounds, set); err != nil {
			fmt.Fprintln(os.Stderr, "kbench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*n, strings.Split(*only, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "kbench:", err)
		os.Exit(1)
	}
}

func run(n int, methods []string) error {
	if err := rlimit.RemoveMemlock(); err != nil {
		return err
	}
	dir, err := tracefs.Mount()
	if err != nil {
		return err
	}
	cache := btf.NewCache()
	env := tracefs.NewEnv(dir, tracefs.WithBTFCache(cache), tracefs.WithKernelFiles(tracefs.LiveKernel()))
	start := time.Now()
	funcs, err := pickFunctions(env, n)
	if err != nil {
		return err
	}
	fmt.Printf("kernel %s: %d functions (%s .. %s) picked in %.2fs\n", release(), len(funcs), funcs[0], funcs[len(funcs)-1], time.Since(start).Seconds())
	for _, m := range methods {
		var err error
		switch m {
		case "kprobe_multi":
			err = benchKprobeMulti(funcs)
		case "tracing_multi":
			err = benchTracingMulti(funcs)
		case "kprobe":
			err = benchKprobes(funcs)
		case "fentry":
			err = benchFentry(funcs, cache)
		case "gotrace-fentry":
			err = benchGotrace(funcs, nil)
		case "gotrace-kprobe_multi":
			err = benchGotrace(funcs, &gotrace.Features{KprobeMulti: true, FentryMultiThreshold: 1})
		case "gotrace-trampolines":
			err = benchGotrace(funcs, &gotrace.Features{})
		case "gotrace-fentry-fexit":
			// the fsession script as two tracing_multi links
			err = benchGotraceScript(m, funcs, &gotrace.Features{TracingMulti: true, TracingMultiMax: 2000}, gotraceMethods["gotrace-fsession"]...)
		default:
			if probes, ok := gotraceMethods[m]; ok {
				err = benchGotraceScript(m, funcs, nil, probes...)
				break
			}
			err = fmt.Errorf("unknown method %q", m)
		}
		if err != nil {
			fmt.Printf("%s: %v\n", m, err)
		}
	}
	return nil
}

func release() string {
	b, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return strings.TrimSpace(string(b))
}

// pickFunctions returns the first n traceable functions with a BTF
// prototype that a trampoline accepts (btfnames.TrampolineRefusals), in
// name order; n <= 0 means all of them.
func pickFunctions(env *tracefs.Env, n int) ([]string, error) {
	traceable, err := env.TraceableFunctions()
	if err != nil {
		return nil, err
	}
	if traceable == nil {
		return nil, fmt.Errorf("available_filter_functions is unreadable")
	}
	ix, err := btfnames.ReadFile(btfnames.KernelPath)
	if err != nil {
		return nil, err
	}
	var names []string
	var ids []btf.TypeID
	for _, e := range ix.Funcs() {
		if traceable[e.Name] {
			names = append(names, e.Name)
			ids = append(ids, e.ID)
		}
	}
	refused, err := ix.TrampolineRefusals(ids)
	if err != nil {
		return nil, err
	}
	var picked []string
	for i, name := range names {
		if refused[ids[i]] != "" {
			continue
		}
		if n > 0 && len(picked) == n {
			break
		}
		picked = append(picked, name)
	}
	if n > 0 && len(picked) < n {
		return nil, fmt.Errorf("only %d candidate functions", len(picked))
	}
	return picked, nil
}

// trivial returns a program body that does nothing.
func trivial() asm.Instructions {
	return asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}
}

func report(method string, n int, load, attach, detach time.Duration, note string) {
	fmt.Printf("%-16s %d functions: load %.2fs, attach %.2fs, detach %.2fs%s\n", method, n, load.Seconds(), attach.Seconds(), detach.Seconds(), note)
}

func benchKprobeMulti(funcs []string) error {
	t0 := time.Now()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Kprobe, AttachType: ebpf.AttachTraceKprobeMulti, License: "GPL", Instructions: trivial()})
	if err != nil {
		return err
	}
	defer prog.Close()
	t1 := time.Now()
	l, err := link.KprobeMulti(prog, link.KprobeMultiOptions{Symbols: funcs})
	if err != nil {
		return err
	}
	t2 := time.Now()
	if err := l.Close(); err != nil {
		return err
	}
	report("kprobe_multi", len(funcs), t1.Sub(t0), t2.Sub(t1), time.Since(t2), "")
	return nil
}

// benchTracingMulti loads one fentry program of attach type
// BPF_TRACE_FENTRY_MULTI and attaches it to every function through one
// tracing_multi link.
func benchTracingMulti(funcs []string) error {
	ix, err := btfnames.ReadFile(btfnames.KernelPath)
	if err != nil {
		return err
	}
	ids := make([]uint32, len(funcs))
	for i, f := range funcs {
		id, ok := ix.Func(f)
		if !ok {
			return fmt.Errorf("%s: not in BTF", f)
		}
		ids[i] = uint32(id)
	}
	t0 := time.Now()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Tracing, AttachType: provider.AttachTraceFentryMulti, License: "GPL", Instructions: trivial()})
	if err != nil {
		return err
	}
	defer prog.Close()
	t1 := time.Now()
	load := t1.Sub(t0)
	try := func(ids []uint32) (*tracingmulti.Link, error) {
		return tracingmulti.Attach(prog, provider.AttachTraceFentryMulti, ids, nil)
	}
	l, err := try(ids)
	note := ""
	if err != nil {
		// Find the functions the kernel refuses, then time the rest.
		var bad []uint32
		good := bisect.Refused(ids, try, &bad)
		names := map[uint32]string{}
		for i, id := range ids {
			names[id] = funcs[i]
		}
		var refused []string
		for _, b := range bad {
			refused = append(refused, names[b])
		}
		note = fmt.Sprintf(" (%d refused, found in %.2fs: %s)", len(bad), time.Since(t1).Seconds(), strings.Join(refused, " "))
		t1 = time.Now()
		if l, err = try(good); err != nil {
			return err
		}
		ids = good
	}
	t2 := time.Now()
	if err := l.Close(); err != nil {
		return err
	}
	report("tracing_multi", len(ids), load, t2.Sub(t1), time.Since(t2), note)
	return nil
}

// pool runs f(0..n-1) on workers goroutines.
func pool(n, workers int, f func(i int)) {
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

func closeAll(ls []link.Link, workers int) {
	pool(len(ls), workers, func(i int) {
		if ls[i] != nil {
			ls[i].Close()
		}
	})
}

func benchKprobes(funcs []string) error {
	t0 := time.Now()
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.Kprobe, License: "GPL", Instructions: trivial()})
	if err != nil {
		return err
	}
	defer prog.Close()
	t1 := time.Now()
	ls := make([]link.Link, len(funcs))
	failed := 0
	var mu sync.Mutex
	pool(len(funcs), attachWorkers, func(i int) {
		l, err := link.Kprobe(funcs[i], prog, nil)
		if err != nil {
			mu.Lock()
			failed++
			mu.Unlock()
			return
		}
		ls[i] = l
	})
	t2 := time.Now()
	closeAll(ls, detachWorkers)
	report("kprobe", len(funcs), t1.Sub(t0), t2.Sub(t1), time.Since(t2), fmt.Sprintf(" (%d refused)", failed))
	return nil
}

func benchFentry(funcs []string, cache *btf.Cache) error {
	t0 := time.Now()
	progs := make([]*ebpf.Program, len(funcs))
	failed := 0
	var mu sync.Mutex
	pool(len(funcs), 2, func(i int) {
		spec := &ebpf.CollectionSpec{Programs: map[string]*ebpf.ProgramSpec{"p": {
			Name: "kbench", Type: ebpf.Tracing, AttachType: ebpf.AttachTraceFEntry,
			AttachTo: funcs[i], License: "GPL", Instructions: trivial(),
		}}}
		coll, err := ebpf.NewCollectionWithOptions(spec, ebpf.CollectionOptions{Cache: cache})
		if err != nil {
			mu.Lock()
			failed++
			mu.Unlock()
			return
		}
		progs[i] = coll.DetachProgram("p")
		coll.Close()
	})
	defer func() {
		for _, p := range progs {
			if p != nil {
				p.Close()
			}
		}
	}()
	t1 := time.Now()
	ls := make([]link.Link, len(funcs))
	pool(len(funcs), attachWorkers, func(i int) {
		if progs[i] == nil {
			return
		}
		l, err := link.AttachTracing(link.TracingOptions{Program: progs[i], AttachType: ebpf.AttachTraceFEntry})
		if err != nil {
			mu.Lock()
			failed++
			mu.Unlock()
			return
		}
		ls[i] = l
	})
	t2 := time.Now()
	closeAll(ls, detachWorkers)
	report("fentry", len(funcs), t1.Sub(t0), t2.Sub(t1), time.Since(t2), fmt.Sprintf(" (%d refused)", failed))
	return nil
}

// benchGotrace compiles and runs "fentry:f1,fentry:f2,... { @[func] =
// count(); }" through gotrace: compile, then Run until attached, then
// cancel and wait for Run to detach and return.
func benchGotrace(funcs []string, feat *gotrace.Features) error {
	return benchGotraceScript("gotrace-fentry", funcs, feat, gotraceProbe{"fentry", "@[func] = count();"})
}

// gotraceProbe is a probe of a kbench script: the provider, over every
// function, and the body.
type gotraceProbe struct{ provider, body string }

// gotraceMethods are the gotrace scripts kbench runs beside
// gotrace-fentry, by method name: an fentry and an fexit pair (one
// fsession link on 7.3).
var gotraceMethods = map[string][]gotraceProbe{
	"gotrace-fsession": {{"fentry", "@e[func] = count();"}, {"fexit", "@r[func] = count();"}},
}

// benchGotraceScript compiles and runs a script of probes over funcs and
// prints the times of its stages as method.
func benchGotraceScript(method string, funcs []string, feat *gotrace.Features, probes ...gotraceProbe) error {
	var sb strings.Builder
	for _, p := range probes {
		for i, f := range funcs {
			if i > 0 {
				sb.WriteString(",")
			}
			sb.WriteString(p.provider + ":" + f)
		}
		sb.WriteString(" { " + p.body + " }\n")
	}
	t0 := time.Now()
	script, err := gotrace.Compile("kbench", sb.String(), gotrace.Options{Features: feat})
	if err != nil {
		return err
	}
	t1 := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var t2 time.Time
	attached := make(chan struct{})
	var stderr strings.Builder
	done := make(chan error, 1)
	go func() {
		_, err := script.Run(ctx, gotrace.RunOptions{
			Stdout: io.Discard, Stderr: &stderr, NoSignals: true, NoExitMaps: true,
			Attached: func() { t2 = time.Now(); close(attached) },
		})
		done <- err
	}()
	select {
	case <-attached:
	case err := <-done:
		return fmt.Errorf("run: %v\n%s", err, stderr.String())
	}
	t3 := time.Now()
	cancel()
	if err := <-done; err != nil {
		return fmt.Errorf("run: %v\n%s", err, stderr.String())
	}
	via := ""
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, "_multi") || strings.Contains(l, "trampolines") || strings.Contains(l, "skipped") {
			via += "\n    " + l
		}
	}
	fmt.Printf("%-16s %d functions: compile %.2fs, load+attach %.2fs, detach %.2fs, total %.2fs%s\n", method, len(funcs),
		t1.Sub(t0).Seconds(), t2.Sub(t1).Seconds(), time.Since(t3).Seconds(), time.Since(t0).Seconds(), via)
	return nil
}
