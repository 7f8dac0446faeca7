package e2e

import (
	"debug/elf"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// elfBuildID returns the GNU build id of bin in hex.
func elfBuildID(t *testing.T, bin string) string {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := f.Section(".note.gnu.build-id")
	if s == nil {
		t.Skipf("%s has no build id (the linker was not asked for one)", bin)
	}
	b, err := s.Data()
	if err != nil || len(b) < 16 {
		t.Fatalf("build id note of %s: %v", bin, err)
	}
	namesz, descsz := f.ByteOrder.Uint32(b), f.ByteOrder.Uint32(b[4:])
	off := 12 + (int(namesz)+3)&^3
	return hex.EncodeToString(b[off : off+int(descsz)])
}

// elfFileOffset returns the file offset of the code at vaddr in bin.
func elfFileOffset(t *testing.T, bin string, vaddr uint64) uint64 {
	t.Helper()
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && vaddr >= p.Vaddr && vaddr < p.Vaddr+p.Filesz {
			return vaddr - p.Vaddr + p.Off
		}
	}
	t.Fatalf("%#x is in no segment of %s", vaddr, bin)
	return 0
}

// TestUstackBuildID: ustack(build_id) (and ustack with stack_mode =
// build_id) records each user frame as the build id of its file and the
// offset in the file, printed as bpftrace prints them: "<build id in
// hex> 0x<offset>", not indented. kstack cannot: kstack(build_id) is an
// error, and a bare kstack under stack_mode = build_id falls back to raw
// with a warning.
func TestUstackBuildID(t *testing.T) {
	bin := buildAdd(t)
	addr, _ := elfFunc(t, bin, "add")
	frame := fmt.Sprintf("%s 0x%x", elfBuildID(t, bin), elfFileOffset(t, bin, addr))
	for _, script := range []string{
		`uprobe:` + bin + `:add { @[ustack(build_id, 1)] = count(); }`,
		`config = { stack_mode = build_id } uprobe:` + bin + `:add { @[ustack(1)] = count(); }`,
	} {
		s := startNoWait(t, "-e", script)
		s.waitLinks(1, 20*time.Second)
		if out, err := exec.Command(bin, "2").CombinedOutput(); err != nil {
			t.Fatalf("traced program: %v %q", err, out)
		}
		wantOutput(t, s.stop(syscall.SIGINT), "\n\n@[\n"+frame+"\n]: 2\n", 0)
	}

	got := run(t, "-e", `BEGIN { @ = kstack(build_id); }`)
	if want := "stdin:1:13-29: ERROR: 'build_id' stack mode can only be used for ustack\n"; got.code != 1 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("kstack(build_id): exit %d, stderr %q, want prefix %q", got.code, got.stderr, want)
	}
	got = run(t, "-e", `config = { stack_mode = build_id } BEGIN { @[kstack] = 1; exit(); }`)
	if want := "stdin:1:46-52: WARNING: 'build_id' stack mode can only be used for ustack. Falling back to 'raw' mode.\n"; got.code != 0 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("kstack with stack_mode = build_id: exit %d, stderr %q, want prefix %q", got.code, got.stderr, want)
	}
}

// TestStackLen: len() of a stack is its number of frames, up to the
// stack's limit, for ustack (build_id too) and kstack, whether the stack
// is in a variable, a map or a call.
func TestStackLen(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	// Frame pointers, for the kernel to walk past add.
	bin := filepath.Join(t.TempDir(), "add")
	if out, err := exec.Command(cc, "-O1", "-fno-omit-frame-pointer", "-o", bin, "testdata/uprobe/add.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	s := startNoWait(t, "-e", `uprobe:`+bin+`:add { $x = ustack(1); @a = len($x); @b = len(ustack(build_id, 2)); @s[1] = ustack(2); @c = len(@s[1]); }
tracepoint:syscalls:sys_enter_getppid { @k = len(kstack(2)); }`)
	s.waitLinks(2, 20*time.Second)
	if out, err := exec.Command(bin, "1").CombinedOutput(); err != nil {
		t.Fatalf("traced program: %v %q", err, out)
	}
	getppidN(1)
	got := s.stop(syscall.SIGINT)
	if want := "\n\n@a: 1\n@b: 2\n@c: 2\n@k: 2\n"; got.code != 0 || !strings.HasPrefix(got.stdout, want) {
		t.Errorf("exit %d, stdout %q, want it to start with %q; stderr:\n%s", got.code, got.stdout, want, got.stderr)
	}
}

// TestUaddrPIE: uaddr() is the run-time address of a symbol: its address
// in the file plus where the process loaded the file, for a PIE
// executable and a shared library as for a position-dependent executable
// (whose addresses are the link-time ones), in uprobes and uretprobes;
// the pointer reads an integer of the symbol's size.
func TestUaddrPIE(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "libglobals.so")
	build := func(out string, args ...string) {
		t.Helper()
		args = append([]string{"-o", out, "testdata/uprobe/globals.c"}, args...)
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("cc %q: %v\n%s", args, err, out)
		}
	}
	build(lib, "-O1", "-DLIB", "-shared", "-fPIC")
	bins := map[string][]string{
		"exec": {"-O1", "-no-pie"},
		"pie":  {"-O1", "-fPIE", "-pie"},
		"lib":  {"-O1", "-fPIE", "-pie", "-DWITH_LIB", lib, "-Wl,-rpath," + dir},
	}
	for name, args := range bins {
		bin := filepath.Join(dir, name)
		build(bin, args...)
		for _, probe := range []string{"uprobe", "uretprobe"} {
			got := run(t, "-e", probe+`:`+bin+`:probe_me { printf("0x%x 0x%x %d %d\n", *uaddr("GLOBAL_A"), *uaddr("GLOBAL_C"), *uaddr("GLOBAL_D"), sizeof(*uaddr("GLOBAL_D"))); exit(); }`, "-c", bin)
			if want := "0x55555555 0x33333333 8 1\n"; got.code != 0 || !strings.Contains(got.stdout, want) {
				t.Errorf("%s %s: exit %d, stdout %q, want a line %q; stderr:\n%s", name, probe, got.code, got.stdout, want, got.stderr)
			}
		}
	}
	bin := filepath.Join(dir, "lib")
	got := run(t, "-e", `uprobe:`+lib+`:lib_fn { printf("0x%x\n", *uaddr("LIB_G")); exit(); }`, "-c", bin)
	if want := "0x2a2a2a2a\n"; got.code != 0 || !strings.Contains(got.stdout, want) {
		t.Errorf("library: exit %d, stdout %q, want a line %q; stderr:\n%s", got.code, got.stdout, want, got.stderr)
	}
}

// TestKstackPerf: kstack(perf) prints each frame as a tab, the address in
// hex and symbol+offset, with no " ([kernel.kallsyms])" after it, as
// bpftrace does.
func TestKstackPerf(t *testing.T) {
	s := startNoWait(t, "-e", `tracepoint:syscalls:sys_enter_getppid { print(kstack(perf, 2)); exit(); }`)
	s.waitLinks(1, 20*time.Second)
	getppidN(1)
	got := s.wait()
	frame := regexp.MustCompile(`^\t[0-9a-f]+ (\w[\w.]*\+\d+|0x[0-9a-f]+)$`)
	lines := strings.Split(strings.Trim(got.stdout, "\n"), "\n")
	if got.code != 0 || len(lines) != 2 {
		t.Fatalf("exit %d, stdout %q, want two frames; stderr:\n%s", got.code, got.stdout, got.stderr)
	}
	for _, l := range lines {
		if !frame.MatchString(l) {
			t.Errorf("frame %q is not \"\\t<hex> sym+off\"", l)
		}
	}
}
