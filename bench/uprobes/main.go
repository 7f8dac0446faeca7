package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"
)

func main() {
	n := flag.Int("n", 1000, "number of functions in the generated binary")
	r := flag.Int("r", 3, "runs per measurement (medians reported)")
	gt := flag.String("gotrace", "./gotrace", "gotrace binary")
	only := flag.String("only", "multi,single,gotrace", "measurements to run")
	flag.Parse()
	if err := run(*n, *r, *gt, strings.Split(*only, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "uprobes:", err)
		os.Exit(1)
	}
}

func run(n, r int, gt string, only []string) error {
	if err := rlimit.RemoveMemlock(); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "uprobes-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin, err := build(dir, n)
	if err != nil {
		return err
	}
	syms := make([]string, n)
	for i := range syms {
		syms[i] = fmt.Sprintf("fn_%d", i)
	}
	type method struct {
		name string
		run  func() (attach, detach time.Duration, err error)
	}
	methods := []method{
		{"multi", func() (time.Duration, time.Duration, error) { return handWritten(bin, syms, true) }},
		{"single", func() (time.Duration, time.Duration, error) { return handWritten(bin, syms, false) }},
		{"gotrace", func() (time.Duration, time.Duration, error) { return gotrace(gt, bin) }},
	}
	fmt.Printf("%d functions of %s, median of %d runs\n", n, filepath.Base(bin), r)
	for _, m := range methods {
		if !slices.Contains(only, m.name) {
			continue
		}
		var as, ds []time.Duration
		for range r {
			a, d, err := m.run()
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			as, ds = append(as, a), append(ds, d)
		}
		fmt.Printf("%-8s attach %8.3fs  detach %8.3fs\n", m.name, median(as).Seconds(), median(ds).Seconds())
	}
	return nil
}

// build writes and compiles a program of n functions fn_0 … fn_N-1.
func build(dir string, n int) (string, error) {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "__attribute__((noinline)) int fn_%d(int x) { __asm__ volatile(\"\"); return x + %d; }\n", i, i)
	}
	b.WriteString("int main(void) { return fn_0(0); }\n")
	src := filepath.Join(dir, "many.c")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "many")
	if out, err := exec.Command("cc", "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		return "", fmt.Errorf("cc: %v\n%s", err, out)
	}
	return bin, nil
}

// handWritten attaches a trivial program to every symbol, through one
// uprobe_multi link or one uprobe each, and closes the links.
func handWritten(bin string, syms []string, multi bool) (attach, detach time.Duration, err error) {
	spec := &ebpf.ProgramSpec{Type: ebpf.Kprobe, License: "GPL", Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()}}
	if multi {
		spec.AttachType = ebpf.AttachTraceUprobeMulti
	}
	prog, err := ebpf.NewProgram(spec)
	if err != nil {
		return 0, 0, err
	}
	defer prog.Close()
	ex, err := link.OpenExecutable(bin)
	if err != nil {
		return 0, 0, err
	}
	var links []link.Link
	start := time.Now()
	if multi {
		l, err := ex.UprobeMulti(syms, prog, nil)
		if err != nil {
			return 0, 0, err
		}
		links = append(links, l)
	} else {
		for _, s := range syms {
			l, err := ex.Uprobe(s, prog, nil)
			if err != nil {
				for _, l := range links {
					l.Close()
				}
				return 0, 0, err
			}
			links = append(links, l)
		}
	}
	attach = time.Since(start)
	start = time.Now()
	for _, l := range links {
		l.Close()
	}
	return attach, time.Since(start), nil
}

// gotrace runs uprobe:BIN:fn_* and times launch to "Attached", and SIGINT to
// exit.
func gotrace(gt, bin string) (attach, detach time.Duration, err error) {
	cmd := exec.Command(gt, "-e", "uprobe:"+bin+":fn_* { @ = count(); }")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return 0, 0, err
	}
	cmd.Stdout = nil
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(stderr)
	attached := false
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.HasPrefix(sc.Text(), "Attached ") {
			attached = true
			break
		}
	}
	attach = time.Since(start)
	if !attached {
		cmd.Wait()
		return 0, 0, fmt.Errorf("gotrace did not attach:\n%s", strings.Join(lines, "\n"))
	}
	start = time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		return 0, 0, err
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if err := cmd.Wait(); err != nil {
		return 0, 0, fmt.Errorf("gotrace: %w", err)
	}
	return attach, time.Since(start), nil
}

func median(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}
