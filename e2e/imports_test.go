package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestImportsExample runs examples/imports.bt: a macro and a BEGIN probe
// of lib/hello.bt, whose BEGIN runs before the script's, and a C struct of
// lib/point.h in a cast.
func TestImportsExample(t *testing.T) {
	want := "lib/hello.bt loaded\nhello world\npoint (1, 2), 8 bytes, 3 from the origin\n\n\n"
	wantOutput(t, run(t, example("imports.bt")), want, 0)
	// The instructions of an imported probe are tagged with its file's
	// position and text.
	asm := run(t, "--emit=asm", example("imports.bt"))
	if tag := `; ../examples/lib/hello.bt:6:2 printf("lib/hello.bt loaded\n")`; !strings.Contains(asm.stdout, tag) {
		t.Errorf("--emit=asm lacks %s:\n%s", tag, asm.stdout)
	}
}

// TestImportedProbe: a tracepoint probe and its map declaration imported
// by a script given by path count the calls this process makes; the
// script's own probes are the imported file's.
func TestImportedProbe(t *testing.T) {
	const n = 300
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "lib", "count.bt"), "let @calls = percpuhash(1);\n"+
		"tracepoint:syscalls:sys_enter_getppid /pid == $1/ { @calls[\"getppid\"] = count(); }\n")
	writeFile(t, filepath.Join(dir, "main.bt"), "import \"lib/count.bt\";\n")
	s := startNoWait(t, filepath.Join(dir, "main.bt"), fmt.Sprint(os.Getpid()))
	s.waitLinks(1, 20*time.Second)
	getppidN(n)
	got := s.stop(syscall.SIGINT)
	wantOutput(t, got, fmt.Sprintf("\n\n@calls[getppid]: %d\n", n), 0)
}

// TestImportErrors: a one-liner's imports are found in the current
// directory, as bpftrace finds them; an error inside an imported file is
// shown in that file, a missing import with the paths checked.
func TestImportErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "lib.bt"), "// helpers\nmacro half($x) { $x / \"2\" }\n")
	for _, tt := range []struct{ prog, want string }{
		{`import "lib.bt"; BEGIN { $v = 4; print(half($v)); }`, `lib.bt:2:18-26: ERROR: / needs integer operands, not int64 and string[2]
macro half($x) { $x / "2" }
                 ~~~~~~~~
`},
		{`import "nope.bt"; BEGIN { }`, `stdin:1:1-17: ERROR: Unable to find suitable path for import
import "nope.bt"; BEGIN { }
~~~~~~~~~~~~~~~~
HINT: checked: nope.bt
HINT: similar to builtins: stdlib/base.bpf.c
`},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, gotrace(t), "-e", tt.prog)
		cmd.Dir = dir
		got := runCmd(t, cmd)
		cancel()
		if got.code != 1 || got.stderr != tt.want {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant:\n%s", tt.prog, got.code, got.stderr, tt.want)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
