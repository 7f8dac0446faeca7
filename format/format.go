package format

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxWidth is the largest width or precision a conversion may have; larger
// ones are rejected by Check, so that a format cannot make the printer
// allocate without bound.
const MaxWidth = 4096

// Spec is one conversion.
type Spec struct {
	Left, Plus, Space, Alt, Zero bool
	Width                        int // 0: none ("*" is accepted and ignored); past MaxWidth when too large to parse
	Precision                    int // -1: none or "*"
	Length                       string
	Verb                         string // "d", "x", "s", "r", "rx", "rh", "gr", "%", ...
}

// Format is a parsed format string: Fragments[i] precedes Specs[i], and
// len(Fragments) == len(Specs)+1. "%%" (and any conversion with verb '%')
// is folded into the fragments.
type Format struct {
	Fragments []string
	Specs     []Spec
	// Offsets[i] is the byte offset of Specs[i]'s '%' in the format, and
	// Texts[i] the conversion as written.
	Offsets []int
	Texts   []string
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// match matches a conversion at s[0] == '%' and returns it and its length.
func match(s string) (Spec, int, bool) {
	sp := Spec{Precision: -1}
	i := 1
	opt := func(c byte) bool {
		if i < len(s) && s[i] == c {
			i++
			return true
		}
		return false
	}
	sp.Left = opt('-')
	sp.Plus = opt('+')
	sp.Space = opt(' ')
	sp.Alt = opt('#')
	sp.Zero = opt('0')
	// num reads a decimal number or '*'; star reports the latter.
	num := func() (n int, star, ok bool) {
		if i < len(s) && s[i] == '*' {
			i++
			return 0, true, true
		}
		j := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == j {
			return 0, false, false
		}
		n, err := strconv.Atoi(s[j:i])
		if err != nil || n > MaxWidth {
			n = MaxWidth + 1
		}
		return n, false, true
	}
	sp.Width, _, _ = num()
	if i+1 < len(s) && s[i] == '.' {
		save := i
		i++
		if p, star, ok := num(); ok {
			if !star {
				sp.Precision = p
			}
		} else {
			i = save
		}
	}
	j := i
	for i < len(s) && strings.IndexByte("hlLjzt", s[i]) >= 0 {
		i++
	}
	sp.Length = s[j:i]
	if i >= len(s) {
		return sp, 0, false
	}
	rest := s[i:]
	switch {
	case strings.IndexByte("diouxXeEfFGaAcspn%", rest[0]) >= 0:
		sp.Verb = rest[:1]
	case strings.HasPrefix(rest, "gr"):
		sp.Verb = "gr"
	case rest[0] == 'g':
		sp.Verb = "g"
	case strings.HasPrefix(rest, "rh"):
		sp.Verb = "rh"
	case strings.HasPrefix(rest, "rx"):
		sp.Verb = "rx"
	case rest[0] == 'r':
		sp.Verb = "r"
	default:
		return sp, 0, false
	}
	return sp, i + len(sp.Verb), true
}

// Parse splits a format string into literal fragments and conversions.
func Parse(format string) *Format {
	f := &Format{}
	var frag strings.Builder
	for i := 0; i < len(format); {
		if format[i] != '%' {
			frag.WriteByte(format[i])
			i++
			continue
		}
		sp, n, ok := match(format[i:])
		if !ok {
			frag.WriteByte('%')
			i++
			continue
		}
		if sp.Verb == "%" {
			frag.WriteByte('%')
			i += n
			continue
		}
		f.Fragments = append(f.Fragments, frag.String())
		frag.Reset()
		f.Specs = append(f.Specs, sp)
		f.Offsets = append(f.Offsets, i)
		f.Texts = append(f.Texts, format[i:i+n])
		i += n
	}
	f.Fragments = append(f.Fragments, frag.String())
	return f
}

// Arg is the kind of value a conversion prints.
type Arg int

// Argument kinds.
const (
	Integer Arg = iota + 1 // integers, booleans and pointers: d i u o x X c p gr
	Buffer                 // buf() results, byte arrays and strings: r rx rh
	Any                    // any value: s
)

// Arg returns the kind of value sp prints, or an error for a verb gotrace
// does not print: the floating-point verbs and %n, which bpftrace rejects
// too.
func (sp Spec) Arg() (Arg, error) {
	switch sp.Verb {
	case "d", "i", "u", "o", "x", "X", "c", "p":
		return Integer, nil
	case "r", "rx", "rh":
		return Buffer, nil
	case "s":
		return Any, nil
	case "gr": // GFP flags, by name
		return Integer, nil
	}
	return 0, fmt.Errorf("unsupported format specifier %%%s", sp.Verb)
}

// Error is a rejected conversion: Offset is the byte offset of its '%' in
// the format.
type Error struct {
	Offset int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Check reports the conversions of f that cannot be printed: unsupported
// verbs, and widths or precisions past MaxWidth.
func (f *Format) Check() []*Error {
	var errs []*Error
	for i, sp := range f.Specs {
		if _, err := sp.Arg(); err != nil {
			errs = append(errs, &Error{Offset: f.Offsets[i], Msg: err.Error()})
			continue
		}
		if sp.Width > MaxWidth || sp.Precision > MaxWidth {
			errs = append(errs, &Error{Offset: f.Offsets[i], Msg: fmt.Sprintf("%s: width and precision may be at most %d", f.Texts[i], MaxWidth)})
		}
	}
	return errs
}
