package debuginfo

import (
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/testbin"
)

// compile builds testdata/shapes.c with gcc and the given flags into dir.
func compile(t *testing.T, dir, out string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler (gcc) to build the test program: scripts/test.sh installs it")
	}
	src, err := filepath.Abs("testdata/shapes.c")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, out)
	args := append(append([]string{}, flags...), "-o", bin, src)
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return bin
}

func TestFuncParams(t *testing.T) {
	bin := compile(t, t.TempDir(), "shapes", "-g", "-O0")
	f, err := Open(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	fn, err := f.Func("draw")
	if err != nil {
		t.Fatal(err)
	}
	var decls []string
	for _, p := range fn.Params {
		decls = append(decls, p.Decl())
	}
	want := "struct shape* s, int8_t dx, uint64_t scale, const char* label, enum color c, ulong_t n"
	if got := strings.Join(decls, ", "); got != want {
		t.Errorf("draw params = %q, want %q", got, want)
	}
	if fn.ReturnC != "int" {
		t.Errorf("draw returns %q, want int", fn.ReturnC)
	}
	// types: sizes and signedness through typedefs
	sizes := []struct {
		size   uint32
		signed bool
	}{{8, false}, {1, true}, {8, false}, {8, false}, {4, false}, {8, false}}
	for i, p := range fn.Params {
		u := btf.UnderlyingType(p.Type)
		var size uint32
		signed := false
		switch v := u.(type) {
		case *btf.Pointer:
			size = 8
		case *btf.Int:
			size, signed = v.Size, v.Encoding == btf.Signed
		case *btf.Enum:
			size = v.Size
		default:
			t.Errorf("param %s: unexpected type %T", p.Name, u)
			continue
		}
		if size != sizes[i].size || signed != sizes[i].signed {
			t.Errorf("param %s: size %d signed %v, want %d %v", p.Name, size, signed, sizes[i].size, sizes[i].signed)
		}
	}
	if _, err := f.Func("no_such_function"); !errors.Is(err, ErrNoFunc) {
		t.Errorf("Func(no_such_function) error = %v, want ErrNoFunc", err)
	}
}

func TestTypes(t *testing.T) {
	bin := compile(t, t.TempDir(), "shapes", "-g", "-O0")
	f, err := Open(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Type("struct shape")
	if err != nil {
		t.Fatal(err)
	}
	s, ok := st.(*btf.Struct)
	if !ok {
		t.Fatalf("struct shape is %T", st)
	}
	type member struct {
		name         string
		off, bitsize btf.Bits
	}
	var got []member
	for _, m := range s.Members {
		got = append(got, member{m.Name, m.Offset, m.BitfieldSize})
	}
	want := []member{{"id", 0, 0}, {"name", 16, 0}, {"corners", 96, 0}, {"origin", 256, 0}, {"flags", 320, 3}, {"kind", 323, 5}}
	if len(got) != len(want) {
		t.Fatalf("members %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("member %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if s.Size != 48 {
		t.Errorf("struct shape size %d, want 48", s.Size)
	}
	if a, ok := s.Members[1].Type.(*btf.Array); !ok || a.Nelems != 8 {
		t.Errorf("name is %v, want char[8]", s.Members[1].Type)
	}
	p, ok := s.Members[3].Type.(*btf.Pointer)
	if !ok {
		t.Fatalf("origin is %T", s.Members[3].Type)
	}
	if ps, ok := p.Target.(*btf.Struct); !ok || ps.Name != "point" || len(ps.Members) != 2 {
		t.Errorf("origin points to %v, want struct point", p.Target)
	}
	if u, err := f.Type("union word"); err != nil {
		t.Error(err)
	} else if u, ok := u.(*btf.Union); !ok || u.Size != 4 || len(u.Members) != 2 {
		t.Errorf("union word = %v", u)
	}
	if e, err := f.Type("enum color"); err != nil {
		t.Error(err)
	} else if e, ok := e.(*btf.Enum); !ok || len(e.Values) != 3 || e.Values[2].Name != "BLUE" || e.Values[2].Value != 4 {
		t.Errorf("enum color = %v", e)
	}
	if td, err := f.Type("ulong_t"); err != nil {
		t.Error(err)
	} else if _, ok := td.(*btf.Typedef); !ok {
		t.Errorf("ulong_t = %T, want a typedef", td)
	}
	if none, err := f.Type("struct nosuch"); err != nil || none != nil {
		t.Errorf("struct nosuch = %v, %v, want nil", none, err)
	}
}

// symbol returns the value of a function symbol of bin.
func symbol(t *testing.T, bin, name string) uint64 {
	t.Helper()
	return testbin.Symbol(t, bin, name).Value
}

// lineOf returns the 1-based line of shapes.c that starts with prefix.
func lineOf(t *testing.T, prefix string) int {
	t.Helper()
	b, err := os.ReadFile("testdata/shapes.c")
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	t.Fatalf("no line starting with %q", prefix)
	return 0
}

func TestLineAddress(t *testing.T) {
	bin := compile(t, t.TempDir(), "shapes", "-g", "-O0")
	f, err := Open(bin, nil)
	if err != nil {
		t.Fatal(err)
	}
	// the entry of a function is the line of its opening brace
	line := lineOf(t, "__attribute__((noinline)) int tally") + 1
	addr, err := f.LineAddress("shapes.c", line, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := symbol(t, bin, "tally"); addr != want {
		t.Errorf("shapes.c:%d at 0x%x, want tally's 0x%x", line, addr, want)
	}
	if _, err := f.LineAddress("other.c", line, 0); err == nil || !strings.Contains(err.Error(), "no compilation unit matches other.c") {
		t.Errorf("other.c: error %v", err)
	}
	if _, err := f.LineAddress("shapes.c", 100000, 0); err == nil || !strings.Contains(err.Error(), "unable to map") {
		t.Errorf("line 100000: error %v", err)
	}
}

func TestNoDWARFAndSeparateDebugFile(t *testing.T) {
	dir := t.TempDir()
	plain := compile(t, dir, "plain", "-O0", "-s")
	if _, err := Open(plain, nil); !errors.Is(err, ErrNoDWARF) {
		t.Errorf("Open(no -g) error = %v, want ErrNoDWARF", err)
	}
	if _, err := exec.LookPath("objcopy"); err != nil {
		t.Skip("no objcopy to split the debug information")
	}
	bin := compile(t, dir, "split", "-g", "-O0")
	dbgDir := filepath.Join(dir, "dbg")
	if err := os.Mkdir(dbgDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--only-keep-debug", bin, filepath.Join(dbgDir, "split.debug")},
		{"--strip-debug", bin},
	} {
		if b, err := exec.Command("objcopy", args...).CombinedOutput(); err != nil {
			t.Fatalf("objcopy %v: %v\n%s", args, err, b)
		}
	}
	if _, err := Open(bin, nil); !errors.Is(err, ErrNoDWARF) {
		t.Fatalf("Open(stripped) without dirs: error = %v, want ErrNoDWARF", err)
	}
	// a debug file of another build is not used
	other := compile(t, dir, "other", "-g", "-O0", "-Wl,--build-id=0xdeadbeef")
	otherDir := filepath.Join(dir, "otherdbg")
	if err := os.Mkdir(otherDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("objcopy", "--only-keep-debug", other, filepath.Join(otherDir, "split.debug")).CombinedOutput(); err != nil {
		t.Fatalf("objcopy: %v\n%s", err, b)
	}
	if _, err := Open(bin, []string{otherDir}); !errors.Is(err, ErrNoDWARF) {
		t.Errorf("Open with another build's debug file: error = %v, want ErrNoDWARF", err)
	}
	f, err := Open(bin, []string{dbgDir})
	if err != nil {
		t.Fatal(err)
	}
	if f.Debug != filepath.Join(dbgDir, "split.debug") {
		t.Errorf("debug file %s", f.Debug)
	}
	if fn, err := f.Func("tally"); err != nil || len(fn.Params) != 1 || fn.Params[0].Decl() != "union word* w" {
		t.Errorf("tally = %+v, %v", fn, err)
	}
}

// TestSplitDWARF: a binary built with -gsplit-dwarf keeps its types and
// parameters in a .dwo file (and, packed with dwp, in a .dwp package); its
// line table stays in the binary.
func TestSplitDWARF(t *testing.T) {
	dir := t.TempDir()
	bin := compile(t, dir, "split", "-g", "-gsplit-dwarf", "-gdwarf-5", "-O0")
	check := func(what string) {
		t.Helper()
		f, err := Open(bin, []string{what}) // a distinct cache key per step
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		fn, err := f.Func("draw")
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if len(fn.Params) != 6 || fn.Params[3].Decl() != "const char* label" {
			t.Errorf("%s: draw params %+v", what, fn.Params)
		}
		if st, err := f.Type("struct shape"); err != nil || st == nil {
			t.Errorf("%s: struct shape = %v, %v", what, st, err)
		}
		line := lineOf(t, "__attribute__((noinline)) int tally") + 1
		if addr, err := f.LineAddress("shapes.c", line, 0); err != nil || addr != symbol(t, bin, "tally") {
			t.Errorf("%s: shapes.c:%d at 0x%x (%v)", what, line, addr, err)
		}
	}
	dwos, _ := filepath.Glob(filepath.Join(dir, "*.dwo"))
	if len(dwos) == 0 {
		// gcc names the .dwo after the object in the working directory
		dwos, _ = filepath.Glob("*.dwo")
		for _, d := range dwos {
			defer os.Remove(d)
		}
	}
	if len(dwos) == 0 {
		t.Skip("gcc wrote no .dwo file")
	}
	check("dwo")
	if _, err := exec.LookPath("dwp"); err != nil {
		return
	}
	if b, err := exec.Command("dwp", append([]string{"-o", bin + ".dwp"}, dwos...)...).CombinedOutput(); err != nil {
		t.Logf("dwp: %v\n%s", err, b)
		return
	}
	pkg, err := elf.Open(bin + ".dwp")
	if err != nil {
		t.Fatal(err)
	}
	usable := pkg.Section(".debug_info.dwo") != nil
	pkg.Close()
	if !usable {
		t.Log("dwp wrote no usable package (binutils' dwp does not pack DWARF 5)")
		return
	}
	for _, d := range dwos {
		os.Remove(d)
	}
	check("dwp")
}
