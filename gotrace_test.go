package gotrace_test

import (
	"os"
	"strings"
	"testing"

	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace"
)

// TestVerifierErrorPosition makes the verifier reject the code of the
// second statement (a read through an uninitialised register slipped into
// its instructions) and checks that the error points at that statement.
func TestVerifierErrorPosition(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("loading BPF needs root")
	}
	src := "BEGIN {\n\t@a = 1;\n\t@b = 2;\n}\n"
	script, err := gotrace.Compile("verifier.bt", src, gotrace.Options{})
	if err != nil {
		t.Fatal(gotrace.FormatError(err, src))
	}
	insns := script.Program.Collection.Programs["p0"].Instructions
	found := false
	for i, ins := range insns {
		if src := ins.Source(); src != nil && strings.HasPrefix(src.String(), "verifier.bt:3:2 ") {
			// Keep the tag (and a label jumped to), break the
			// instruction: R9 was never written.
			broken := asm.LoadMem(asm.R0, asm.R9, 0, asm.DWord)
			broken.Metadata = ins.Metadata
			insns[i] = broken
			found = true
			break
		}
	}
	if !found {
		t.Fatalf("no instruction tagged with line 3:\n%v", insns)
	}
	err = script.Load(gotrace.RunOptions{})
	if err == nil {
		t.Fatal("the verifier accepted a read through an uninitialised register")
	}
	got := script.FormatError(err)
	want := "verifier.bt:3:2-3: ERROR: the BPF verifier rejected the code generated here: R9 !read_ok\n    @b = 2;\n    ~\n"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got:\n%s\nwant prefix:\n%s", got, want)
	}
}

// TestCompileErrors checks the API's error rendering.
func TestCompileErrors(t *testing.T) {
	src := "BEGIN { @x = nosuch; }"
	_, err := gotrace.Compile("-e", src, gotrace.Options{})
	want := "-e:1:14-20: ERROR: unknown identifier \"nosuch\"\nBEGIN { @x = nosuch; }\n             ~~~~~~\n"
	if got := gotrace.FormatError(err, src); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
