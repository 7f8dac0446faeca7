package e2e

import (
	"debug/elf"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestUprobe traces a small C program (built here with cc): uprobe argN,
// uretprobe retval, func, and a wildcard.
func TestUprobe(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "add")
	if out, err := exec.Command(cc, "-O1", "-o", bin, "testdata/uprobe/add.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	script := `uprobe:` + bin + `:add { @calls = count(); @a = sum(arg0); @f[func] = count(); }
uretprobe:` + bin + `:add { @r = sum(retval); }
uprobe:` + bin + `:ad* { @wild = count(); }`
	s := startNoWait(t, "-e", script)
	s.waitLinks(3, 20*time.Second)
	if out, err := exec.Command(bin, "10").CombinedOutput(); err != nil || string(out) != "55\n" {
		t.Fatalf("traced program: %v %q", err, out)
	}
	got := s.stop(syscall.SIGINT)
	wantOutput(t, got, "\n\n@a: 45\n@calls: 10\n@f[add]: 10\n@r: 55\n@wild: 10\n", 0)
}

// TestUprobeSymbols: usym(), ustack and uaddr() resolve the traced
// program's functions (while it is still running).
func TestUprobeSymbols(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "add")
	if out, err := exec.Command(cc, "-O1", "-o", bin, "testdata/uprobe/add.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	s := startNoWait(t, "-e", `uprobe:`+bin+`:add { @[ustack(1)] = count(); @s[usym(reg("ip"))] = count(); @u = uaddr("add") > 0; }`)
	s.waitLinks(1, 20*time.Second)
	traced := exec.Command(bin, "4", "5")
	if err := traced.Start(); err != nil {
		t.Fatal(err)
	}
	defer traced.Process.Kill()
	time.Sleep(300 * time.Millisecond) // the loop has run; the program sleeps
	got := s.stop(syscall.SIGINT)
	wantOutput(t, got, "\n\n@[\n        add+0\n]: 4\n@s[add]: 4\n@u: true\n", 0)
}

// TestUprobeFuncExited: func in a probe on several functions is their
// address, resolved in the traced executable even after the process has
// exited (a position-dependent executable maps its functions at their
// link-time addresses).
func TestUprobeFuncExited(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "add")
	if out, err := exec.Command(cc, "-O1", "-no-pie", "-o", bin, "testdata/uprobe/add.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	s := startNoWait(t, "-e", `uprobe:`+bin+`:add,uprobe:`+bin+`:main { @[func] = count(); }`)
	s.waitAttached(20 * time.Second) // one uprobe_multi link, or two perf events
	if out, err := exec.Command(bin, "3").CombinedOutput(); err != nil || string(out) != "6\n" {
		t.Fatalf("traced program: %v %q", err, out)
	}
	time.Sleep(200 * time.Millisecond)
	got := s.stop(syscall.SIGINT)
	wantOutput(t, got, "\n\n@[main]: 1\n@[add]: 3\n", 0)
}

// TestUstackPerf: stack_mode perf prints a user frame as perf does, with
// the address, the function and offset, and the file it is in.
func TestUstackPerf(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "add")
	if out, err := exec.Command(cc, "-O1", "-no-pie", "-o", bin, "testdata/uprobe/add.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	syms, err := f.Symbols()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var addr uint64
	for _, s := range syms {
		if s.Name == "add" {
			addr = s.Value
		}
	}
	s := startNoWait(t, "-e", `config = { stack_mode = perf } uprobe:`+bin+`:add { @[ustack(1)] = count(); }`)
	s.waitLinks(1, 20*time.Second)
	traced := exec.Command(bin, "2", "5")
	if err := traced.Start(); err != nil {
		t.Fatal(err)
	}
	defer traced.Process.Kill()
	time.Sleep(300 * time.Millisecond) // the loop has run; the program sleeps
	got := s.stop(syscall.SIGINT)
	wantOutput(t, got, fmt.Sprintf("\n\n@[\n\t%x add+0 (%s)\n]: 2\n", addr, bin), 0)
}

// TestUstackDebugInfo: a user frame in a file with DWARF line information
// shows its source file and line (bpftrace's show_debug_info, on by
// default); show_debug_info = 0 leaves them out.
func TestUstackDebugInfo(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "add")
	src, err := filepath.Abs("testdata/uprobe/add.c")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-g", "-O1", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	for config, want := range map[string]string{
		"":                                 "add+0@" + src + ":10", // the first instruction is return a + b
		"config = { show_debug_info = 0 }": "add+0",
	} {
		s := startNoWait(t, "-e", config+` uprobe:`+bin+`:add { @[ustack(1)] = count(); }`)
		s.waitLinks(1, 20*time.Second)
		traced := exec.Command(bin, "2", "5")
		if err := traced.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // the loop has run; the program sleeps
		got := s.stop(syscall.SIGINT)
		traced.Process.Kill()
		traced.Wait()
		wantOutput(t, got, "\n\n@[\n        "+want+"\n]: 2\n", 0)
	}
}

// TestUstackInlined: with debug information, a frame in code inlined into
// its function shows the inlined function first ("[inlined] name@file:line"),
// then the function at the call site; perf mode says "name (inlined)".
func TestUstackInlined(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "inline")
	src, err := filepath.Abs("testdata/uprobe/inline.c")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(cc, "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	for config, want := range map[string]string{
		"":                               `^\n\n@\[\n        leaf\+0@` + regexp.QuoteMeta(src) + `:\d+\n        \[inlined\] inner@` + regexp.QuoteMeta(src) + `:13\n        outer\+\d+@` + regexp.QuoteMeta(src) + `:18\n\]: 1\n$`,
		"config = { stack_mode = perf }": `^\n\n@\[\n\t[0-9a-f]+ leaf\+0 \(` + regexp.QuoteMeta(bin) + `\)\n\t([0-9a-f]+) inner \(inlined\)\n\t([0-9a-f]+) outer\+\d+ \(` + regexp.QuoteMeta(bin) + `\)\n\]: 1\n$`,
	} {
		s := startNoWait(t, "-e", config+` uprobe:`+bin+`:leaf { @[ustack(2)] = count(); }`)
		s.waitLinks(1, 20*time.Second)
		traced := exec.Command(bin)
		if err := traced.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond) // leaf has run; the program sleeps
		got := s.stop(syscall.SIGINT)
		traced.Process.Kill()
		traced.Wait()
		if got.code != 0 || !regexp.MustCompile(want).MatchString(got.stdout) {
			t.Errorf("%q: exit %d, stdout %q, want it to match %q\nstderr:\n%s", config, got.code, got.stdout, want, got.stderr)
		}
	}
}

// TestUstackDebugFile: a frame in a stripped file is named from the symbol
// table of its separate debug file (found by .gnu_debuglink, as by build
// id), with its source line from the debug file's DWARF, as bcc and
// blazesym do for bpftrace.
func TestUstackDebugFile(t *testing.T) {
	bin, src := buildStripped(t)
	// hidden is not in the stripped file: probe its address (from the debug
	// file), which needs --unsafe without a symbol there.
	addr, _ := elfFunc(t, bin+".debug", "hidden")
	s := startNoWait(t, "--unsafe", "-e", `uprobe:`+bin+`:0x`+strconv.FormatUint(addr, 16)+` { @[ustack(1)] = count(); }`)
	s.waitLinks(1, 20*time.Second)
	traced := exec.Command(bin, "wait")
	if err := traced.Start(); err != nil {
		t.Fatal(err)
	}
	defer traced.Wait()
	time.Sleep(300 * time.Millisecond) // traced has run; the program sleeps
	got := s.stop(syscall.SIGINT)
	want := `^\n\n@\[\n        hidden\+0@` + regexp.QuoteMeta(src) + `:12\n\]: 1\n$`
	if got.code != 0 || !regexp.MustCompile(want).MatchString(got.stdout) {
		t.Errorf("exit %d, stdout %q, want it to match %q\nstderr:\n%s", got.code, got.stdout, want, got.stderr)
	}
}

// buildStripped builds testdata/uprobe/stripped.c, moves its symbols and
// DWARF to a separate debug file named by .gnu_debuglink, and returns the
// binary and the source's absolute path; it skips without cc or binutils.
func buildStripped(t *testing.T) (bin, src string) {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	for _, tool := range []string{"objcopy", "strip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s (binutils) to split the debug information", tool)
		}
	}
	dir := t.TempDir()
	bin = filepath.Join(dir, "stripped")
	src, err = filepath.Abs("testdata/uprobe/stripped.c")
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{
		{cc, "-g", "-O1", "-fno-omit-frame-pointer", "-rdynamic", "-o", bin, src},
		{"objcopy", "--only-keep-debug", bin, bin + ".debug"},
		{"strip", bin},
		{"objcopy", "--add-gnu-debuglink=" + bin + ".debug", bin},
	} {
		c := exec.Command(cmd[0], cmd[1:]...)
		c.Dir = dir
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%q: %v\n%s", cmd, err, out)
		}
	}
	return bin, src
}

// TestUprobeDebugFileSymbol: a function of a stripped binary that only its
// separate debug file (.gnu_debuglink) names attaches by name, as bpftrace
// does (it said "No matches"), and is listed.
func TestUprobeDebugFileSymbol(t *testing.T) {
	bin, _ := buildStripped(t)
	got := run(t, "-l", "uprobe:"+bin+":hidden")
	wantOutput(t, got, "uprobe:"+bin+":hidden\n", 0)
	got = run(t, "-c", bin, "-e", `uprobe:`+bin+`:hidden { printf("hidden\n"); exit(); }`)
	wantOutput(t, got, "hidden\n\n\n", 0)
}
