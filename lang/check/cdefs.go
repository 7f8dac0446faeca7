package check

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/preamble"
	"github.com/gotrace/gotrace/lang/srcpos"
)

// preprocess runs the preprocessor over the script's preamble and its
// imports' (preamble.Preprocess) and defines the C types of the
// definitions it leaves active, before the preprocessor's constants
// (preamble.Constants), which a #define of an enumerator's name overrides.
func (c *checker) preprocess(file *ast.File) {
	c.defines = map[string]builtin.Const{}
	c.enums = map[string]*btf.Enum{}
	c.ctypes = map[string]btf.Type{}
	for _, d := range c.pre.Preprocess(file) {
		c.cDefinition(d)
	}
	c.shadowedKernelTypes()
	c.pre.Constants(file, c.defines)
}

// cDefinition parses a C type definition of the preamble — struct, union
// or enum, optionally wrapped in a typedef — and records it so that casts,
// sizeof and member access find it before kernel BTF. Members may use the
// C integer types, pointers, arrays, bitfields, and struct/union/enum types
// defined earlier in the script or found in kernel BTF. Layout follows the
// C rules: natural alignment, padding to the largest member.
func (c *checker) cDefinition(d *ast.CDef) {
	toks, offs := preamble.CTokenOffsets(d.Text)
	p := &cParser{c: c, def: d, toks: toks, offs: offs, pos: d.Pos()}
	if err := p.definition(); err != nil {
		var at srcpos.Spanned = d
		var pe *spanError
		if errors.As(err, &pe) {
			at = pe.at
		}
		c.errorf(at, "C definition: %v", err)
	}
}

// spanError is an error of a C definition at a part of it.
type spanError struct {
	at  srcpos.Span
	err error
}

func (e *spanError) Error() string { return e.err.Error() }
func (e *spanError) Unwrap() error { return e.err }

// kernelMember is a member of a script definition whose type, by value,
// is a kernel type.
type kernelMember struct {
	at           srcpos.Span // the member's declaration
	member, name string
}

// shadowedKernelTypes applies bpftrace's rule for script definitions and
// kernel BTF: the script's definitions shadow BTF, and once one redefines
// a kernel type (struct task_struct), no kernel type is used for them,
// so a member of a kernel type by value is incomplete: an error naming
// it, as clang reports it. Pointers to kernel types keep the kernel's
// type.
func (c *checker) shadowedKernelTypes() {
	if len(c.kernelMembers) == 0 {
		return
	}
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return
	}
	names := make([]string, 0, len(c.ctypes))
	for name := range c.ctypes {
		names = append(names, name)
	}
	sort.Strings(names)
	redefined := ""
	for _, name := range names {
		if _, err := lookupKernelType(spec, name); err == nil {
			redefined = name
			break
		}
	}
	if redefined == "" {
		return
	}
	for _, m := range c.kernelMembers {
		c.errorf(m.at, "C definition: field %s has incomplete type '%s': the script redefines %s, a kernel type, so its definitions take no types from kernel BTF (define %s too, or use a pointer)", m.member, m.name, redefined, m.name)
	}
}

type cParser struct {
	c    *checker
	def  *ast.CDef
	toks []string
	offs []int // the byte offset of each token in def.Text
	i    int
	pos  srcpos.Pos
	// open holds the structs and unions whose bodies are being parsed: a
	// member of one of these types (not through a pointer) would make the
	// type contain itself.
	open map[btf.Type]bool
	// kernel names the kernel type the last named() returned, "" when it
	// was the script's.
	kernel string
}

// MaxTypeSize is the largest struct, union or array a script may define:
// member offsets are kept in bits in 32-bit BTF fields.
const MaxTypeSize = 1<<29 - 1

// span is the source span of tokens [from, to) of the definition, or the
// whole definition's when its text is not the script's verbatim (a
// macro's expansion).
func (p *cParser) span(from, to int) srcpos.Span {
	d := p.def
	if from >= to || to > len(p.toks) || d.End.Offset-d.Start.Offset != len(d.Text) {
		return d.Span
	}
	start := d.Start.Advance(d.Text[:p.offs[from]])
	end := start.Advance(d.Text[p.offs[from] : p.offs[to-1]+len(p.toks[to-1])])
	return srcpos.Span{Start: start, End: end}
}

func (p *cParser) peek() string {
	if p.i < len(p.toks) {
		return p.toks[p.i]
	}
	return ""
}

func (p *cParser) next() string {
	t := p.peek()
	p.i++
	return t
}

func (p *cParser) expect(t string) error {
	if got := p.next(); got != t {
		return fmt.Errorf("expected %q, found %q", t, got)
	}
	return nil
}

func (p *cParser) definition() error {
	typedef := false
	if p.peek() == "typedef" {
		p.next()
		typedef = true
	}
	t, err := p.typeSpec(true)
	if err != nil {
		return err
	}
	if typedef {
		name := p.next()
		if name == "" || name == ";" {
			return fmt.Errorf("typedef needs a name")
		}
		p.c.ctypes[name] = &btf.Typedef{Name: name, Type: t}
	}
	if p.peek() == ";" {
		p.next()
	}
	if p.peek() != "" {
		return fmt.Errorf("unexpected %q after the definition", p.peek())
	}
	return nil
}

// typeSpec parses a type specifier; with define set, a struct, union or
// enum body defines the type.
func (p *cParser) typeSpec(define bool) (btf.Type, error) {
	for p.peek() == "const" || p.peek() == "volatile" {
		p.next()
	}
	switch kw := p.peek(); kw {
	case "struct", "union":
		p.next()
		name := ""
		if p.peek() != "{" {
			name = p.next()
		}
		if p.peek() != "{" {
			return p.named(kw + " " + name)
		}
		return p.composite(kw, name)
	case "enum":
		p.next()
		name := ""
		if p.peek() != "{" {
			name = p.next()
		}
		if p.peek() != "{" {
			if t, err := p.named("enum " + name); err == nil {
				return t, nil
			}
			return &btf.Int{Name: "int", Size: 4, Encoding: btf.Signed}, nil
		}
		return p.enum(name)
	}
	// C integer types: a run of keywords such as "unsigned long long".
	var words []string
	for {
		w := p.peek()
		if w == "unsigned" || w == "signed" || w == "long" || w == "short" || w == "int" || w == "char" {
			words = append(words, p.next())
			continue
		}
		break
	}
	if len(words) > 0 {
		name := strings.Join(words, " ")
		if name == "unsigned" || name == "signed" {
			name += " int"
		}
		it := p.c.cIntType(name)
		if it == nil {
			return nil, fmt.Errorf("unknown type %q", name)
		}
		enc := btf.IntEncoding(0)
		if it.Signed {
			enc = btf.Signed
		}
		return &btf.Int{Name: name, Size: uint32(it.Size), Encoding: enc}, nil
	}
	name := p.next()
	switch name {
	case "void":
		return &btf.Void{}, nil
	case "bool", "_Bool":
		return &btf.Int{Name: "_Bool", Size: 1, Encoding: btf.Bool}, nil
	case "float":
		return &btf.Float{Name: "float", Size: 4}, nil
	case "double":
		return &btf.Float{Name: "double", Size: 8}, nil
	}
	if it := p.c.cIntType(name); it != nil {
		enc := btf.IntEncoding(0)
		if it.Signed {
			enc = btf.Signed
		}
		return &btf.Int{Name: name, Size: uint32(it.Size), Encoding: enc}, nil
	}
	if it := intTypeByName(name); it != nil {
		enc := btf.IntEncoding(0)
		if it.Signed {
			enc = btf.Signed
		}
		return &btf.Int{Name: name, Size: uint32(it.Size), Encoding: enc}, nil
	}
	return p.named(name)
}

// named finds a type defined earlier in the script or in kernel BTF.
func (p *cParser) named(name string) (btf.Type, error) {
	if t, ok := p.c.ctypes[name]; ok {
		return t, nil
	}
	spec, err := p.c.env.BTF()
	if err != nil || spec == nil {
		return nil, fmt.Errorf("unknown type %q (no kernel BTF to look it up)", name)
	}
	t, err := lookupKernelType(spec, name)
	if err != nil {
		return nil, fmt.Errorf("unknown type %q", name)
	}
	p.kernel = name
	return t, nil
}

func (p *cParser) composite(kind, name string) (btf.Type, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	// Registered before the members, so that they can point to it.
	var st *btf.Struct
	var un *btf.Union
	if kind == "struct" {
		st = &btf.Struct{Name: name}
	} else {
		un = &btf.Union{Name: name}
	}
	var self btf.Type = un
	if st != nil {
		self = st
	}
	if name != "" {
		p.c.ctypes[kind+" "+name] = self
	}
	if p.open == nil {
		p.open = map[btf.Type]bool{}
	}
	p.open[self] = true
	defer delete(p.open, self)
	packed, aligned := p.attributesAfterBody()
	var members []btf.Member
	size, align := 0, 1
	bitPos := 0 // for bitfields: bit offset of the next bitfield
	for p.peek() != "}" {
		if p.peek() == "" {
			return nil, fmt.Errorf("missing }")
		}
		p.kernel = ""
		first := p.i
		base, err := p.typeSpec(true)
		if err != nil {
			var pe *spanError
			if errors.As(err, &pe) {
				return nil, err // a nested definition's member
			}
			return nil, &spanError{at: p.span(first, min(p.i, len(p.toks))), err: err}
		}
		kernel := p.kernel
		p.kernel = ""
		for {
			t := base
			byValue := true
			for p.peek() == "*" {
				p.next()
				t = &btf.Pointer{Target: t}
				byValue = false
			}
			mname := ""
			if p.peek() != ";" && p.peek() != ":" {
				mname = p.next()
			}
			if kernel != "" && byValue {
				p.c.kernelMembers = append(p.c.kernelMembers, kernelMember{at: p.span(first, p.i), member: mname, name: kernel})
			}
			// a[] is a flexible array.
			var dims []uint64
			for p.peek() == "[" {
				p.next()
				n := uint64(0)
				if p.peek() != "]" {
					var err error
					if n, err = strconv.ParseUint(p.next(), 0, 32); err != nil {
						return nil, fmt.Errorf("array length must be a number")
					}
				}
				if err := p.expect("]"); err != nil {
					return nil, err
				}
				dims = append(dims, n)
			}
			if p.open[t] {
				return nil, fmt.Errorf("member %s: %s contains itself (use a pointer)", mname, compositeName(t))
			}
			// int x[2][3] is an array of 2 arrays of 3 ints.
			for i := len(dims) - 1; i >= 0; i-- {
				t = &btf.Array{Index: &btf.Int{Name: "int", Size: 4}, Type: t, Nelems: uint32(dims[i])}
			}
			msize, err := cSizeof(t)
			if err != nil {
				return nil, fmt.Errorf("member %s: %w", mname, err)
			}
			malign := alignOf(t)
			if packed {
				malign = 1
			}
			m := btf.Member{Name: mname, Type: t}
			if p.peek() == ":" {
				p.next()
				bits, err := strconv.ParseUint(p.next(), 0, 8)
				if err != nil || bits == 0 || int(bits) > msize*8 {
					return nil, fmt.Errorf("bad bitfield width for %s", mname)
				}
				// Pack into the current storage unit when it fits.
				unit := msize * 8
				if bitPos == 0 || bitPos/unit != (bitPos+int(bits)-1)/unit {
					start := (size + malign - 1) / malign * malign
					if bitPos > 0 {
						start = (bitPos + unit - 1) / unit * unit / 8
					}
					bitPos = start * 8
				}
				m.Offset = btf.Bits(bitPos)
				m.BitfieldSize = btf.Bits(bits)
				bitPos += int(bits)
				if kind == "struct" {
					size = max(size, (bitPos+7)/8)
				}
			} else {
				if bitPos > 0 {
					size = max(size, (bitPos+7)/8)
					bitPos = 0
				}
				off := 0
				if kind == "struct" {
					off = (size + malign - 1) / malign * malign
					size = off + msize
				} else {
					size = max(size, msize)
				}
				m.Offset = btf.Bits(off * 8)
			}
			if size > MaxTypeSize {
				return nil, fmt.Errorf("member %s: %s is larger than %d bytes", mname, kind, MaxTypeSize)
			}
			align = max(align, malign)
			members = append(members, m)
			if p.peek() == "," {
				p.next()
				continue
			}
			break
		}
		if p.peek() == "}" {
			break // the last member's ";" is optional, as bpftrace's parser has it
		}
		if err := p.expect(";"); err != nil {
			return nil, err
		}
	}
	p.next() // }
	p.skipAttributes()
	p.kernel = ""
	if aligned > 0 && (packed || aligned > align) {
		align = aligned
	}
	size = (size + align - 1) / align * align
	if st != nil {
		st.Size, st.Members = uint32(size), members
		return st, nil
	}
	un.Size, un.Members = uint32(size), members
	return un, nil
}

// attributesAfterBody looks past the body that starts at the current
// token for `__attribute__((packed))` and `__attribute__((aligned(N)))`
// (N 0 when absent); the tokens are left in place.
func (p *cParser) attributesAfterBody() (packed bool, aligned int) {
	depth, i := 1, p.i
	for ; i < len(p.toks) && depth > 0; i++ {
		switch p.toks[i] {
		case "{":
			depth++
		case "}":
			depth--
		}
	}
	save := p.i
	defer func() { p.i = save }()
	p.i = i
	for p.peek() == "__attribute__" {
		start := p.i
		p.skipAttributes()
		for _, t := range p.toks[start:p.i] {
			if t == "packed" || t == "__packed__" {
				packed = true
			}
		}
		for j := start; j+2 < p.i; j++ {
			if a := p.toks[j]; (a == "aligned" || a == "__aligned__") && p.toks[j+1] == "(" {
				if n, err := strconv.Atoi(p.toks[j+2]); err == nil && n > 0 && n&(n-1) == 0 {
					aligned = n
				}
			}
		}
	}
	return packed, aligned
}

// skipAttributes skips `__attribute__((...))` specifiers.
func (p *cParser) skipAttributes() {
	for p.peek() == "__attribute__" {
		p.next()
		depth := 0
		for p.peek() != "" {
			t := p.next()
			if t == "(" {
				depth++
			} else if t == ")" {
				depth--
				if depth <= 0 {
					break
				}
			}
		}
	}
}

func (p *cParser) enum(name string) (btf.Type, error) {
	if err := p.expect("{"); err != nil {
		return nil, err
	}
	e := &btf.Enum{Name: name, Size: 4, Signed: true}
	next := int64(0)
	for p.peek() != "}" {
		vname := p.next()
		if vname == "" {
			return nil, fmt.Errorf("missing }")
		}
		if p.peek() == "=" {
			p.next()
			neg := false
			if p.peek() == "-" {
				p.next()
				neg = true
			}
			v, err := strconv.ParseInt(p.next(), 0, 64)
			if err != nil {
				return nil, fmt.Errorf("enum value of %s must be a number", vname)
			}
			if neg {
				v = -v
			}
			next = v
		}
		e.Values = append(e.Values, btf.EnumValue{Name: vname, Value: uint64(next)})
		p.c.defines[vname] = builtin.Const{Int: uint64(next)}
		p.c.enums[vname] = e
		next++
		if p.peek() == "," {
			p.next()
		}
	}
	p.next() // }
	if name != "" {
		p.c.ctypes["enum "+name] = e
	}
	return e, nil
}

// cSizeof is the size of a member type, refused past MaxTypeSize; the
// arithmetic is done in 64 bits, so no product wraps around.
func cSizeof(t btf.Type) (int, error) {
	switch v := btf.UnderlyingType(t).(type) {
	case *btf.Array:
		elem, err := cSizeof(v.Type)
		if err != nil {
			return 0, err
		}
		n := uint64(v.Nelems)
		if n > 0 && uint64(elem) > MaxTypeSize/n {
			return 0, fmt.Errorf("array of %d elements of %d bytes is larger than %d bytes", n, elem, MaxTypeSize)
		}
		return elem * int(n), nil
	}
	n, err := btf.Sizeof(t)
	if err != nil {
		return 0, err
	}
	if n > MaxTypeSize {
		return 0, fmt.Errorf("type of %d bytes is larger than %d bytes", n, MaxTypeSize)
	}
	return n, nil
}

// alignOf is the C alignment of a type.
func alignOf(t btf.Type) int {
	switch v := btf.UnderlyingType(t).(type) {
	case *btf.Int:
		return int(v.Size)
	case *btf.Enum:
		return int(v.Size)
	case *btf.Float:
		return int(v.Size)
	case *btf.Pointer:
		return 8
	case *btf.Array:
		return alignOf(v.Type)
	case *btf.Struct:
		a := 1
		for _, m := range v.Members {
			a = max(a, alignOf(m.Type))
		}
		return a
	case *btf.Union:
		a := 1
		for _, m := range v.Members {
			a = max(a, alignOf(m.Type))
		}
		return a
	}
	return 1
}
