package vm

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/internal/heldprogs"
)

// TestKprobeSessionAttachedCount: "Attached N probes" counts the
// functions of a wildcard kprobe and kretprobe pair as bpftrace 0.26
// does: a session is one probe whose functions each count once (N, the
// functions -l lists), the kprobe and kretprobe apart each count theirs
// (2N), with kprobe_multi or without.
func TestKprobeSessionAttachedCount(t *testing.T) {
	gotraceBin(t)
	session := haveKprobeSession(t)
	const pattern = "ksys_re*"
	n := strings.Count(runGotrace(t, "-l", "kprobe:"+pattern), "\n")
	if n < 2 {
		t.Fatalf("-l kprobe:%s lists %d functions, want ksys_read and ksys_readahead at least", pattern, n)
	}
	script := fmt.Sprintf(`kprobe:%s { @e = count(); } kretprobe:%s { @r = count(); }`, pattern, pattern)
	for _, noFeature := range []bool{false, true} {
		t.Run("no-feature="+strconv.FormatBool(noFeature), func(t *testing.T) {
			args := []string{"-e", script}
			if noFeature {
				args = append([]string{"--no-feature", "kprobe_session"}, args...)
			}
			want := 2 * n
			if session && !noFeature {
				want = n
			}
			tr := startTrace(t, stderrReady(`Attached \d+ probes?\n`), args...)
			_, errs := tr.stop()
			if line := fmt.Sprintf("Attached %d probes\n", want); !strings.Contains(errs, line) {
				t.Errorf("stderr does not say %q (session %v, %d functions):\n%s", line, session && !noFeature, n, errs)
			}
		})
	}
}

// TestProgramFuncNames: kprobe, kretprobe and trampoline programs carry
// BTF function info naming them in full after their probe, as bpftrace
// names its programs, and the verifier takes it (kprobe_multi and
// session programs alike).
func TestProgramFuncNames(t *testing.T) {
	gotraceBin(t)
	tr := startTrace(t, stderrReady(`Attached \d+ probes?\n`), "-e",
		`kprobe:ksys_read { @a = count(); } kretprobe:vfs_write { @b = count(); } fentry:ksys_write { @c = count(); } kprobe:ksys_re* { @d = count(); }`)
	funcs := progFuncNames(t, tr.cmd.Process.Pid)
	tr.stop()
	for _, want := range []string{"kprobe_ksys_read_1", "kretprobe_vfs_write_2", "fentry_ksys_write_3"} {
		if !funcs[want] {
			t.Errorf("no program of gotrace's has the BTF function %q: %v", want, funcs)
		}
	}
	if len(funcs) != 4 {
		t.Errorf("gotrace holds %d programs with BTF function info, want 4: %v", len(funcs), funcs)
	}
}

// progFuncNames returns the names of the main BTF functions of the
// programs process pid holds; a program without one fails the test.
func progFuncNames(t *testing.T, pid int) map[string]bool {
	t.Helper()
	progs, err := heldprogs.Of(pid)
	if err != nil {
		t.Fatal(err)
	}
	funcs := map[string]bool{}
	for _, p := range progs {
		if p.Func == "" {
			t.Errorf("program %d (%s) has no BTF function info", p.ID, p.Name)
		}
		funcs[p.Func] = true
	}
	return funcs
}
