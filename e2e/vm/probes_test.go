package vm

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestFentryArgsValue: args of an fentry probe as a whole value: printed,
// a map value and a map key, bpftrace's record of the arguments.
func TestFentryArgsValue(t *testing.T) {
	gotraceBin(t)
	tid := lockThread(t)
	file := knownFile(t, "fentry-args-value", 1)
	tr := startTrace(t, linksReady(1), "-e", `fentry:vfs_open /tid == $1/ { print(args); @v = args; @k[args] = count(); }`, strconv.Itoa(tid))
	fd, err := unix.Open(file, unix.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	unix.Close(fd)
	rec := `\{ \.path = 0x[0-9a-f]+, \.file = 0x[0-9a-f]+ \}`
	tr.waitStdout("{ .path = ")
	out, errs := tr.stop()
	for _, re := range []string{`(?m)^` + rec + `$`, `(?m)^@v: ` + rec + `$`, `(?m)^@k\[` + rec + `\]: 1$`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("stdout lacks %s:\n%s\nstderr:\n%s", re, out, errs)
		}
	}
}

// TestModuleWildcard: a module wildcard that matches vmlinux names the
// kernel's own function.
func TestModuleWildcard(t *testing.T) {
	gotraceBin(t)
	file := knownFile(t, "module-wildcard", 10)
	for _, probe := range []string{"fentry:vmlinu*:vfs_read", "kprobe:vmlinu?:vfs_read"} {
		t.Run(probe, func(t *testing.T) {
			tid := lockThread(t)
			tr := startTrace(t, linksReady(1), "-e", probe+` /tid == $1/ { @ = count(); }`, strconv.Itoa(tid))
			preadN(t, file, 3, 100)
			out, errs := tr.stop()
			wantStdout(t, out, "\n\n@: 3\n", errs)
		})
	}
}

// TestKprobeAddress: kprobe:ADDRESS with --unsafe probes the address (here
// vfs_read's, from kallsyms); an address the kernel refuses is bpftrace's
// "Unable to attach probe".
func TestKprobeAddress(t *testing.T) {
	bin := gotraceBin(t)
	ks := readKernelSyms(t)
	addr := ks.text["vfs_read"]
	if addr == 0 {
		t.Fatal("kallsyms has no single vfs_read")
	}
	tid := lockThread(t)
	file := knownFile(t, "kprobe-address", 10)
	tr := startTrace(t, linksReady(1), "--unsafe", "-e", fmt.Sprintf(`kprobe:0x%x /tid == $1/ { @ = count(); }`, addr), strconv.Itoa(tid))
	preadN(t, file, 4, 100)
	out, errs := tr.stop()
	wantStdout(t, out, "\n\n@: 4\n", errs)

	b, _ := exec.Command(bin, "--unsafe", "-e", `kprobe:0x12345678 { }`).CombinedOutput()
	if !strings.Contains(string(b), "ERROR: Unable to attach probe: kprobe:305419896") {
		t.Errorf("kprobe:0x12345678: %s", b)
	}
}
