package e2e

import (
	"archive/zip"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/arch/x86/x86asm"

	"github.com/gotrace/gotrace/internal/testbin"
)

// buildAdd builds testdata/uprobe/add.c, or skips without a C compiler.
func buildAdd(t *testing.T) string {
	t.Helper()
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "add")
	if out, err := exec.Command(cc, "-O1", "-no-pie", "-o", bin, "testdata/uprobe/add.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	return bin
}

// elfFunc returns the address and size of a function symbol of bin.
func elfFunc(t *testing.T, bin, name string) (uint64, uint64) {
	t.Helper()
	s := testbin.Symbol(t, bin, name)
	return s.Value, s.Size
}

// TestUprobeBounds: as bpftrace, a function without a size needs
// --unsafe, an offset must stay inside the function, an address probe
// must land in a function; an address probe attaches at the address.
func TestUprobeBounds(t *testing.T) {
	bin := buildAdd(t)
	if _, size := elfFunc(t, bin, "_init"); size != 0 {
		t.Skipf("_init has size %d in this toolchain's output", size)
	}
	_, addSize := elfFunc(t, bin, "add")
	for _, tc := range []struct{ probe, want string }{
		{bin + ":_init", "ERROR: Could not determine boundary for _init (symbol has size 0).\nUse --unsafe to force attachment. WARNING: This option could lead to data corruption in the target process.\n"},
		{bin + ":add+100000", fmt.Sprintf("ERROR: Offset outside the function bounds ('add' size is %d)\n", addSize)},
		{bin + ":10", "ERROR: Could not resolve address: " + bin + ":0xa\n"},
	} {
		got := run(t, "-e", "uprobe:"+tc.probe+" { exit(); }")
		if got.code != 1 || !strings.HasSuffix(got.stderr, tc.want) {
			t.Errorf("uprobe:%s: exit %d, stderr %q, want it to end with %q", tc.probe, got.code, got.stderr, tc.want)
		}
	}

	// --unsafe attaches to _init; an address probe attaches at add.
	addr, _ := elfFunc(t, bin, "add")
	s := startNoWait(t, "--unsafe", "-e", `uprobe:`+bin+`:_init { @init = count(); } uprobe:`+bin+`:0x`+strconv.FormatUint(addr, 16)+` { @add = count(); }`)
	s.waitLinks(2, 20*time.Second)
	if out, err := exec.Command(bin, "3").CombinedOutput(); err != nil {
		t.Fatalf("traced program: %v %q", err, out)
	}
	wantOutput(t, s.stop(syscall.SIGINT), "\n\n@add: 3\n@init: 1\n", 0)
}

// TestUprobeOrder: probes on one function run in script order (the kernel
// runs a uprobe's handlers last attached first: they attach in reverse).
func TestUprobeOrder(t *testing.T) {
	bin := buildAdd(t)
	s := startNoWait(t, "-e", `uprobe:`+bin+`:add { printf("first "); } uprobe:`+bin+`:add { printf("second\n"); }`)
	s.waitLinks(2, 20*time.Second)
	if out, err := exec.Command(bin, "2").CombinedOutput(); err != nil {
		t.Fatalf("traced program: %v %q", err, out)
	}
	wantOutput(t, s.stop(syscall.SIGINT), "first second\nfirst second\n\n\n", 0)
}

// TestUprobePid: with -p, uprobe:*:FUNC searches the binaries the process
// maps, and -l lists them (uprobe:* and a bare -l) as bpftrace does: under
// /proc/PID/root, also in the tracer's own mount namespace.
func TestUprobePid(t *testing.T) {
	bin := buildAdd(t)
	traced := exec.Command(bin, "1", "30")
	if err := traced.Start(); err != nil {
		t.Fatal(err)
	}
	defer traced.Wait()
	defer traced.Process.Kill()
	time.Sleep(200 * time.Millisecond)
	pid := strconv.Itoa(traced.Process.Pid)
	for _, args := range [][]string{{"-l", "uprobe:*", "-p", pid}, {"-l", "-p", pid}, {"-l", "-e", "uprobe:*:ad* { }", "-p", pid}} {
		got := run(t, args...)
		if got.code != 0 || !strings.Contains(got.stdout, "uprobe:/proc/"+pid+"/root"+bin+":add\n") {
			t.Errorf("%q: exit %d, stdout %.300q, stderr %q", args, got.code, got.stdout, got.stderr)
		}
	}
	got := run(t, "-l", "uprobe:"+filepath.Dir(bin)+"/a*:ad*")
	wantOutput(t, got, "uprobe:"+bin+":add\n", 0)
	got = run(t, "-e", `uprobe:*:add { exit(); }`, "-p", pid, "--dry-run")
	if got.code != 0 {
		t.Errorf("uprobe:*:add -p: exit %d, stderr %q", got.code, got.stderr)
	}
}

// TestUprobeFlatAndArchive: an address probe on a file that is not ELF (a
// flat binary, whose addresses are file offsets) needs --unsafe and fires
// at offset 0; an ELF file stored in a zip archive (ARCHIVE!/ENTRY) is
// probed at its offset in the archive.
func TestUprobeFlatAndArchive(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	dir := t.TempDir()
	runner := filepath.Join(dir, "mmapexec")
	if out, err := exec.Command(cc, "-O1", "-o", runner, "testdata/uprobe/mmapexec.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	flat := filepath.Join(dir, "ret.bin")
	if err := os.WriteFile(flat, []byte{0x90, 0xc3}, 0o644); err != nil { // nop; ret
		t.Fatal(err)
	}
	s := startNoWait(t, "--unsafe", "-e", `uprobe:`+flat+`:0x0 { printf("hit\n"); exit(); }`)
	s.waitLinks(1, 20*time.Second)
	if out, err := exec.Command(runner, flat).CombinedOutput(); err != nil {
		t.Fatalf("mmapexec: %v %q", err, out)
	}
	wantOutput(t, s.wait(), "hit\n\n\n", 0)

	bin := buildAdd(t)
	zipPath := filepath.Join(dir, "a.zip")
	zf, err := os.Create(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(zf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "add", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(zw.Close(), zf.Close()); err != nil {
		t.Fatal(err)
	}
	s = startNoWait(t, "-e", `uprobe:"`+zipPath+`!/add":add { @ = count(); }`)
	s.waitLinks(1, 20*time.Second)
	wantOutput(t, s.stop(syscall.SIGINT), "\n\n", 0)
}

// TestUprobeMidInstruction: as bpftrace, a uprobe at an offset that falls
// inside an instruction is refused without --unsafe (its breakpoint would
// corrupt the instruction and crash the traced program); an offset on an
// instruction boundary attaches.
func TestUprobeMidInstruction(t *testing.T) {
	bin := buildAdd(t)
	addr, _ := elfFunc(t, bin, "add")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	code := make([]byte, 16)
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr < p.Vaddr+p.Filesz {
			_, err = p.ReadAt(code, int64(addr-p.Vaddr))
		}
	}
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	inst, err := x86asm.Decode(code, 64)
	if err != nil || inst.Len < 2 {
		t.Skipf("add's first instruction (%v, %v) leaves no offset inside it", inst, err)
	}
	got := run(t, "-e", fmt.Sprintf(`uprobe:%s:add+1 { exit(); }`, bin))
	want := fmt.Sprintf("ERROR: Could not add uprobe into middle of instruction: %s:add+1\nUse --unsafe to force attachment.", bin)
	if got.code != 1 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("add+1: exit %d, stderr %q, want prefix %q", got.code, got.stderr, want)
	}
	// the same place spelled as an address gets the same check
	got = run(t, "-e", fmt.Sprintf(`uprobe:%s:0x%x { exit(); }`, bin, addr+1))
	if got.code != 1 || !strings.HasPrefix(got.stderr, want) {
		t.Errorf("0x%x (add+1): exit %d, stderr %q, want prefix %q", addr+1, got.code, got.stderr, want)
	}
	got = run(t, "-c", bin, "-e", fmt.Sprintf(`uprobe:%s:add+%d { printf("hit\n"); exit(); }`, bin, inst.Len))
	// the traced program prints its sum to the same stdout
	if got.code != 0 || !strings.Contains(got.stdout, "hit\n") {
		t.Errorf("add+%d: exit %d, stdout %q, stderr %q", inst.Len, got.code, got.stdout, got.stderr)
	}
}

// TestUretprobeOffset: as bpftrace, a uretprobe goes only on a function's
// entry, --unsafe or not: at an offset (func+N, an address inside the
// function, a source line) its return trampoline would overwrite whatever
// the stack holds there instead of the return address.
func TestUretprobeOffset(t *testing.T) {
	bin := buildAdd(t)
	addr, _ := elfFunc(t, bin, "add")
	for _, tc := range []struct{ probe, want string }{
		{bin + ":add+1", "ERROR: Offset not allowed\n"},
		{bin + "@add.c:3", "ERROR: Source code location not allowed\n"},
		{fmt.Sprintf("%s:0x%x", bin, addr+1), "ERROR: uretprobes cannot be attached at function offset. (address resolved to: add+1)\n"},
	} {
		for _, unsafe := range []bool{false, true} {
			args := []string{"-e", "uretprobe:" + tc.probe + " { exit(); }"}
			if unsafe {
				args = append([]string{"--unsafe"}, args...)
			}
			got := run(t, args...)
			if got.code != 1 || !strings.Contains(got.stderr, tc.want) {
				t.Errorf("uretprobe:%s (unsafe %v): exit %d, stderr %q, want %q", tc.probe, unsafe, got.code, got.stderr, tc.want)
			}
		}
	}
	// the entry, by name or by address, attaches
	got := run(t, "-c", bin+" 2", "-e", fmt.Sprintf(`uretprobe:%s:0x%x { printf("ret %%d\n", retval); exit(); }`, bin, addr))
	if got.code != 0 || !strings.Contains(got.stdout, "ret 1\n") {
		t.Errorf("uretprobe at add's address: exit %d, stdout %q, stderr %q", got.code, got.stdout, got.stderr)
	}
}
