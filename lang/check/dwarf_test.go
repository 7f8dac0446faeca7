package check_test

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// dwarfBinary builds internal/debuginfo's test program with gcc -g.
func dwarfBinary(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler (gcc) to build the program whose DWARF is read")
	}
	bin := filepath.Join(t.TempDir(), "shapes")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", bin, "../../internal/debuginfo/testdata/shapes.c").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// TestDwarfArgsType: a uprobe's args is a record of the parameters DWARF
// gives, each at 8 times its SysV register number, with user pointers;
// struct types of the binary resolve in casts.
func TestDwarfArgsType(t *testing.T) {
	bin := dwarfBinary(t)
	src := `uprobe:` + bin + `:draw { @a = args.dx; @b = args.s->origin->y; @c = ((struct shape *)arg0)->kind; @d = (ulong_t)arg5; print(args); }`
	file, err := syntax.Parse("dwarf.bt", src)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := check.Check(file, testEnv(t), check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	at := prog.Probes[0].Info.ArgsType
	if at == nil {
		t.Fatal("no args type")
	}
	var got []string
	for _, f := range at.Fields {
		got = append(got, f.Name+":"+f.Type.String()+"@"+strconv.Itoa(f.Offset))
	}
	want := "s:struct shape *@0 dx:int8@8 scale:uint64@16 label:int8 *@24 c:uint32@32 n:uint64@40"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("args = %s\nwant   %s", g, want)
	}
	if at.Size != 48 {
		t.Errorf("args size %d, want 48", at.Size)
	}
}

// TestDwarfArgsErrors: parameters args cannot read, and functions DWARF
// does not describe, are errors at the use of args.
func TestDwarfArgsErrors(t *testing.T) {
	bin := dwarfBinary(t)
	for _, c := range []struct{ src, want string }{
		{`uprobe:` + bin + `:mix { @ = args.ratio; }`, `dwarf.bt:1:\d+-\d+: ERROR: argument ratio \(double\) of mix cannot be read: floating-point`},
		{`uprobe:` + bin + `:mix { @ = args.p.x; }`, `dwarf.bt:1:\d+-\d+: ERROR: argument p \(struct point\) of mix cannot be read: it is passed by value in registers`},
		{`uprobe:` + bin + `:mix { @ = args.nosuch; }`, `has no argument "nosuch" \(arguments: k\)`},
		{`uprobe:` + bin + `:_start { @ = args; }`, `args needs DWARF debug information for _start: the DWARF of .* does not describe it`},
		{`uretprobe:` + bin + `:draw { @ = args.dx; }`, `args is not available in uretprobe probes`},
	} {
		file, err := syntax.Parse("dwarf.bt", c.src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = check.Check(file, testEnv(t), check.Options{})
		if err == nil {
			t.Errorf("%s: no error, want %s", c.src, c.want)
			continue
		}
		if ok, _ := regexp.MatchString(c.want, err.Error()); !ok {
			t.Errorf("%s: error %q, want %s", c.src, err, c.want)
		}
	}
}
