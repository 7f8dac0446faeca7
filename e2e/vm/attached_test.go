package vm

import (
	"fmt"
	"maps"
	"slices"
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
// BTF function info naming them in full as bpftrace names its programs
// (provider_function_index, a trampoline with its module, a wildcard
// through kprobe_multi after the wildcard), and the verifier takes it.
func TestProgramFuncNames(t *testing.T) {
	gotraceBin(t)
	tr := startTrace(t, stderrReady(`Attached \d+ probes?\n`), "-e",
		`kprobe:ksys_read { @a = count(); } kretprobe:vfs_write { @b = count(); } fentry:ksys_write { @c = count(); } kprobe:ksys_re* { @d = count(); }`)
	funcs := progFuncNames(t, tr.cmd.Process.Pid)
	tr.stop()
	wildcard := "kprobe_ksys_read_4" // one kprobe program per function in bpftrace, named after the first here
	if haveKprobeMulti(t) {
		wildcard = "kprobe_ksys_re__4"
	}
	want := map[string]bool{"kprobe_ksys_read_1": true, "kretprobe_vfs_write_2": true, "fentry_vmlinux_ksys_write_3": true, wildcard: true}
	if !maps.Equal(funcs, want) {
		t.Errorf("the BTF functions of gotrace's programs are %v, want %v", slices.Sorted(maps.Keys(funcs)), slices.Sorted(maps.Keys(want)))
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
