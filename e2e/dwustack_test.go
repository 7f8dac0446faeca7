package e2e

import (
	"context"
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/arch/x86/x86asm"

	"github.com/gotrace/gotrace/internal/testbin"
)

// buildNofp compiles runtime/unwind's test program (main -> funcA ->
// funcB -> funcC -> funcD, called in a loop) as bpftrace's uprobe_nofp is
// built: optimised, without frame pointers, so that only DWARF CFI walks
// its stack.
func buildNofp(t *testing.T) string {
	return testbin.C(t, "../runtime/unwind/testdata/nofp.c", "nofp", "-O2", "-fomit-frame-pointer")
}

// callFrame returns where dw_ustack places the frame of caller while it
// calls callee: the offset in caller of the last byte of the call
// instruction (the return address less one, as bpftrace gives it).
func callFrame(t *testing.T, bin, caller, callee string) uint64 {
	t.Helper()
	start, size := elfFunc(t, bin, caller)
	target, _ := elfFunc(t, bin, callee)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text := f.Section(".text")
	code := make([]byte, size)
	if _, err := text.ReadAt(code, int64(start-text.Addr)); err != nil {
		t.Fatal(err)
	}
	for pos := 0; pos < len(code); {
		inst, err := x86asm.Decode(code[pos:], 64)
		if err != nil {
			t.Fatalf("%s+%d: %v", caller, pos, err)
		}
		pos += inst.Len
		if rel, ok := inst.Args[0].(x86asm.Rel); ok && inst.Op == x86asm.CALL && start+uint64(pos)+uint64(int64(rel)) == target {
			return uint64(pos - 1)
		}
	}
	t.Fatalf("%s does not call %s", caller, callee)
	return 0
}

// nofpFrames are the frames funcD..main of a dw_ustack taken at funcD's
// entry, as name+offset lines.
func nofpFrames(t *testing.T, bin string) []string {
	return []string{"funcD+0",
		fmt.Sprintf("funcC+%d", callFrame(t, bin, "funcC", "funcD")),
		fmt.Sprintf("funcB+%d", callFrame(t, bin, "funcB", "funcC")),
		fmt.Sprintf("funcA+%d", callFrame(t, bin, "funcA", "funcB")),
		fmt.Sprintf("main+%d", callFrame(t, bin, "main", "funcA")),
	}
}

// TestDwUstack: dw_ustack of a program without frame pointers, run with
// -c, walks from funcD through funcC, funcB and funcA to main, on through
// the C library, to _start, where the CFI ends the stack.
func TestDwUstack(t *testing.T) {
	bin := buildNofp(t)
	got := run(t, "-c", bin, "-e", `config = { show_debug_info = 0 } uprobe:`+bin+`:funcD { printf("%s\n", dw_ustack()); exit(); }`)
	if got.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", got.code, got.stderr)
	}
	if !strings.Contains(got.stderr, "WARNING: Script is using an unstable feature: dw_ustack (DWARF stack unwinding). To prevent this warning you must explicitly enable it in the config e.g. unstable_dw_ustack=enable\n") {
		t.Errorf("no unstable feature warning; stderr:\n%s", got.stderr)
	}
	lines := strings.Split(got.stdout, "\n")
	want := nofpFrames(t, bin)
	if len(lines) < len(want)+2 || lines[0] != "" {
		t.Fatalf("stdout %q", got.stdout)
	}
	for i, w := range want {
		if lines[i+1] != "        "+w {
			t.Errorf("frame %d: %q, want %q; stdout:\n%s", i, lines[i+1], "        "+w, got.stdout)
		}
	}
	// After main, the C library's frames, then _start, then a blank line
	// (the stack ends with a newline, then printf's) and exit's two.
	end := len(lines) - 5
	if !regexp.MustCompile(`^        _start\+\d+$`).MatchString(lines[end]) || strings.Join(lines[end+1:], "\n") != "\n\n\n" {
		t.Errorf("stack does not end at _start then the blank lines; stdout:\n%s", got.stdout)
	}
}

// TestDwUstackModes: perf and raw modes, a limit, and a dw_ustack kept
// as a map value and printed at exit.
func TestDwUstackModes(t *testing.T) {
	bin := buildNofp(t)
	got := run(t, "-c", bin, "-e", `config = { unstable_dw_ustack = enable } uprobe:`+bin+`:funcD { print(dw_ustack(perf, 3)); @s = dw_ustack(raw, 2); exit(); }`)
	if got.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", got.code, got.stderr)
	}
	if strings.Contains(got.stderr, "unstable feature") {
		t.Errorf("unstable_dw_ustack = enable still warns; stderr:\n%s", got.stderr)
	}
	frames := nofpFrames(t, bin)
	lines := strings.Split(got.stdout, "\n")
	if len(lines) < 10 {
		t.Fatalf("stdout %q", got.stdout)
	}
	// The first frame tells where the program is loaded.
	funcD, _ := elfFunc(t, bin, "funcD")
	addr, err := strconv.ParseUint(strings.Fields(lines[1])[0], 16, 64)
	if err != nil {
		t.Fatalf("stdout %q: %v", got.stdout, err)
	}
	load := addr - funcD
	at := func(frame string) uint64 {
		name, off, _ := strings.Cut(frame, "+")
		start, _ := elfFunc(t, bin, name)
		n, _ := strconv.ParseUint(off, 10, 64)
		return load + start + n
	}
	var want strings.Builder
	want.WriteString("\n")
	for _, f := range frames[:3] {
		fmt.Fprintf(&want, "\t%x %s (%s)\n", at(f), f, bin)
	}
	fmt.Fprintf(&want, "\n\n\n@s: \n%x\n%x\n\n", at(frames[0]), at(frames[1]))
	wantOutput(t, got, want.String(), 0)
}

// TestDwUstackTargets: without -p, -c or --dwarf-pid dw_ustack is an
// error at its position; with --dwarf-pid naming another process, a
// process outside it gets an empty stack and bpftrace's run-time warning;
// -p names a process to unwind.
func TestDwUstackTargets(t *testing.T) {
	bin := buildNofp(t)
	script := `config = { unstable_dw_ustack = enable; show_debug_info = 0 } uprobe:` + bin + `:funcD { printf("%s\n", dw_ustack(5)); exit(); }`
	got := run(t, "-e", script)
	col := strings.Index(script, "dw_ustack(5)") + 1
	wantErr := fmt.Sprintf("stdin:1:%d-%d: ERROR: dw_ustack requires a target process. Use -p, -c, or --dwarf-pid to specify one.\n", col, col+len("dw_ustack(5)"))
	if got.code != 1 || !strings.HasPrefix(got.stderr, wantErr) {
		t.Errorf("no target: exit %d, stderr %q; want exit 1 and %q", got.code, got.stderr, wantErr)
	}

	traced := exec.Command(bin)
	if err := traced.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { traced.Process.Kill(); traced.Wait() })
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Process.Kill(); other.Wait() })

	got = run(t, "--dwarf-pid", strconv.Itoa(other.Process.Pid), "-e", script)
	wantOutput(t, got, "\n\n\n\n", 0)
	if !strings.Contains(got.stderr, "WARNING: No DWARF unwind data available for this process. Use -p or --dwarf-pid to specify target PIDs.\n") {
		t.Errorf("--dwarf-pid of another process: no warning; stderr:\n%s", got.stderr)
	}

	got = run(t, "-p", strconv.Itoa(traced.Process.Pid), "-e", script)
	wantOutput(t, got, "\n        "+strings.Join(nofpFrames(t, bin), "\n        ")+"\n\n\n\n", 0)
}

// TestDwUstackBpftrace27: where bpftrace 0.27.1 is installed (the
// bpftrace27 wrapper), its dw_ustack and gotrace's give the same frames
// of the traced program, funcD to main, in the default and perf formats.
// The C library's frames are left out: bpftrace27 runs the program with
// its own chroot's library.
func TestDwUstackBpftrace27(t *testing.T) {
	bt, err := exec.LookPath("bpftrace27")
	if err != nil {
		t.Skip("bpftrace27 is not installed (/work/shared/bpftrace-0.27/setup.sh)")
	}
	bin := buildNofp(t)
	own := func(out string) []string {
		var frames []string
		for _, l := range strings.Split(out, "\n") {
			l = strings.TrimSpace(l)
			if _, rest, ok := strings.Cut(l, " "); ok && strings.HasSuffix(l, "("+bin+")") {
				l = rest // perf: the address varies from run to run
			}
			if strings.HasPrefix(l, "func") || strings.HasPrefix(l, "main+") {
				frames = append(frames, l)
			}
		}
		return frames
	}
	for _, mode := range []string{"", "perf"} {
		script := `config = { show_debug_info = 0; unstable_dw_ustack = enable } uprobe:` + bin + `:funcD { printf("%s\n", dw_ustack(` + mode + `)); exit(); }`
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		ref := runCmd(t, exec.CommandContext(ctx, bt, "-c", bin, "-e", script))
		cancel()
		if ref.code != 0 {
			t.Fatalf("bpftrace27: exit %d\n%s", ref.code, ref.stderr)
		}
		got := run(t, "-c", bin, "-e", script)
		want := own(ref.stdout)
		if len(want) != 5 || strings.Join(own(got.stdout), "\n") != strings.Join(want, "\n") {
			t.Errorf("mode %q: gotrace's frames\n%s\nbpftrace27's\n%s", mode, got.stdout, ref.stdout)
		}
	}
}

// TestDwUstackUretprobe: uretprobes on funcB and funcC replace their
// return addresses on the stack with the trampoline's; dw_ustack in
// funcD still walks funcD..main, from the task's return instances.
func TestDwUstackUretprobe(t *testing.T) {
	bin := buildNofp(t)
	got := run(t, "-c", bin, "-e", `config = { unstable_dw_ustack = enable; show_debug_info = 0; print_maps_on_exit = 0 }
uretprobe:`+bin+`:funcB, uretprobe:`+bin+`:funcC { @r = 1 }
uprobe:`+bin+`:funcD { printf("%s\n", dw_ustack(5)); exit(); }`)
	want := "\n        " + strings.Join(nofpFrames(t, bin), "\n        ") + "\n\n\n\n"
	wantOutput(t, got, want, 0)
}

// TestDwUstackBesideUstack: a dw_ustack and a ustack printed by one
// probe each keep their own kind: the frame-pointer walk of the program
// without frame pointers ends at funcD.
func TestDwUstackBesideUstack(t *testing.T) {
	bin := buildNofp(t)
	got := run(t, "-c", bin, "-e", `config = { unstable_dw_ustack = enable; show_debug_info = 0 } uprobe:`+bin+`:funcD { print(dw_ustack(2)); print(ustack(1)); exit(); }`)
	frames := nofpFrames(t, bin)
	wantOutput(t, got, "\n        "+frames[0]+"\n        "+frames[1]+"\n\n\n        funcD+0\n\n\n\n", 0)
}

// TestDwUstackExited: a dw_ustack kept in a map of a -c child that has
// exited when the map prints (the run ends with the child) has lost its
// mappings: its first frame only, with a warning saying why.
func TestDwUstackExited(t *testing.T) {
	bin := buildNofp(t)
	// With an argument the program walks its chain once and exits.
	got := run(t, "-c", bin+" "+filepath.Join(t.TempDir(), "sample"), "-e", `config = { unstable_dw_ustack = enable } uprobe:`+bin+`:funcD { @s = dw_ustack(3); }`)
	if got.code != 0 || !regexp.MustCompile(`^\n\n@s: \n        0x[0-9a-f]+\n\n$`).MatchString(got.stdout) {
		t.Errorf("exit %d, stdout %q", got.code, got.stdout)
	}
	if !regexp.MustCompile(`WARNING: dw_ustack: the mappings of process \d+ are gone \(it exited before its stack was printed\): its stacks show their first frame only\n`).MatchString(got.stderr) {
		t.Errorf("no warning; stderr:\n%s", got.stderr)
	}
}
