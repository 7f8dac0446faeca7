package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildShapes compiles the DWARF test program (internal/debuginfo's
// testdata) with the given flags.
func buildShapes(t *testing.T, name string, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler (gcc) to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), name)
	args := append(append([]string{}, flags...), "-o", bin, "../internal/debuginfo/testdata/shapes.c")
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	return bin
}

// TestDwarfArgs: uprobe args by name with their DWARF types (signed and
// unsigned widths, enum, typedef, user strings), struct pointer member
// access (char array, bitfields, nested pointer, union), a cast to a
// struct only the binary's DWARF has, print(args) and args in a map.
func TestDwarfArgs(t *testing.T) {
	bin := buildShapes(t, "shapes", "-g", "-O0")
	script := `uprobe:` + bin + `:draw /@seen == 0/ {
  printf("%d %d %d %s %d %d\n", args.dx, args.scale, args.n, str(args.label), args.c, args->s->id);
  printf("%s %d %d %d %d\n", args.s->name, args.s->flags, args.s->kind, args.s->origin->y, ((struct shape *)arg0)->corners[1].x);
  print(args.dx);
  @last = args.scale;
  @seen = 1;
}
uprobe:` + bin + `:tally { @w[args.w->bytes[0], args.w->u] = 1; exit(); }`
	got := run(t, "-c", bin, "-e", script)
	want := "-3 1000 6 hi 2 42\nsquare 5 17 9 3\n-3\n\n\n@last: 1000\n@seen: 1\n@w[4, 16909060]: 1\n"
	wantOutput(t, got, want, 0)
}

// TestDwarfPrintArgs: args as a whole is a record of the parameters, in
// print() and as a map value.
func TestDwarfPrintArgs(t *testing.T) {
	bin := buildShapes(t, "shapes", "-g", "-O0")
	got := run(t, "-c", bin, "-e", `uprobe:`+bin+`:draw { $a = args; print(($a.dx, $a.c, $a.n)); @ = args; exit(); }`)
	if got.code != 0 || !strings.HasPrefix(got.stdout, "(-3, GREEN, 6)\n") {
		t.Fatalf("exit %d; stdout %q; stderr %s", got.code, got.stdout, got.stderr)
	}
	var rec string
	for _, l := range strings.Split(got.stdout, "\n") {
		if strings.HasPrefix(l, "@: ") {
			rec = l
		}
	}
	// pointers vary from run to run: blank them
	fields := strings.Split(rec, ", ")
	for i, f := range fields {
		if strings.Contains(f, "= 0x") {
			fields[i] = f[:strings.Index(f, "0x")] + "PTR"
		}
	}
	want := "@: { .s = PTR, .dx = -3, .scale = 1000, .label = PTR, .c = GREEN, .n = 6 }"
	if got := strings.Join(fields, ", "); got != want {
		t.Errorf("@ = %q, want %q", got, want)
	}
}

// TestDwarfList: -lv lists the parameters DWARF gives each function.
func TestDwarfList(t *testing.T) {
	bin := buildShapes(t, "shapes", "-g", "-O0")
	got := run(t, "-lv", "uprobe:"+bin+":[dt]?[al]*")
	want := "uprobe:" + bin + ":draw\n    struct shape* s\n    int8_t dx\n    uint64_t scale\n    const char* label\n    enum color c\n    ulong_t n\n" +
		"uprobe:" + bin + ":tally\n    union word* w\n"
	wantOutput(t, got, want, 0)
}

// TestDwarfErrors: what args cannot place, and a binary without DWARF, are
// positioned errors.
func TestDwarfErrors(t *testing.T) {
	bin := buildShapes(t, "shapes", "-g", "-O0")
	nodbg := buildShapes(t, "nodbg", "-O0")
	for _, c := range []struct{ script, want string }{
		{`uprobe:` + bin + `:mix { print(args.ratio); }`, "argument ratio (double) of mix cannot be read: floating-point arguments are passed in SSE registers"},
		{`uprobe:` + bin + `:mix { print(args.p); }`, "argument p (struct point) of mix cannot be read: it is passed by value in registers"},
		{`uprobe:` + nodbg + `:draw { print(args.dx); }`, "args needs DWARF debug information: the binary has none"},
	} {
		got := run(t, "-e", c.script)
		if got.code == 0 || !strings.Contains(got.stderr, c.want) || !strings.Contains(got.stderr, "ERROR") {
			t.Errorf("%s: exit %d, stderr %q, want %q", c.script, got.code, got.stderr, c.want)
		}
	}
}
