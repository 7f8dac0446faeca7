package vm

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/features"

	gtruntime "github.com/gotrace/gotrace/runtime"
)

// haveKprobeSession reports whether the guest kernel has kprobe session
// links (Linux 6.10: 6.12 and 7.3 have them, 6.1 not).
func haveKprobeSession(t *testing.T) bool {
	t.Helper()
	err := features.HaveBPFLinkKprobeSession()
	if err != nil && !errors.Is(err, ebpf.ErrNotSupported) {
		t.Fatalf("kprobe_session feature probe: %v", err)
	}
	have := err == nil
	switch k := os.Getenv("GOTRACE_VM_KERNEL"); k {
	case "6.12", "7.3":
		if !have {
			t.Fatalf("kernel %s: kprobe_session should be available: %v", k, err)
		}
	case "6.1":
		if have {
			t.Fatalf("kernel 6.1 should not have kprobe_session")
		}
	}
	return have
}

// TestKprobeSession: a kprobe and a kretprobe on vfs_read are one session
// program on one kprobe_multi link where the kernel has kprobe sessions
// ("Attached 1 probe"), else two probes; either way each block runs where
// it should, the entry with the arguments and the return with retval.
// --no-feature kprobe_session keeps them apart.
func TestKprobeSession(t *testing.T) {
	gotraceBin(t)
	session := haveKprobeSession(t)
	script := `kprobe:vfs_read /tid == $1/ { @e = count(); @size = arg2; } ` +
		`kretprobe:vfs_read /tid == $1/ { @r = count(); @ret = retval; }`
	want := "\n\n@e: 5\n@r: 5\n@ret: 100\n@size: 4096\n"
	sessionPair(t, session, "kprobe_session", script, want)
}

// sessionPair runs script, an entry and a return probe on vfs_read over 5
// reads of 100 bytes, with and without --no-feature feature: one link
// and "Attached 1 probe" where the kernel has the session (session),
// else two of each, and stdout want either way.
func sessionPair(t *testing.T, session bool, feature, script, want string) {
	t.Helper()
	for _, noFeature := range []bool{false, true} {
		t.Run("no-feature="+strconv.FormatBool(noFeature), func(t *testing.T) {
			tid := lockThread(t)
			file := knownFile(t, feature, 100)
			args := []string{"-e", script, strconv.Itoa(tid)}
			if noFeature {
				args = append([]string{"--no-feature", feature}, args...)
			}
			merged := session && !noFeature
			links := 2
			if merged {
				links = 1
			}
			tr := startTrace(t, linksReady(links), args...)
			if got := tr.links(); got != links {
				t.Errorf("gotrace holds %d links, want %d", got, links)
			}
			preadN(t, file, 5, 4096)
			out, errs := tr.stop()
			wantAttached := "Attached 2 probes"
			if merged {
				wantAttached = "Attached 1 probe\n"
			}
			if !strings.Contains(errs, wantAttached) {
				t.Errorf("stderr does not say %q:\n%s", wantAttached, errs)
			}
			wantStdout(t, out, want, errs)
		})
	}
}

// TestKprobeSessionWildcard: kprobe:vfs_read* and kretprobe:vfs_read* are
// one session over every match where the kernel has kprobe sessions (one
// link), and func names the function at entry and at return alike: every
// function counts as many returns as entries (other functions than
// vfs_read, such as vfs_readlink, may run on the thread too).
func TestKprobeSessionWildcard(t *testing.T) {
	gotraceBin(t)
	session := haveKprobeSession(t)
	tid := lockThread(t)
	file := knownFile(t, "kprobe-session-wildcard", 100)
	tr := startTrace(t, linksReady(1), "-e", `kprobe:vfs_read* /tid == $1/ { @e[func] = count(); } `+
		`kretprobe:vfs_read* /tid == $1/ { @r[func] = count(); }`, strconv.Itoa(tid))
	if got := tr.links(); session && got != 1 {
		t.Errorf("gotrace holds %d links, want 1", got)
	}
	preadN(t, file, 3, 4096)
	out, errs := tr.stop()
	if !strings.Contains(out, "@e[vfs_read]: 3\n") {
		t.Errorf("no @e[vfs_read]: 3 in stdout:\n%s\nstderr:\n%s", out, errs)
	}
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "@e["); ok && !strings.Contains(out, "@r["+rest+"\n") {
			t.Errorf("%s has no return line @r[%s in stdout:\n%s", line, rest, out)
		}
	}
}

// haveFsession reports whether the guest kernel has fentry/fexit sessions
// over tracing_multi links (7.3 has them, 6.12 and 6.1 not).
func haveFsession(t *testing.T) bool {
	t.Helper()
	spec, err := btf.LoadKernelSpec()
	if err != nil {
		t.Fatalf("kernel BTF: %v", err)
	}
	have := gtruntime.HaveFsession(spec)
	switch k := os.Getenv("GOTRACE_VM_KERNEL"); k {
	case "7.3":
		if !have {
			t.Fatalf("kernel %s: fsession should be available", k)
		}
	case "6.12", "6.1":
		if have {
			t.Fatalf("kernel %s should not have fsession", k)
		}
	}
	return have
}

// TestFsession: an fentry and an fexit on vfs_read are one session program
// on one tracing_multi link where the kernel has fsession ("Attached 1
// probe", as bpftrace prints a kprobe session pair), else two probes;
// either way each block runs where it should, the entry with the
// arguments and the return with the arguments and retval. --no-feature
// fsession keeps them apart. Over a wildcard, the pair is one link too
// (6.12: a trampoline per function and probe), and func names the
// function at entry and at return alike.
func TestFsession(t *testing.T) {
	gotraceBin(t)
	session := haveFsession(t)
	script := `fentry:vfs_read /tid == $1/ { @e = count(); @size = args.count; } ` +
		`fexit:vfs_read /tid == $1/ { @r = count(); @ret = retval; @rsize = args.count; }`
	want := "\n\n@e: 5\n@r: 5\n@ret: 100\n@rsize: 4096\n@size: 4096\n"
	sessionPair(t, session, "fsession", script, want)
	t.Run("wildcard", func(t *testing.T) {
		tid := lockThread(t)
		file := knownFile(t, "fsession-wildcard", 100)
		tr := startTrace(t, linksReady(1), "-e", `fentry:vfs_read* /tid == $1/ { @e[func] = count(); } `+
			`fexit:vfs_read* /tid == $1/ { @r[func] = count(); }`, strconv.Itoa(tid))
		if got := tr.links(); session && got != 1 {
			t.Errorf("gotrace holds %d links, want 1", got)
		}
		preadN(t, file, 3, 4096)
		out, errs := tr.stop()
		// Attached counts a session's functions once, as a kprobe
		// session's (TestKprobeSessionAttachedCount).
		n := strings.Count(runGotrace(t, "-l", "fentry:vfs_read*"), "\n")
		want := 2 * n
		if session {
			want = n
		}
		if line := fmt.Sprintf("Attached %d probes\n", want); !strings.Contains(errs, line) {
			t.Errorf("stderr does not say %q (session %v, %d functions):\n%s", line, session, n, errs)
		}
		for _, w := range []string{"@e[vfs_read]: 3\n", "@r[vfs_read]: 3\n"} {
			if !strings.Contains(out, w) {
				t.Errorf("no %q in stdout:\n%s\nstderr:\n%s", w, out, errs)
			}
		}
	})
}
