package check_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// macroValues checks src and returns the constant value of each identifier
// of its probes.
func macroValues(t *testing.T, src string, opts check.Options) map[string]builtin.Const {
	t.Helper()
	file, err := syntax.Parse("testdata/check/macros.bt", src)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := check.Check(file, testEnv(t), opts)
	if err != nil {
		t.Fatalf("Check: %v", err)
	}
	got := map[string]builtin.Const{}
	for _, p := range prog.Probes {
		ast.Inspect(p.AST, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if cv, ok := p.Info.Consts[id]; ok {
					got[id.Name] = cv
				}
			}
			return true
		})
	}
	return got
}

func TestKernelMacros(t *testing.T) {
	src := "#include <linux/socket.h>\n" +
		"BEGIN { @ = AF_INET + AF_UNSPEC + EPERM + TASK_RUNNING + DT_REG + ICMP_ECHO + AF_INET6 + TASK_UNINTERRUPTIBLE; }"
	got := macroValues(t, src, check.Options{})
	for name, want := range map[string]uint64{
		"AF_INET": 2, "AF_UNSPEC": 0, "EPERM": 1, "TASK_RUNNING": 0, "DT_REG": 8,
		"ICMP_ECHO": 8, "AF_INET6": 10, "TASK_UNINTERRUPTIBLE": 2,
	} {
		if cv, ok := got[name]; !ok || cv.IsStr || cv.Int != want {
			t.Errorf("%s = %+v (found %v), want %d", name, cv, ok, want)
		}
	}
}

func TestUserHeaderMacros(t *testing.T) {
	src := "#include \"../include/user.h\"\n" +
		"#include <fromdir.h>\n" +
		"#define LOCAL (USER_VALUE + FROM_DIR)\n" +
		"BEGIN { printf(\"%s %d\\n\", USER_NAME, USER_VALUE + FROM_DIR + LOCAL + FORCED); }"
	got := macroValues(t, src, check.Options{
		IncludeDirs: []string{"testdata/include/dir"},
		Includes:    []string{"testdata/include/forced.h"},
	})
	for name, want := range map[string]builtin.Const{
		"USER_NAME":  {IsStr: true, Str: "hello"},
		"USER_VALUE": {Int: 42},
		"FROM_DIR":   {Int: 7},
		"LOCAL":      {Int: 49},
		"FORCED":     {Int: 0xf00},
	} {
		if got[name] != want {
			t.Errorf("%s = %+v, want %+v", name, got[name], want)
		}
	}
	// A header found through -I is a user header, not a system one: the
	// kernel table stays hidden.
	file, _ := syntax.Parse("t.bt", "#include <fromdir.h>\nBEGIN { @ = EPERM; }")
	if _, err := check.Check(file, testEnv(t), check.Options{IncludeDirs: []string{"testdata/include/dir"}}); err == nil {
		t.Error("EPERM resolved with only a user header included")
	}
}

// noBTF is an environment whose kernel has no BTF.
type noBTF struct{ check.Env }

func (noBTF) BTF() (*btf.Spec, error) { return nil, errors.New("no BTF") }

// TestHaveBTF checks the pattern of bpftrace's tools (runqlat.bt,
// tcpdrop.bt): headers without BTF, #defines with it.
func TestHaveBTF(t *testing.T) {
	src := "#ifndef BPFTRACE_HAVE_BTF\n#include <linux/sched.h>\n#else\n#define TASK_RUNNING 99\n#endif\n" +
		"tracepoint:sched:sched_switch { if (args.prev_state == TASK_RUNNING) { @ = count(); } }"
	for _, tt := range []struct {
		env  check.Env
		want uint64
	}{
		{testEnv(t), 99},
		{noBTF{testEnv(t)}, 0},
	} {
		file, err := syntax.Parse("runqlat.bt", src)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := check.Check(file, tt.env, check.Options{})
		if err != nil {
			t.Fatalf("Check: %v", err)
		}
		found := false
		ast.Inspect(prog.Probes[0].AST, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && id.Name == "TASK_RUNNING" {
				found = true
				if cv := prog.Probes[0].Info.Consts[id]; cv.Int != tt.want {
					t.Errorf("TASK_RUNNING = %d, want %d", cv.Int, tt.want)
				}
			}
			return true
		})
		if !found {
			t.Error("no TASK_RUNNING identifier")
		}
	}
}

// TestIncludeWithoutScriptFiles: an Env that cannot read the script's files
// makes a user header a clear error, not a read of the local disk, while
// system headers, which need no file, still work.
func TestIncludeWithoutScriptFiles(t *testing.T) {
	type envOnly struct{ check.Env }
	env := envOnly{testEnv(t)}
	file, err := syntax.Parse("testdata/check/macros.bt", "#include \"../include/user.h\"\nBEGIN { @ = USER_VALUE; }")
	if err != nil {
		t.Fatal(err)
	}
	_, err = check.Check(file, env, check.Options{})
	if err == nil || !strings.Contains(err.Error(), `testdata/check/macros.bt:1:10-11: ERROR: #include "../include/user.h": the environment cannot read host files`) {
		t.Errorf("error %v, want one saying the environment cannot read host files", err)
	}
	file, err = syntax.Parse("t.bt", "#include <linux/socket.h>\nBEGIN { @ = AF_INET; }")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := check.Check(file, env, check.Options{}); err != nil {
		t.Errorf("a system header without ScriptFiles: %v", err)
	}
}
