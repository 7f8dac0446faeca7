package vm

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestTracingMultiShape: the functions of an fentry/fexit probe whose body
// reads args fields or retval are grouped by the shape of what it reads
// (each field's slot and type, retval's type); each group is one program
// through one tracing_multi link where the kernel has them, else one
// trampoline per function. vfs_read and vfs_write have count in slot 2,
// rw_verify_area in slot 3 (each prints its own), the first two return
// ssize_t, __sys_bpf int: 5 links through tracing_multi, 4 where
// fsession makes a session of the vfs_read/vfs_write pair (7.3), 8
// without tracing_multi; the values are the same. The Go runtime may write 8 bytes to its eventfd
// on the thread: 8-byte writes are left out.
func TestTracingMultiShape(t *testing.T) {
	gotraceBin(t)
	tmulti := haveTracingMulti(t)
	tid := lockThread(t)
	file := knownFile(t, "shape", 100)
	script := `fentry:vfs_read,fentry:vfs_write,fentry:rw_verify_area /tid == $1 && args.count != 8/ { @c[func] = sum(args.count); } ` +
		`fentry:vfs_read,fentry:vfs_write /tid == $1 && args.count != 8/ { @pos[func] = sum(*args.pos); } ` +
		`fexit:vfs_read,fexit:vfs_write,fexit:__sys_bpf /tid == $1 && retval != 8/ { @r[func] = sum(retval); }`
	links := 8
	switch {
	case haveFsession(t):
		links = 4 // the first fentry group and the first fexit group are one session
	case tmulti:
		links = 5
	}
	tr := startTrace(t, linksReady(links), "-e", script, strconv.Itoa(tid))
	if got := tr.links(); got != links {
		t.Errorf("gotrace holds %d links, want %d", got, links)
	}
	fd, err := unix.Open(file, unix.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	buf := make([]byte, 4096)
	for range 3 {
		if n, err := unix.Pread(fd, buf, 7); n != 93 || err != nil {
			t.Fatalf("pread: %d, %v", n, err)
		}
	}
	for range 2 {
		if _, err := unix.Pwrite(fd, buf[:10], 5); err != nil {
			t.Fatal(err)
		}
	}
	ret := badBPF(1111, 16)
	if badBPF(1111, 16) != ret || ret >= 0 {
		t.Fatalf("bpf(1111) returned %d, then something else", ret)
	}
	out, errs := tr.stop()
	want := []string{
		"@c[vfs_write]: 20", "@c[vfs_read]: 12288", "@c[rw_verify_area]: 12308",
		"@pos[vfs_write]: 10", "@pos[vfs_read]: 21",
		fmt.Sprintf("@r[__sys_bpf]: %d", 2*ret), "@r[vfs_write]: 20", "@r[vfs_read]: 279",
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var got []string
	for _, l := range lines {
		if l != "" {
			got = append(got, l)
		}
	}
	if len(got) != len(want) {
		t.Errorf("stdout has %d lines, want %d:\n%s\nstderr:\n%s", len(got), len(want), out, errs)
	}
	for _, w := range want {
		if !strings.Contains(out, w+"\n") {
			t.Errorf("stdout lacks %q:\n%s\nstderr:\n%s", w, out, errs)
		}
	}
}

// TestFexitRetvalWildcard: fexit:vfs_read* reading retval is grouped by
// return type (vfs_read and vfs_readv return ssize_t, vfs_readlink int),
// each group one program that reads retval with bpf_get_func_ret through
// one tracing_multi link where the kernel has them: the sum is each
// read's 100 bytes.
func TestFexitRetvalWildcard(t *testing.T) {
	gotraceBin(t)
	tmulti := haveTracingMulti(t)
	tid := lockThread(t)
	file := knownFile(t, "fexit-retval", 100)
	tr := startTrace(t, stderrReady(`Attached`), "-e", `fexit:vfs_read* /tid == $1/ { @r[func] = sum(retval); }`, strconv.Itoa(tid))
	preadN(t, file, 3, 4096)
	out, errs := tr.stop()
	if !strings.Contains(out, "@r[vfs_read]: 300\n") {
		t.Errorf("no @r[vfs_read]: 300 in stdout:\n%s\nstderr:\n%s", out, errs)
	}
	if got := strings.Contains(errs, "functions through one tracing_multi link"); got != tmulti {
		t.Errorf("tracing_multi available = %v, stderr:\n%s", tmulti, errs)
	}
}
