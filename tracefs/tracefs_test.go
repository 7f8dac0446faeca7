package tracefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/internal/testbtf"
)

const snapshot = "../testdata/tracefs"

func TestParseFormat(t *testing.T) {
	env := NewEnv(snapshot)
	tests := []struct {
		cat, ev string
		fields  []Field
	}{
		{"syscalls", "sys_enter_openat", []Field{
			{Name: "__syscall_nr", CType: "int", Offset: 8, Size: 4, Signed: true},
			{Name: "dfd", CType: "int", Offset: 16, Size: 8},
			{Name: "filename", CType: "const char *", Offset: 24, Size: 8},
			{Name: "flags", CType: "int", Offset: 32, Size: 8},
			{Name: "mode", CType: "umode_t", Offset: 40, Size: 8},
		}},
		{"sched", "sched_switch", []Field{
			{Name: "prev_comm", CType: "char", Offset: 8, Size: 16, ArrayLen: 16},
			{Name: "prev_pid", CType: "pid_t", Offset: 24, Size: 4, Signed: true},
			{Name: "prev_prio", CType: "int", Offset: 28, Size: 4, Signed: true},
			{Name: "prev_state", CType: "long", Offset: 32, Size: 8, Signed: true},
			{Name: "next_comm", CType: "char", Offset: 40, Size: 16, ArrayLen: 16},
			{Name: "next_pid", CType: "pid_t", Offset: 56, Size: 4, Signed: true},
			{Name: "next_prio", CType: "int", Offset: 60, Size: 4, Signed: true},
		}},
		{"sched", "sched_process_exec", []Field{
			{Name: "filename", CType: "__data_loc char[]", Offset: 8, Size: 4, DataLoc: true},
			{Name: "pid", CType: "pid_t", Offset: 12, Size: 4, Signed: true},
			{Name: "old_pid", CType: "pid_t", Offset: 16, Size: 4, Signed: true},
		}},
		{"raw_syscalls", "sys_enter", []Field{
			{Name: "id", CType: "long", Offset: 8, Size: 8, Signed: true},
			{Name: "args", CType: "unsigned long", Offset: 16, Size: 48, ArrayLen: 6},
		}},
	}
	for _, tt := range tests {
		f, err := env.TracepointFormat(tt.cat, tt.ev)
		if err != nil {
			t.Fatal(err)
		}
		if f.Category != tt.cat || f.Event != tt.ev || f.ID == 0 {
			t.Errorf("%s:%s: header = %q %q %d", tt.cat, tt.ev, f.Category, f.Event, f.ID)
		}
		if !reflect.DeepEqual(f.Fields, tt.fields) {
			t.Errorf("%s:%s fields:\n got %+v\nwant %+v", tt.cat, tt.ev, f.Fields, tt.fields)
		}
	}
}

func TestParseFormatSnapshotAll(t *testing.T) {
	// Every file in the snapshot parses and has no common_ fields.
	files, err := filepath.Glob(filepath.Join(snapshot, "events", "*", "*", "format"))
	if err != nil || len(files) < 50 {
		t.Fatalf("snapshot: %d files, %v", len(files), err)
	}
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(file)
		f, err := ParseFormat(filepath.Base(filepath.Dir(dir)), filepath.Base(dir), text)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		for _, fld := range f.Fields {
			if strings.HasPrefix(fld.Name, "common_") || (fld.Size <= 0 && !strings.HasSuffix(fld.CType, "[]")) || fld.Offset < 8 { // a flexible array ([]) has size 0
				t.Errorf("%s: bad field %+v", file, fld)
			}
			if fld.ArrayLen > 0 && fld.Size%fld.ArrayLen != 0 {
				t.Errorf("%s: array field %+v size not a multiple of its length", file, fld)
			}
		}
	}
}

func TestParseFormatErrors(t *testing.T) {
	for _, text := range []string{
		"name: x\nformat:\n",                      // no ID
		"ID: abc\n",                               // bad ID
		"ID: 1\n\tfield:int x;\toffset:8;\n",      // no size
		"ID: 1\n\tfield:x;\toffset:8;\tsize:4;\n", // no type
		"ID: 1\n\tfield:int x;\toffset:z;\tsize:4;\n",
	} {
		if f, err := ParseFormat("c", "e", []byte(text)); err == nil {
			t.Errorf("ParseFormat(%q) = %+v, want error", text, f)
		}
	}
	f, err := ParseFormat("c", "e", []byte("ID: 7\nformat:\n\tfield:char name[TASK_COMM_LEN];\toffset:8;\tsize:16;\tsigned:1;\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Field{{Name: "name", CType: "char[TASK_COMM_LEN]", Offset: 8, Size: 16, Signed: true}}
	if f.ID != 7 || !reflect.DeepEqual(f.Fields, want) {
		t.Errorf("got %+v", f)
	}
}

func TestTracepoints(t *testing.T) {
	env := NewEnv(snapshot)
	tests := []struct {
		pattern string
		want    []string
	}{
		{"syscalls:sys_enter_open*", []string{
			"syscalls:sys_enter_open", "syscalls:sys_enter_open_by_handle_at",
			"syscalls:sys_enter_open_tree", "syscalls:sys_enter_open_tree_attr",
			"syscalls:sys_enter_openat", "syscalls:sys_enter_openat2",
		}},
		{"sched:sched_process_*", []string{
			"sched:sched_process_exec", "sched:sched_process_exit",
			"sched:sched_process_fork", "sched:sched_process_free",
		}},
		{"*:sys_enter", []string{"raw_syscalls:sys_enter"}},
		{"raw_sys?alls:sys_e*", []string{"raw_syscalls:sys_enter", "raw_syscalls:sys_exit"}},
		{"syscalls:sys_enter_getppid", []string{"syscalls:sys_enter_getppid"}},
		{"syscalls:sys_enter_nosuch", nil},
		{"nosuch:*", nil},
		// the ftrace category's events cannot be attached
		{"ftrace:function", nil},
		{"ftrace:*", nil},
		{"*:function", nil},
		{"irq:*", []string{
			"irq:irq_handler_entry", "irq:irq_handler_exit", "irq:softirq_entry",
			"irq:softirq_exit", "irq:softirq_raise", "irq:tasklet_entry", "irq:tasklet_exit",
		}},
	}
	for _, tt := range tests {
		got, err := env.Tracepoints(tt.pattern)
		if err != nil {
			t.Errorf("Tracepoints(%q): %v", tt.pattern, err)
			continue
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("Tracepoints(%q) = %q, want %q", tt.pattern, got, tt.want)
		}
	}
	for _, bad := range []string{"syscalls", ":x", "x:", "[:x"} {
		if got, err := env.Tracepoints(bad); err == nil {
			t.Errorf("Tracepoints(%q) = %q, want error", bad, got)
		}
	}
}

func TestTracepointNotExist(t *testing.T) {
	env := NewEnv(snapshot)
	for _, tp := range [][2]string{{"syscalls", "nosuch"}, {"..", "tracefs"}, {"sched", "../sched/sched_switch"}} {
		if _, err := env.TracepointFormat(tp[0], tp[1]); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("TracepointFormat(%q, %q) error = %v, want ErrNotExist", tp[0], tp[1], err)
		}
	}
	id, err := env.TracepointID("syscalls", "sys_enter_getppid")
	if err != nil || id == 0 {
		t.Errorf("TracepointID from snapshot = %d, %v", id, err)
	}
}

func TestWithBTF(t *testing.T) {
	spec := testbtf.Spec(t)
	env := NewEnv(snapshot, WithBTF(spec))
	got, err := env.BTF()
	if err != nil || got != spec {
		t.Fatalf("BTF() = %p, %v; want %p", got, err, spec)
	}
	if _, err := NewEnv(snapshot, WithBTF(nil)).BTF(); err == nil {
		t.Error("WithBTF(nil): want error")
	}
}

// TestLive checks the real tracefs of this machine against the snapshot.
func TestLive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	dir, err := Mount()
	if err != nil {
		t.Fatal(err)
	}
	live := NewEnv(dir)
	snap := NewEnv(snapshot)
	for _, tp := range [][2]string{{"syscalls", "sys_enter_openat"}, {"sched", "sched_switch"}, {"sched", "sched_process_exec"}} {
		lf, err := live.TracepointFormat(tp[0], tp[1])
		if err != nil {
			t.Fatal(err)
		}
		sf, err := snap.TracepointFormat(tp[0], tp[1])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(lf.Fields, sf.Fields) {
			t.Logf("%s:%s differs from the snapshot (another kernel?)", tp[0], tp[1])
		}
		id, err := live.TracepointID(tp[0], tp[1])
		if err != nil || id != lf.ID {
			t.Errorf("TracepointID = %d, %v; format says %d", id, err, lf.ID)
		}
	}
	got, err := live.Tracepoints("syscalls:sys_enter_getppid")
	if err != nil || len(got) != 1 {
		t.Errorf("live Tracepoints = %q, %v", got, err)
	}
	spec, err := live.BTF()
	if err != nil {
		t.Skipf("no kernel BTF: %v", err)
	}
	if spec2, _ := live.BTF(); spec2 != spec {
		t.Error("BTF not cached")
	}
}
