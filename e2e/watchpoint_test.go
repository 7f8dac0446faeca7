package e2e

import (
	endian "encoding/binary"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// breakpointsFire reports whether this machine's hardware breakpoints
// count a write (some hypervisors accept the perf event but never fire
// it).
func breakpointsFire(t *testing.T) bool {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	v := new(uint64)
	attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_BREAKPOINT, Sample: 1, Ext1: uint64(uintptr(unsafe.Pointer(v))), Ext2: 8, Bp_type: 2}
	attr.Size = uint32(unsafe.Sizeof(attr))
	fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		t.Skipf("no hardware breakpoints: %v", err)
	}
	defer unix.Close(fd)
	for i := range 100 {
		*(*uint64)(unsafe.Pointer(v)) = uint64(i)
	}
	var b [8]byte
	if _, err := unix.Read(fd, b[:]); err != nil {
		t.Fatal(err)
	}
	return endian.LittleEndian.Uint64(b[:]) > 0
}

// TestWatchpoint: a write watchpoint on a page of a -p process fires.
func TestWatchpoint(t *testing.T) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		t.Skip("no C compiler to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "poke")
	if out, err := exec.Command(cc, "-O1", "-o", bin, "testdata/watchpoint/poke.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	traced := exec.Command(bin)
	if err := traced.Start(); err != nil {
		t.Fatal(err)
	}
	defer traced.Wait()
	defer traced.Process.Kill()
	time.Sleep(200 * time.Millisecond)
	prog := `watchpoint:0x10000000:1:w { printf("hit\n"); exit(); }`
	if !breakpointsFire(t) {
		// The probe still attaches: check that much.
		got := run(t, "--dry-run", "-p", strconv.Itoa(traced.Process.Pid), "-e", prog)
		if got.code != 0 {
			t.Errorf("--dry-run: exit %d, stderr %q", got.code, got.stderr)
		}
		t.Skip("this machine's hardware breakpoints never fire (e2e/vm tests watchpoints in qemu guests)")
	}
	got := run(t, "-p", strconv.Itoa(traced.Process.Pid), "-e", prog)
	wantOutput(t, got, "hit\n\n\n", 0)
}
