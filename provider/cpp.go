package provider

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// LangCpp is the language prefix of C++ uprobes:
// uprobe:BINARY:cpp:FUNCTION names FUNCTION as C++ source spells it
// (ns::Class::method, with or without its parameter list).
const LangCpp = "cpp"

// Mangled reports whether a symbol has a C++ (Itanium ABI) mangled name.
func Mangled(sym string) bool {
	return strings.HasPrefix(sym, "_Z") || strings.HasPrefix(sym, "____Z")
}

// Demangle returns the C++ name of a mangled symbol with its parameter
// list, as c++filt prints it (_ZN2ns1fEi is ns::f(int)); other symbols,
// and mangled names it cannot read, are returned unchanged.
func Demangle(sym string) string {
	if !Mangled(sym) {
		return sym
	}
	if s, err := demangle.ToString(sym); err == nil {
		return s
	}
	return sym
}

// cppMatch reports whether the function symbol sym matches the pattern of
// a C++ uprobe, as bpftrace matches it: the symbol itself, or its
// demangled name, without the parameter list unless the pattern writes
// one ("ns::f" matches ns::f(int) and ns::f(int, int); "ns::f(int)" only
// the first). Only * is a wildcard: C++ names hold [ and ?.
func cppMatch(pattern, sym string) bool {
	if starMatch(pattern, sym) {
		return true
	}
	if !Mangled(sym) {
		return false
	}
	name := Demangle(sym)
	if name == sym {
		return false
	}
	if !strings.Contains(pattern, "(") {
		name = withoutParams(name)
	}
	return starMatch(pattern, name)
}

// withoutParams cuts the parameter list off a demangled function name:
// from the parenthesis that opens the last balanced (...) group
// ("ns::f(int (*)(int)) const" is ns::f).
func withoutParams(name string) string {
	end := strings.LastIndexByte(name, ')')
	if end < 0 {
		return name
	}
	depth := 0
	for i := end; i >= 0; i-- {
		switch name[i] {
		case ')':
			depth++
		case '(':
			depth--
		}
		if depth == 0 {
			return name[:i]
		}
	}
	return name
}

// starMatch matches name against a pattern whose only wildcard is * (the
// two-pointer match: linear backtracking to the last star).
func starMatch(pattern, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, n
			p++
		case p < len(pattern) && pattern[p] == name[n]:
			p++
			n++
		case star >= 0:
			mark++
			p, n = star+1, mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
