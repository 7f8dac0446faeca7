package codegen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestVerifierLimitMessages: the verifier's limits on a whole probe are
// reported at the probe's first statement in plain words, whichever errno
// and log the kernel gives for them: the pending-branch limit comes back
// as EFAULT without a log on some kernels and as E2BIG with "The sequence
// of 8193 jumps is too complex" on others (Linux 6.18).
func TestVerifierLimitMessages(t *testing.T) {
	prog, err := compileScript(t, "big.bt", "BEGIN { $c = 0;\n if (nsecs > 5) { @x = 1; }\n}\n", codegen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	name := prog.ProgramNames()[0]
	wrap := func(cause error) error { return fmt.Errorf("load program %s: program %s: %w", name, name, cause) }
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"EFAULT without a log", wrap(unix.EFAULT), "too large or has too many branches"},
		{"E2BIG without a log", wrap(unix.E2BIG), "too large or has too many branches"},
		{"E2BIG, jump sequence", wrap(verifierError(unix.E2BIG, "0: (b7) r0 = 0", "The sequence of 8193 jumps is too complex.")), "(8193 pending in a row, its limit is 8192)"},
		{"E2BIG, instructions explored", wrap(verifierError(unix.E2BIG, "0: (b7) r0 = 0", "BPF program is too large. Processed 1000001 insn")), "explored 1000001 instructions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := codegen.VerifierPosition(tc.err, prog)
			if e == nil {
				t.Fatalf("no position for %v", tc.err)
			}
			if e.Pos.String() != "big.bt:1:9" || !strings.Contains(e.Msg, tc.want) ||
				!strings.Contains(e.Msg, "for the kernel's BPF verifier") || !strings.HasSuffix(e.Msg, "split the probe's work across several probes") {
				t.Errorf("got %s: %s; want big.bt:1:9 and a plain message saying %q", e.Pos, e.Msg, tc.want)
			}
			for _, kernel := range []string{"bad address", "argument list too long", "jumps is too complex", "insn"} {
				if strings.Contains(e.Msg, kernel) {
					t.Errorf("message quotes the kernel (%q): %s", kernel, e.Msg)
				}
			}
		})
	}
}

// verifierError is a load failure with a verifier log.
func verifierError(cause error, log ...string) error {
	return &ebpf.VerifierError{Cause: cause, Log: log}
}

// TestHelperRefusal: the verifier's refusal of bpf_d_path in a function
// outside its allow list is bpftrace's error, at the path() call.
func TestHelperRefusal(t *testing.T) {
	src := `fentry:vfs_read { print("a"); print(path(args.file.f_path)); print("b"); }`
	prog, err := compileScript(t, "stdin", src, codegen.Options{})
	if err != nil {
		t.Fatal(err)
	}
	insns := prog.Collection.Programs["p0"].Instructions
	at := -1
	iter := insns.Iterate()
	for iter.Next() {
		if iter.Ins.IsBuiltinCall() && asm.BuiltinFunc(iter.Ins.Constant) == asm.FnDPath {
			at = int(iter.Offset)
		}
	}
	if at < 0 {
		t.Fatal("no bpf_d_path call")
	}
	ve := &ebpf.VerifierError{Cause: unix.EACCES, Log: []string{
		"0: R1=ctx() R10=fp0",
		fmt.Sprintf("%d: (85) call bpf_d_path#147", at),
		"helper call is not allowed in probe",
		"processed 40 insns (limit 1000000) max_states_per_insn 0 total_states 2 peak_states 2 mark_read 1",
	}}
	e := codegen.VerifierPosition(fmt.Errorf("load program p0: program p0: load program: %w", ve), prog)
	if e == nil {
		t.Fatal("no position")
	}
	want := "stdin:1:37-59: ERROR: helper bpf_d_path not allowed in probe\n" + src + "\n" +
		"                                    ~~~~~~~~~~~~~~~~~~~~~~\n"
	if got := syntax.Render(e, src); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
