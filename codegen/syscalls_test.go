package codegen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/provider"
)

// TestSyscallDispatch checks the plan of the syscall dispatchers: a
// wildcard using probe as a map key shares one program (the instance with
// the longest name), blocks on one syscall get successive layers, args
// users and blocks that read ctx keep programs of their own or the perf
// event, and one dispatcher per direction comes last.
func TestSyscallDispatch(t *testing.T) {
	src := `tracepoint:syscalls:sys_enter_open* { @[probe] = count(); }
tracepoint:syscalls:sys_enter_openat { @o = count(); }
tracepoint:syscalls:sys_enter_read { @r[args.count] = count(); }
tracepoint:syscalls:sys_exit_read { @ret = sum(args.ret); }
tracepoint:syscalls:sys_enter_write { @c = ctx; }
`
	prog, err := compileScript(t, "sys.bt", src, codegen.Options{Features: provider.Features{SyscallRawTp: true}})
	if err != nil {
		t.Fatalf("compile: %v", syntax.Render(err, src))
	}
	var got []string
	for _, p := range prog.Probes {
		spec := prog.Collection.Programs[p.Program]
		got = append(got, fmt.Sprintf("%s %s %s dispatch=%q dispatcher=%v %v", p.Program, spec.Type, p.Name, p.Dispatch, p.Dispatcher, p.Targets))
	}
	want := []string{
		"p1 RawTracepoint tracepoint:syscalls:sys_enter_open dispatch=\"sysenter0\" dispatcher=false [syscalls:sys_enter_open syscalls:sys_enter_open_by_handle_at syscalls:sys_enter_open_tree syscalls:sys_enter_open_tree_attr syscalls:sys_enter_openat syscalls:sys_enter_openat2]",
		"p6 RawTracepoint tracepoint:syscalls:sys_enter_openat dispatch=\"sysenter1\" dispatcher=false [syscalls:sys_enter_openat]",
		"p7 RawTracepoint tracepoint:syscalls:sys_enter_read dispatch=\"sysenter0\" dispatcher=false [syscalls:sys_enter_read]",
		"p8 RawTracepoint tracepoint:syscalls:sys_exit_read dispatch=\"sysexit0\" dispatcher=false [syscalls:sys_exit_read]",
		"p9 TracePoint tracepoint:syscalls:sys_enter_write dispatch=\"\" dispatcher=false [syscalls:sys_enter_write]",
		"dispatch_sys_enter RawTracepoint tracepoint:raw_syscalls:sys_enter dispatch=\"\" dispatcher=true [sys_enter]",
		"dispatch_sys_exit RawTracepoint tracepoint:raw_syscalls:sys_exit dispatch=\"\" dispatcher=true [sys_exit]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("probes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, m := range []string{"sysenter0", "sysenter1", "sysexit0"} {
		if spec := prog.Collection.Maps[m]; spec == nil || spec.Type != ebpf.ProgramArray {
			t.Errorf("map %s: %v, want a prog array", m, spec)
		}
	}
	names := prog.Collection.Maps["names_sys_enter"]
	if names == nil {
		t.Fatal("no names map for the shared wildcard")
	}
	found := false
	for _, kv := range names.Contents {
		if kv.Key == uint32(257) {
			found = strings.HasPrefix(string(kv.Value.([]byte)), "tracepoint:syscalls:sys_enter_openat\x00")
		}
	}
	if !found {
		t.Error("names map lacks openat at 257")
	}
	// The shared program is the longest name's instance
	// (sys_enter_open_by_handle_at, p1).
	if dump := fmt.Sprint(prog.Collection.Programs["p1"].Instructions); !strings.Contains(dump, "names_sys_enter") {
		t.Errorf("shared program does not read the names map:\n%s", dump)
	}
}

// TestSyscallCompatCheck: the dispatchers skip compat syscalls by reading
// thread_info.status at the offset the caller gives (read from raw BTF at
// run time), with no decoded BTF; with neither, the check is left out.
func TestSyscallCompatCheck(t *testing.T) {
	src := `tracepoint:syscalls:sys_enter_getppid { @ = count(); }`
	for _, tc := range []struct {
		off  int
		want bool
	}{{16, true}, {0, false}} {
		prog, err := compileScript(t, "sys.bt", src, codegen.Options{Features: provider.Features{SyscallRawTp: true}, ThreadStatusOffset: tc.off})
		if err != nil {
			t.Fatalf("compile: %v", syntax.Render(err, src))
		}
		insns := prog.Collection.Programs["dispatch_sys_enter"].Instructions
		got := false
		for i, ins := range insns {
			if ins.IsBuiltinCall() && ins.Constant == int64(asm.FnGetCurrentTask) && i+2 < len(insns) {
				got = insns[i+2].OpCode.ALUOp() == asm.Add && insns[i+2].Constant == int64(tc.off)
			}
		}
		if got != tc.want {
			t.Errorf("offset %d: compat check at that offset = %v, want %v:\n%v", tc.off, got, tc.want, insns)
		}
	}
}
