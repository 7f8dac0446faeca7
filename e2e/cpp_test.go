package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// buildShop compiles the traced C++ program (testdata/cpp/shop.cc), a
// position-independent executable without debug information.
func buildShop(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("g++"); err != nil {
		t.Skip("no C++ compiler (g++) to build the traced program")
	}
	bin := filepath.Join(t.TempDir(), "shop")
	if out, err := exec.Command("g++", "-O0", "-o", bin, "testdata/cpp/shop.cc").CombinedOutput(); err != nil {
		t.Fatalf("g++: %v\n%s", err, out)
	}
	return bin
}

// cppScript traces shop's C++ functions by their C++ names: overloads
// by name alone and with a parameter list, a wildcard over a class's
// methods, a function also spelled without the prefix, one with C
// linkage; func, probe, ustack and usym show the names.
func cppScript(bin string) string {
	return strings.NewReplacer("BIN", bin).Replace(`uprobe:BIN:cpp:"shop::price" { printf("%s %d\n", func, arg0); }
uprobe:BIN:cpp:"shop::Cart::*" { printf("%s %s %d\n", probe, func, arg1); }
uprobe:BIN:cpp:"shop::price(int, int)" { printf("two %s\n", func); }
uprobe:BIN:cpp:total { print(ustack(1)); printf("%s\n", usym(reg("ip"))); }
uprobe:BIN:cpp:receipt { printf("%s %s\n", probe, func); exit(); }`)
}

// TestCppUprobes: bpftrace 0.27.1's output for the same script and
// program: C++ names in attach points match the demangled symbols (the
// parameter list only when the pattern writes one), the probe builtin
// keeps the mangled symbol, and func, ustack and usym are demangled.
func TestCppUprobes(t *testing.T) {
	bin := buildShop(t)
	got := run(t, "-c", bin, "-e", cppScript(bin))
	want := `shop::price(int) 2
shop::price(int, int) 3
two shop::price(int, int)
uprobe:` + bin + `:cpp:_ZN4shop4Cart3addEi shop::Cart::add(int) 5

        total(int)+0

total(int)
uprobe:` + bin + `:cpp:receipt receipt


`
	wantOutput(t, got, want, 0)
	if !strings.Contains(got.stderr, "Attached 6 probes") {
		t.Errorf("stderr %q, want Attached 6 probes (two overloads of shop::price)", got.stderr)
	}
	// Symbols read again for every address: the same names.
	t.Setenv("BPFTRACE_CACHE_USER_SYMBOLS", "NONE")
	wantOutput(t, run(t, "-c", bin, "-e", cppScript(bin)), want, 0)
}

// TestCppNoDemangle: with BPFTRACE_CPP_DEMANGLE=0 (or config
// cpp_demangle = 0) the names stay mangled in output; attach points still
// match C++ names.
func TestCppNoDemangle(t *testing.T) {
	bin := buildShop(t)
	want := `_ZN4shop5priceEi 2
_ZN4shop5priceEii 3
two _ZN4shop5priceEii
uprobe:` + bin + `:cpp:_ZN4shop4Cart3addEi _ZN4shop4Cart3addEi 5

        _Z5totali+0

_Z5totali
uprobe:` + bin + `:cpp:receipt receipt


`
	wantOutput(t, run(t, "-c", bin, "-e", "config = { cpp_demangle = 0 } "+cppScript(bin)), want, 0)
	t.Setenv("BPFTRACE_CPP_DEMANGLE", "0")
	wantOutput(t, run(t, "-c", bin, "-e", cppScript(bin)), want, 0)
}

// TestCppList: -l lists a program's C++ probes by their demangled names,
// quoted so that each line is an attach point; a search with the cpp
// prefix lists the same way (bpftrace 0.27.1 lists nothing for it).
func TestCppList(t *testing.T) {
	bin := buildShop(t)
	got := run(t, "-l", "-e", `uprobe:`+bin+`:cpp:"shop::price" {} uprobe:`+bin+`:cpp:"shop::Cart::*" {}`)
	want := `uprobe:` + bin + `:cpp:"shop::price(int)"
uprobe:` + bin + `:cpp:"shop::price(int, int)"
uprobe:` + bin + `:cpp:"shop::Cart::add(int)"
`
	wantOutput(t, got, want, 0)
	want = `uprobe:` + bin + `:cpp:"shop::Cart::add(int)"
uprobe:` + bin + `:cpp:"shop::price(int)"
uprobe:` + bin + `:cpp:"shop::price(int, int)"
`
	wantOutput(t, run(t, "-l", "uprobe:"+bin+":cpp:shop::*"), want, 0)
}

// TestCppErrors: a language other than cpp, and a C++ name that matches
// nothing, are errors at the attach point.
func TestCppErrors(t *testing.T) {
	bin := buildShop(t)
	for _, c := range []struct{ probe, msg string }{
		{`uprobe:` + bin + `:java:total`, "ERROR: unsupported language type: java"},
		{`uprobe:` + bin + `:cpp:"shop::nothing"`, "ERROR: Probe has no valid attach points"},
	} {
		got := run(t, "-e", c.probe+" { exit(); }")
		if got.code != 1 || !strings.Contains(got.stderr, "stdin:1:1-") || !strings.Contains(got.stderr, c.msg) {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q at the attach point", c.probe, got.code, got.stderr, c.msg)
		}
	}
}
