package provider

import (
	"errors"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/cilium/ebpf/btf"
)

func TestDemangle(t *testing.T) {
	for sym, want := range map[string]string{
		"_ZN2ns1fEi":                         "ns::f(int)",
		"_ZN2ns1fEii":                        "ns::f(int, int)",
		"_ZNSt6vectorIiSaIiEE9push_backERKi": "std::vector<int, std::allocator<int> >::push_back(int const&)",
		"_ZN3FooixEi":                        "Foo::operator[](int)",
		"main":                               "main",
		"_Zbogus":                            "_Zbogus", // not readable: unchanged
	} {
		if got := Demangle(sym); got != want {
			t.Errorf("Demangle(%q) = %q, want %q", sym, got, want)
		}
	}
}

func TestCppMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, sym string
		want         bool
	}{
		{"ns::f", "_ZN2ns1fEi", true},  // parameters left out
		{"ns::f", "_ZN2ns1fEii", true}, // every overload
		{"ns::f(int)", "_ZN2ns1fEi", true},
		{"ns::f(int)", "_ZN2ns1fEii", false},
		{"ns::*", "_ZN2ns1fEi", true},
		{"*(int, int)", "_ZN2ns1fEii", true},
		{"_ZN2ns1fEi", "_ZN2ns1fEi", true}, // the symbol itself
		{"ns::f", "_ZN2ns1gEi", false},
		{"ns", "_ZN2ns1fEi", false},
		{"Foo::operator[]", "_ZN3FooixEi", true}, // [ is no wildcard
		{"cfunc", "cfunc", true},                 // C linkage
		{"c*", "cfunc", true},
		{"ns::f", "ns::f", true}, // not mangled: as written
	} {
		if got := cppMatch(c.pattern, c.sym); got != c.want {
			t.Errorf("cppMatch(%q, %q) = %v, want %v", c.pattern, c.sym, got, c.want)
		}
	}
}

func TestWithoutParams(t *testing.T) {
	for in, want := range map[string]string{
		"ns::f(int)":                "ns::f",
		"ns::f(int (*)(int)) const": "ns::f",
		"ns::g()":                   "ns::g",
		"plain":                     "plain",
		"f(int) [clone .cold]":      "f", // the last parameter list, wherever it ends
		"std::function<void (int)>::operator()(int) const": "std::function<void (int)>::operator()",
	} {
		if got := withoutParams(in); got != want {
			t.Errorf("withoutParams(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStarMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"*", "", true}, {"a*b", "ab", true}, {"a*b", "axxb", true}, {"a*b", "axxbc", false},
		{"*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false}, {"a?", "ab", false}, {"a?", "a?", true},
	} {
		if got := starMatch(c.pattern, c.name); got != c.want {
			t.Errorf("starMatch(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

// cppHost is an ExpandEnv whose one binary has C++ symbols.
type cppHost struct{}

func (cppHost) Tracepoints(string) ([]string, error) { return nil, nil }
func (cppHost) BTF() (*btf.Spec, error)              { return nil, errors.New("no BTF") }
func (cppHost) ResolveBinary(target string) (string, error) {
	return "/fake/" + target, nil
}
func (cppHost) ELFSymbols(string) ([]ELFSymbol, error) {
	return []ELFSymbol{
		{Name: "_ZN2ns1fEi", Value: 0x1000, Size: 8, Func: true},
		{Name: "_ZN2ns1fEii", Value: 0x1010, Size: 8, Func: true},
		{Name: "_ZN2ns3Foo3barEi", Value: 0x1020, Size: 8, Func: true},
		{Name: "cfunc", Value: 0x1030, Size: 8, Func: true},
	}, nil
}

// TestExpandCpp: uprobe:BINARY:cpp:NAME expands to every symbol whose C++
// name matches, named by the mangled symbol; Demangled is set unless
// cpp_demangle is off; another language is refused.
func TestExpandCpp(t *testing.T) {
	expand := func(env ExpandEnv, fn string) ([]string, []string, error) {
		pts, err := uprobeProvider.Expand(env, "uprobe:app:cpp:"+fn, []string{"app", "cpp", fn})
		var names, funcs []string
		for _, p := range pts {
			names = append(names, p.Name)
			funcs = append(funcs, p.FuncName())
		}
		return names, funcs, err
	}
	names, funcs, err := expand(cppHost{}, "ns::f")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"uprobe:/fake/app:cpp:_ZN2ns1fEi", "uprobe:/fake/app:cpp:_ZN2ns1fEii"}; !slices.Equal(names, want) {
		t.Errorf("points %q, want %q", names, want)
	}
	if want := []string{"ns::f(int)", "ns::f(int, int)"}; !slices.Equal(funcs, want) {
		t.Errorf("func %q, want %q", funcs, want)
	}
	_, funcs, _ = expand(WithTarget(cppHost{}, Target{NoCppDemangle: true}), "ns::f")
	if want := []string{"_ZN2ns1fEi", "_ZN2ns1fEii"}; !slices.Equal(funcs, want) {
		t.Errorf("func without demangling %q, want %q", funcs, want)
	}
	if _, _, err := expand(cppHost{}, "ns::nothing"); !errors.Is(err, ErrNoMatch) {
		t.Errorf("no match: error %v, want ErrNoMatch", err)
	}
	_, err = uprobeProvider.Expand(cppHost{}, "uprobe:app:java:f", []string{"app", "java", "f"})
	if err == nil || err.Error() != "unsupported language type: java" {
		t.Errorf("java: error %v, want unsupported language type: java", err)
	}
	if got := uprobeProvider.Listing; got == nil {
		t.Fatal("no Listing hook")
	}
	pts, _ := uprobeProvider.Expand(cppHost{}, "", []string{"app", "cpp", "ns::Foo::bar"})
	if len(pts) != 1 {
		t.Fatalf("ns::Foo::bar: %d points", len(pts))
	}
	if l, _ := uprobeProvider.Listing(pts[0]); l != `uprobe:/fake/app:cpp:"ns::Foo::bar(int)"` {
		t.Errorf("listing %s", l)
	}
}

// TestPidExecutable: with -p, a uprobe without a binary (uprobe:f,
// uprobe:cpp:f) is on the process's executable.
func TestPidExecutable(t *testing.T) {
	pid := os.Getpid()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Skip(err)
	}
	bin := "/proc/" + strconv.Itoa(pid) + "/root" + exe
	for _, c := range []struct{ in, want []string }{
		{[]string{"f"}, []string{bin, "f"}},
		{[]string{"cpp", "f"}, []string{bin, "cpp", "f"}},
		{[]string{"lib", "f"}, []string{"lib", "f"}},
	} {
		if got := pidExecutable(pid, c.in); !slices.Equal(got, c.want) {
			t.Errorf("pidExecutable(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := pidExecutable(0, []string{"f"}); !slices.Equal(got, []string{"f"}) {
		t.Errorf("without -p: %q", got)
	}
}
