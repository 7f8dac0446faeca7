package codegen_test

import (
	"fmt"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/lang"
)

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
	if got := lang.Render(e, src); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
