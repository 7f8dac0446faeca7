package lang

import (
	"strconv"

	"github.com/cilium/ebpf/btf"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
)

// preprocess evaluates the C preamble of a script: conditionals on macros
// (#ifdef, #ifndef, #if defined(X), #else, #endif), #define of integer and
// string constants, and #include lines, which need no headers: kernel
// types come from BTF, so an include is accepted and types the script
// names are looked up in BTF when used. BPFTRACE_HAVE_BTF is defined when
// the kernel has BTF, as in bpftrace. C type definitions in active regions
// (struct, union, enum, typedef) define script types (cdefs.go).
func (c *checker) preprocess(defs []*ast.CDef) {
	c.defines = map[string]Const{}
	c.ctypes = map[string]btf.Type{}
	defined := map[string]bool{}
	// BPFTRACE_HAVE_BTF is looked up only when a conditional asks: loading
	// the kernel's BTF costs milliseconds.
	isDefined := func(name string) bool {
		if name == "BPFTRACE_HAVE_BTF" && !defined[name] && c.env != nil {
			if spec, err := c.env.BTF(); err == nil && spec != nil {
				defined[name] = true
			}
		}
		return defined[name]
	}
	// active[i] tells whether the i-th nested conditional's current branch
	// is taken; taken[i] whether one of its branches was.
	var active, taken []bool
	on := func() bool {
		for _, a := range active {
			if !a {
				return false
			}
		}
		return true
	}
	for _, d := range defs {
		text := strings.TrimSpace(d.Text)
		if !strings.HasPrefix(text, "#") {
			if on() {
				c.cDefinition(d)
			}
			continue
		}
		directive, rest, _ := strings.Cut(strings.TrimSpace(text[1:]), " ")
		rest = strings.TrimSpace(rest)
		switch directive {
		case "ifdef", "ifndef", "if":
			name := rest
			if directive == "if" {
				name = strings.TrimSuffix(strings.TrimPrefix(strings.ReplaceAll(rest, " ", ""), "defined("), ")")
			}
			cond := isDefined(name)
			if directive == "ifndef" {
				cond = !cond
			}
			active = append(active, cond)
			taken = append(taken, cond)
		case "else":
			if len(active) == 0 {
				c.errorf(d.Pos(), "#else without #if")
				continue
			}
			active[len(active)-1] = !taken[len(taken)-1]
		case "endif":
			if len(active) == 0 {
				c.errorf(d.Pos(), "#endif without #if")
				continue
			}
			active, taken = active[:len(active)-1], taken[:len(taken)-1]
		case "include":
			// Kernel types come from BTF.
		case "define":
			if !on() {
				continue
			}
			name, value, _ := strings.Cut(rest, " ")
			value = strings.TrimSpace(value)
			defined[name] = true
			if cv, ok := parseDefine(value); ok {
				c.defines[name] = cv
			}
		case "undef":
			if on() {
				delete(defined, rest)
				delete(c.defines, rest)
			}
		default:
			if on() {
				c.errorf(d.Pos(), "preprocessor directive #%s is not supported", directive)
			}
		}
	}
	if len(active) != 0 && len(defs) > 0 {
		c.errorf(defs[len(defs)-1].Pos(), "missing #endif")
	}
}

// parseDefine reads the value of a #define: an integer (decimal, hex,
// octal, with an optional integer suffix), a string, or a parenthesised
// one of those.
func parseDefine(v string) (Const, bool) {
	v = strings.TrimSpace(v)
	for strings.HasPrefix(v, "(") && strings.HasSuffix(v, ")") {
		v = strings.TrimSpace(v[1 : len(v)-1])
	}
	if s, err := strconv.Unquote(v); err == nil && strings.HasPrefix(v, `"`) {
		return Const{IsStr: true, Str: s}, true
	}
	neg := strings.HasPrefix(v, "-")
	v = strings.TrimRight(strings.TrimPrefix(v, "-"), "uUlL")
	n, err := strconv.ParseUint(v, 0, 64)
	if err != nil {
		return Const{}, false
	}
	if neg {
		n = -n
	}
	return Const{Int: n}, true
}
