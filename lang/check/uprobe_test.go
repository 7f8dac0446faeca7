package check_test

import (
	"debug/elf"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/tracefs"
)

// fakeHost is an Env whose host files are in memory: the checker must find
// uprobe targets, their symbols and inodes through it, never on disk.
type fakeHost struct {
	bins   map[string]string // target as written -> file
	syms   map[string][]provider.ELFSymbol
	inodes map[string]uint64
	calls  []string
}

func (*fakeHost) Tracepoints(string) ([]string, error) { return nil, nil }
func (*fakeHost) TracepointFormat(c, e string) (*tracefs.Format, error) {
	return nil, fmt.Errorf("no tracepoint %s:%s", c, e)
}
func (*fakeHost) BTF() (*btf.Spec, error) { return nil, errors.New("no BTF") }

func (h *fakeHost) ResolveBinary(target string) (string, error) {
	h.calls = append(h.calls, "resolve "+target)
	if f, ok := h.bins[target]; ok {
		return f, nil
	}
	return "", fmt.Errorf("uprobe target %q not found", target)
}

func (h *fakeHost) ELFSymbols(file string) ([]provider.ELFSymbol, error) {
	h.calls = append(h.calls, "symbols "+file)
	s, ok := h.syms[file]
	if !ok {
		return nil, fmt.Errorf("reading %s: no such file", file)
	}
	return s, nil
}

func (h *fakeHost) Inode(path string) (uint64, error) {
	h.calls = append(h.calls, "inode "+path)
	if n, ok := h.inodes[path]; ok {
		return n, nil
	}
	return 0, errors.New("stat: no such file or directory")
}

// TestUprobeThroughEnv expands uprobe wildcards, resolves uaddr() and
// cgroupid() against a binary and a cgroup that exist only in the Env.
func TestUprobeThroughEnv(t *testing.T) {
	h := &fakeHost{
		bins: map[string]string{"app": "/fake/bin/app", "/fake/bin/app": "/fake/bin/app"},
		syms: map[string][]provider.ELFSymbol{"/fake/bin/app": {
			{Name: "foo", Value: 0x1000, Size: 0x40, Func: true},
			{Name: "fob", Value: 0x1100, Size: 0x40, Func: true},
			{Name: "bar", Value: 0x1200, Size: 0x40, Func: true},
			{Name: "_init", Value: 0x1300, Func: true}, // no size
			{Name: "fox", Value: 0x4000},               // an object, not a function
			{Name: "table", Value: 0x4242},
		}},
		inodes: map[string]uint64{"/fake/cgroup": 77},
	}
	src := `uprobe:/fake/bin/app:fo* { @[probe] = count(); }
uretprobe:app:bar { @a = uaddr("table"); @c = cgroupid("/fake/cgroup"); }
`
	file, err := syntax.Parse("fake.bt", src)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := check.Check(file, h, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	consts := map[string]uint64{}
	for _, pr := range prog.Probes {
		for _, pt := range pr.Points {
			names = append(names, pt.Name)
		}
		for e, c := range pr.Info.Consts {
			if call, ok := e.(*ast.Call); ok {
				consts[call.Name] = c.Int
			}
		}
	}
	want := []string{"uprobe:/fake/bin/app:fob", "uprobe:/fake/bin/app:foo", "uretprobe:/fake/bin/app:bar"}
	if !slices.Equal(names, want) {
		t.Errorf("attach points %v, want %v", names, want)
	}
	if consts["uaddr"] != 0x4242 || consts["cgroupid"] != 77 {
		t.Errorf("uaddr = %#x, cgroupid = %d; want 0x4242, 77", consts["uaddr"], consts["cgroupid"])
	}
	if len(h.calls) == 0 {
		t.Errorf("the checker did not ask the Env")
	}

	// Errors come from the Env, positioned on the script.
	for _, tc := range []struct{ src, want string }{
		{`uprobe:nosuch:f { exit(); }`, `uprobe target "nosuch" not found`},
		{`uprobe:app:fox { exit(); }`, `No matches for uprobe /fake/bin/app:fox.`},
		{`uprobe:app:foo { @a = uaddr("nope"); }`, `no symbol nope in /fake/bin/app`},
		{`BEGIN { @c = cgroupid("/nope"); }`, `stat: no such file or directory`},
	} {
		file, err := syntax.Parse("fake.bt", tc.src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = check.Check(file, h, check.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestUprobeWithoutHostFiles: an Env that cannot read host files makes
// uprobes a clear error, not a read of the local disk.
func TestUprobeWithoutHostFiles(t *testing.T) {
	file, err := syntax.Parse("x.bt", `uprobe:/bin/sh:main { exit(); }`)
	if err != nil {
		t.Fatal(err)
	}
	type envOnly struct{ check.Env }
	_, err = check.Check(file, envOnly{&fakeHost{}}, check.Options{})
	if err == nil || !strings.Contains(err.Error(), "cannot read host files") {
		t.Errorf("error %v, want one saying the environment cannot read host files", err)
	}
}

// pieHost is fakeHost whose files are position-independent (ET_DYN),
// with kernel BTF.
type pieHost struct {
	*fakeHost
	spec *btf.Spec
}

func (h pieHost) BTF() (*btf.Spec, error)        { return h.spec, nil }
func (pieHost) ELFType(string) (elf.Type, error) { return elf.ET_DYN, nil }

// TestUaddrPIE: uaddr() of a symbol of a position-independent file is no
// constant: the checker records the symbol's address and the file's inode
// (and the kernel struct offsets that find the file's mapping); the pointer
// reads an unsigned integer of the symbol's size.
func TestUaddrPIE(t *testing.T) {
	h := pieHost{&fakeHost{
		bins: map[string]string{"/fake/bin/app": "/fake/bin/app"},
		syms: map[string][]provider.ELFSymbol{"/fake/bin/app": {
			{Name: "foo", Value: 0x1000, Size: 0x40, Func: true},
			{Name: "flag", Value: 0x4010, Size: 1},
			{Name: "table", Value: 0x4242, Size: 24},
		}},
		inodes: map[string]uint64{"/fake/bin/app": 99},
	}, testbtf.Spec(t)}
	file, err := syntax.Parse("fake.bt", `uprobe:/fake/bin/app:foo { @a = *uaddr("flag"); @b = *uaddr("table"); }`)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := check.Check(file, h, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	info := prog.Probes[0].Info
	got := map[check.Uaddr]string{}
	for call, u := range info.Uaddrs {
		if _, ok := info.Consts[call]; ok {
			t.Errorf("uaddr of %#x is a constant", u.Addr)
		}
		got[u] = info.TypeOf(call).String()
	}
	want := map[check.Uaddr]string{{Addr: 0x4010, Ino: 99}: "uint8 *", {Addr: 0x4242, Ino: 99}: "uint64 *"}
	if !maps.Equal(got, want) {
		t.Errorf("uaddrs %v, want %v", got, want)
	}
	if prog.VMA.VMFile == 0 || prog.VMA.IIno == 0 {
		t.Errorf("VMA layout %+v: no vm_file or i_ino offset", prog.VMA)
	}
}
