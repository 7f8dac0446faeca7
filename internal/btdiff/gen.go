package btdiff

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// intType is an integer type of the language.
type intType struct {
	name   string
	bits   uint
	signed bool
}

var intTypes = []intType{
	{"int8", 8, true}, {"uint8", 8, false}, {"int16", 16, true}, {"uint16", 16, false},
	{"int32", 32, true}, {"uint32", 32, false}, {"int64", 64, true}, {"uint64", 64, false},
}

// gen builds one program from its own random source.
type gen struct {
	r    *rand.Rand
	id   int
	vars []string // integer variables assigned so far
	n    int      // names given so far
	b    strings.Builder
}

// Program returns program number id of the series seed: the body of a
// begin probe whose first line prints the marker "=== id".
func Program(seed uint64, id int) string {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(id))), id: id}
	fmt.Fprintf(&g.b, "printf(\"=== %d\\n\");\n", id)
	n := 3 + g.r.IntN(5)
	for range n {
		g.stmt()
	}
	return g.b.String()
}

// next numbers a variable or map name, unique in the program.
func (g *gen) next() int { g.n++; return g.n }

func (g *gen) line(format string, args ...any) {
	fmt.Fprintf(&g.b, format+"\n", args...)
}

// mapName is a map of this program: maps are named after it, so that
// their lines in the exit print are attributed to it.
func (g *gen) mapName(s string) string { return fmt.Sprintf("@p%d_%s", g.id, s) }

func (g *gen) stmt() {
	switch k := g.r.IntN(100); {
	case k < 15:
		v := fmt.Sprintf("$v%d", len(g.vars))
		g.line("%s = %s;", v, g.intExpr(1))
		g.vars = append(g.vars, v)
	case k < 30:
		g.line("print(%s);", g.intExpr(3))
	case k < 42:
		f := intFormats[g.r.IntN(len(intFormats))]
		g.line("printf(\"%s|\\n\", %s);", f, g.intExpr(2))
	case k < 50:
		g.line("print(%s);", g.compare())
	case k < 58:
		g.strings()
	case k < 66:
		g.tuple()
	case k < 78:
		g.mapStmt()
	case k < 92:
		g.aggregation()
	case k < 96:
		g.compound()
	default:
		g.line("print(sizeof(%s));", g.intLeaf())
	}
}

// intFormats are the printf conversions of integers compared.
var intFormats = []string{"%d", "%u", "%x", "%X", "%o", "%ld", "%lu", "%lx", "%lld", "%llu", "%llx",
	"%hhd", "%hhu", "%hd", "%hu", "%5d", "%-5d", "%05d", "%+d", "%#x", "%#o", "%i", "%20llu", "%-3x"}

// typedLit is (T)v for a value in T's range: its extremes, 0, ±1, or
// random.
func (g *gen) typedLit() string {
	t := intTypes[g.r.IntN(len(intTypes))]
	return fmt.Sprintf("(%s)%s", t.name, g.valueOf(t))
}

func (g *gen) valueOf(t intType) string {
	var lo, hi int64
	var uhi uint64
	if t.signed {
		lo, hi = -1<<(t.bits-1), 1<<(t.bits-1)-1
		if t.bits == 64 {
			hi = 1<<63 - 1
		}
	} else {
		uhi = 1<<t.bits - 1
		if t.bits == 64 {
			uhi = ^uint64(0)
		}
	}
	switch g.r.IntN(6) {
	case 0:
		return "0"
	case 1:
		return "1"
	case 2:
		if t.signed {
			return strconv.FormatInt(lo, 10)
		}
		return strconv.FormatUint(uhi, 10)
	case 3:
		if t.signed {
			return strconv.FormatInt(hi, 10)
		}
		return strconv.FormatUint(uhi/2+1, 10)
	}
	if t.signed {
		v := g.r.Int64N(1 << (t.bits - 2))
		if g.r.IntN(2) == 0 {
			v = -v
		}
		return strconv.FormatInt(v, 10)
	}
	return strconv.FormatUint(g.r.Uint64N(1<<(t.bits-1)), 10)
}

// intLeaf is a typed literal, a small literal or a variable.
func (g *gen) intLeaf() string {
	switch k := g.r.IntN(10); {
	case k < 5:
		return g.typedLit()
	case k < 8 && len(g.vars) > 0:
		return g.vars[g.r.IntN(len(g.vars))]
	default:
		return strconv.Itoa(g.r.IntN(200) - 50)
	}
}

// intExpr is an integer expression of at most depth operators: the
// arithmetic that is defined for every value (no division by zero or by
// a negative number, shifts by less than 8).
func (g *gen) intExpr(depth int) string {
	if depth == 0 || g.r.IntN(3) == 0 {
		return g.intLeaf()
	}
	a := g.intExpr(depth - 1)
	switch k := g.r.IntN(12); {
	case k < 6:
		op := []string{"+", "-", "*", "&", "|", "^"}[k]
		return fmt.Sprintf("(%s %s %s)", a, op, g.intExpr(depth-1))
	case k == 6:
		// an unsigned dividend: bpftrace divides signed values as
		// unsigned ones (Known: signed division)
		return fmt.Sprintf("((uint64)%s %s %d)", a, []string{"/", "%"}[g.r.IntN(2)], 1+g.r.IntN(100))
	case k == 7:
		if g.r.IntN(2) == 0 {
			return fmt.Sprintf("(%s << %d)", a, g.r.IntN(8))
		}
		return fmt.Sprintf("((uint64)%s >> %d)", a, g.r.IntN(8)) // Known: signed division
	case k == 8, k == 9:
		// of a 64-bit or unsigned operand: bpftrace prints - and ~ of a
		// narrow signed value as unsigned (Known: narrow unary)
		t := intTypes[g.r.IntN(len(intTypes))]
		if t.signed {
			t = intTypes[6]
		}
		return fmt.Sprintf("%s((%s)%s)", []string{"-", "~"}[k-8], t.name, a)
	case k == 10:
		// C's names, plain char's sign taken from the kernel's BTF
		return fmt.Sprintf("(%s)(%s)", cIntNames[g.r.IntN(len(cIntNames))], a)
	default:
		return fmt.Sprintf("(%s)(%s)", intTypes[g.r.IntN(len(intTypes))].name, a)
	}
}

// cIntNames are the C integer type names of one word a cast may use
// (bpftrace 0.27's parser takes no "unsigned short").
var cIntNames = []string{"char", "short", "int", "long"}

// compare compares two expressions, cast to one type or to two of any
// width and sign (a uint64 compared with a signed value compares signed,
// in bpftrace and gotrace), or left as they are.
func (g *gen) compare() string {
	op := []string{"==", "!=", "<", ">", "<=", ">="}[g.r.IntN(6)]
	switch g.r.IntN(3) {
	case 0:
		t := []string{"int64", "uint64"}[g.r.IntN(2)]
		return fmt.Sprintf("((%s)%s %s (%s)%s)", t, g.intExpr(2), op, t, g.intExpr(2))
	case 1:
		a, b := intTypes[g.r.IntN(len(intTypes))], intTypes[g.r.IntN(len(intTypes))]
		return fmt.Sprintf("((%s)%s %s (%s)%s)", a.name, g.intExpr(2), op, b.name, g.intExpr(2))
	default:
		return fmt.Sprintf("(%s %s %s)", g.intExpr(2), op, g.intExpr(2))
	}
}

// strLits are the strings compared and printed.
var strLits = []string{"", "a", "abc", "abd", "hello", "hello world", "x y z", "ABC", "abcdefghijklmnop"}

func (g *gen) strLit() string { return strconv.Quote(strLits[g.r.IntN(len(strLits))]) }

func (g *gen) strings() {
	v := fmt.Sprintf("$s%d", g.next())
	lit := strLits[g.r.IntN(len(strLits))]
	g.line("%s = %s;", v, strconv.Quote(lit))
	switch g.r.IntN(9) {
	case 5:
		// str() of a string: a length of 0 empties it, n keeps n-1
		// characters; the length constant or computed
		n := strconv.Itoa(g.r.IntN(len(lit) + 3))
		if g.r.IntN(2) == 0 {
			nv := fmt.Sprintf("$n%d", g.next())
			g.line("%s = %s;", nv, n)
			n = nv
		}
		g.line("printf(\"[%%s]\\n\", str(%s, %s));", v, n)
	case 6:
		g.line("print(str(%s) %s %s);", v, []string{"==", "!="}[g.r.IntN(2)], g.strLit())
	case 7, 8:
		// buf() of a string's bytes, its terminator included: printed,
		// with %r, %rx and %rh, and in a tuple
		b := fmt.Sprintf("buf(%s, %d)", v, 1+g.r.IntN(len(lit)+1))
		switch g.r.IntN(3) {
		case 0:
			g.line("print(%s);", b)
		case 1:
			g.line("printf(\"%s|\\n\", %s);", []string{"%r", "%rx", "%rh"}[g.r.IntN(3)], b)
		default:
			g.line("print((%s, %s));", b, g.intExpr(1))
		}
	case 0:
		g.line("printf(\"[%%s] [%%8s] [%%-8s] [%%.2s]\\n\", %s, %s, %s, %s);", v, v, g.strLit(), v)
	case 1:
		g.line("print(%s %s %s);", v, []string{"==", "!="}[g.r.IntN(2)], g.strLit())
	case 2:
		g.line("print(strncmp(%s, %s, %d));", v, g.strLit(), g.r.IntN(6))
	case 3:
		g.line("print(strcontains(%s, %s));", v, g.strLit())
	default:
		g.line("print(%s);", v)
	}
}

func (g *gen) tuple() {
	elems := []string{g.intExpr(1), g.strLit(), g.typedLit()}
	g.r.Shuffle(len(elems), func(i, j int) { elems[i], elems[j] = elems[j], elems[i] })
	switch g.r.IntN(4) {
	case 0:
		g.line("print((%s));", strings.Join(elems, ", "))
	case 1:
		v := fmt.Sprintf("$t%d", g.next())
		g.line("%s = (%s);", v, strings.Join(elems, ", "))
		g.line("print(%s.%d);", v, g.r.IntN(len(elems)))
		g.line("print(%s);", v)
	case 2:
		g.line("print((a=%s, b=%s));", elems[0], elems[1])
	default:
		v := fmt.Sprintf("$r%d", g.next())
		g.line("%s = (x=%s, y=%s, z=%s);", v, elems[0], elems[1], elems[2])
		g.line("print(%s.%s);", v, []string{"x", "y", "z"}[g.r.IntN(3)])
	}
}

// mapStmt fills a map with an integer, string or (integer, string) key
// and prints it, or reads one of its values.
func (g *gen) mapStmt() {
	m := g.mapName(fmt.Sprintf("m%d", g.next()))
	// one key type for the map: bpftrace refuses keys that change type
	kt := intTypes[g.r.IntN(len(intTypes))]
	var key func() string
	switch g.r.IntN(3) {
	case 0:
		key = func() string { return fmt.Sprintf("(%s)%s", kt.name, g.valueOf(kt)) }
	case 1:
		key = g.strLit
	default:
		key = func() string { return fmt.Sprintf("(%s)%s, %s", kt.name, g.valueOf(kt), g.strLit()) }
	}
	vt := intTypes[g.r.IntN(len(intTypes))]
	k0 := key()
	n := 1 + g.r.IntN(4)
	for i := range n {
		k := k0
		if i > 0 {
			k = key()
		}
		g.line("%s[%s] = (%s)%s;", m, k, vt.name, g.valueOf(vt))
	}
	if g.r.IntN(2) == 0 {
		g.line("print(%s[%s]);", m, k0)
	} else {
		g.line("print(%s);", m)
	}
}

// aggregation feeds an aggregation known values and prints it.
func (g *gen) aggregation() {
	m := g.mapName(fmt.Sprintf("a%d", g.next()))
	n := 1 + g.r.IntN(6)
	fn := []string{"count", "sum", "min", "max", "avg", "stats", "hist", "lhist"}[g.r.IntN(8)]
	lo, hi, step := g.r.IntN(50), 0, 1+g.r.IntN(20)
	hi = lo + step*(1+g.r.IntN(10))
	// the values of one aggregation: literals and int64 values, or
	// values of one integer type (Known: mixed signs)
	var t *intType
	if g.r.IntN(3) == 0 {
		t = &intTypes[g.r.IntN(len(intTypes))]
	}
	for range n {
		v := g.aggValue(t)
		switch fn {
		case "count":
			g.line("%s = count();", m)
		case "lhist":
			g.line("%s = lhist(%s, %d, %d, %d);", m, v, lo, hi, step)
		default:
			g.line("%s = %s(%s);", m, fn, v)
		}
	}
	g.line("print(%s);", m)
}

// aggValue is a value for an aggregation: of type t, or when t is nil a
// literal or an int64.
func (g *gen) aggValue(t *intType) string {
	if t != nil {
		if g.r.IntN(2) == 0 {
			return fmt.Sprintf("(%s)%s", t.name, g.valueOf(*t))
		}
		return fmt.Sprintf("(%s)%s", t.name, g.intExpr(1))
	}
	switch g.r.IntN(4) {
	case 0:
		return strconv.Itoa(g.r.IntN(10))
	case 1:
		return strconv.Itoa(g.r.IntN(2000) - 500)
	case 2:
		return strconv.FormatInt(1<<g.r.IntN(62), 10)
	default:
		return fmt.Sprintf("(int64)%s", g.intExpr(1))
	}
}

// compound updates a variable or map with x op= y, x++ or x--, which
// promote its type with the type of x op y, and prints it.
func (g *gen) compound() {
	x := fmt.Sprintf("$c%d", g.next())
	if g.r.IntN(2) == 0 {
		x = g.mapName(fmt.Sprintf("c%d", g.next()))
	}
	g.line("%s = %s;", x, g.typedLit())
	for range 1 + g.r.IntN(3) {
		switch k := g.r.IntN(9); {
		case k < 7:
			// not /=, %= or >>=: x may be signed (Known: signed division)
			op := []string{"+=", "-=", "*=", "&=", "|=", "^=", "<<="}[k]
			y := g.intExpr(1)
			if op == "<<=" {
				y = strconv.Itoa(g.r.IntN(8))
			}
			g.line("%s %s %s;", x, op, y)
		case k == 7:
			g.line("%s++;", x)
		default:
			g.line("%s--;", x)
		}
	}
	g.line("print(%s);", x)
}
