package check_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/lang/types"
)

// typeAS writes a type with the address space of every pointer level,
// struct and array in it: "int32 *@user" or "int8 *@user *@user".
func typeAS(t *types.Type) string {
	if t == nil {
		return "none"
	}
	switch t.Kind {
	case types.Pointer:
		return typeAS(t.Elem) + " *@" + t.AS.String()
	case types.Array:
		return fmt.Sprintf("%s[%d]@%s", typeAS(t.Elem), t.Len, t.AS)
	case types.Struct:
		return t.Name + "@" + t.AS.String()
	}
	return t.String()
}

// TestAddrSpace checks the address space that values get and keep through
// casts, dereferences, members, indexing, arithmetic, variables and maps:
// the type of every $t... assigned in the script, in order.
func TestAddrSpace(t *testing.T) {
	tests := []struct{ src, want string }{
		// uprobe arguments are user memory; so is what they point to.
		{`uprobe:libc:malloc { $t1 = (int32 *)arg0; $t2 = *(int32 **)arg0; }`,
			`int32 *@user; int32 *@user`},
		{`uprobe:libc:malloc { $t1 = (int32 **)arg0; }`, `int32 *@user *@user`},
		{`uprobe:libc:malloc { $p = (int32 **)arg0; $t1 = $p + 1; $t2 = *($p + 1); }`,
			`int32 *@user *@user; int32 *@user`},
		{`uprobe:libc:malloc { $t1 = (struct task_struct *)arg0; $t2 = $t1->real_parent; }`,
			`struct task_struct@user *@user; struct task_struct@user *@user`},
		{`uprobe:libc:malloc { $t1 = ((struct task_struct *)arg0)->comm; $t2 = ((struct task_struct *)arg0)->sched_class; }`,
			`string[16]; struct sched_class@user *@user`},
		// kernel pointers stay kernel in a uprobe; uptr()/kptr() override.
		{`uprobe:libc:malloc { $t1 = curtask; $t2 = (struct task_struct *)curtask; $t3 = kptr((int8 *)arg0); $t4 = uptr(curtask)->mm; }`,
			`struct task_struct@kernel *@kernel; struct task_struct@kernel *@kernel; int8 *@kernel; struct mm_struct@user *@user`},
		// kprobes and tracepoints read kernel memory; begin either.
		{`tracepoint:sched:sched_switch { $t1 = (int32 *)1234; }`, `int32 *@kernel`},
		{`begin { $t1 = (int32 *)1234; }`, `int32 *@`},
		// syscall tracepoint pointers are user memory, at every level
		// (char is the pinned BTF's, unsigned as in kernels since 6.2).
		{`tracepoint:syscalls:sys_enter_execve { $t1 = args.argv; $t2 = args.argv[0]; $t3 = args.filename; }`,
			`uint8 *@user *@user; uint8 *@user; uint8 *@user`},
		// an integer field of a syscall tracepoint holds a user address.
		{`tracepoint:syscalls:sys_enter_read { $t1 = (int8 *)args.buf; $t2 = (int32 *)args.count; }`,
			`int8 *@user; int32 *@user`},
		{`tracepoint:sched:sched_switch { $t1 = (int32 *)args.prev_pid; }`, `int32 *@kernel`},
		// maps keep the type; pointer increments keep it too.
		{`uprobe:libc:malloc { @p = (int16 *)arg0; @p++; @p += 2; $t1 = @p; $t2 = @p--; }`,
			`int16 *@user; int16 *@user`},
	}
	for _, tc := range tests {
		file, err := syntax.Parse("as.bt", tc.src)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		prog, err := check.Check(file, testEnv(t), check.Options{})
		if err != nil {
			t.Errorf("%s: %v", tc.src, err)
			continue
		}
		var got []string
		for _, pr := range prog.Probes {
			ast.Inspect(pr.AST, func(n ast.Node) bool {
				if s, ok := n.(*ast.AssignStmt); ok {
					if v, ok := s.Lhs.(*ast.Var); ok && strings.HasPrefix(v.Name, "$t") {
						got = append(got, typeAS(pr.Info.TypeOf(s.Rhs)))
					}
				}
				return true
			})
		}
		if g := strings.Join(got, "; "); g != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.src, g, tc.want)
		}
	}
}
