package e2e

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	gt "github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/eval"
	"github.com/gotrace/gotrace/lang/types"
)

// The differential suite runs the same expressions through the reference
// evaluator (lang/eval) and through the generated BPF, run from BEGIN, and
// expects the same answers.

// diffParams are the positional parameters of every differential script.
var diffParams = []string{"42", "-7", "18446744073709551615", "hello", "hell", "0x8000000000000000"}

// diffPrelude declares the scratch variables the expressions read: values
// the verifier still knows, but that the checker does not fold, so that the
// BPF ALU computes the operations.
var diffPrelude = []string{
	"$i0 = 0", "$i1 = 1", "$i2 = -1", "$i3 = 63", "$i4 = 64", "$i5 = 0x7fffffffffffffff",
	"$i6 = -0x7fffffffffffffff - 1", "$i7 = 0xffffffff", "$i8 = -128", "$i9 = 255",
	"$i10 = 1000000007", "$i11 = -3", "$i12 = 65", "$i13 = 127", "$i14 = 0x80000000",
	"$u0 = 0xffffffffffffffff", "$u1 = 0x8000000000000000", "$u2 = (uint64)5", "$u3 = (uint64)0",
	"$u4 = (uint64)64", "$u5 = 0xfffffffffffffffe",
	"$b0 = true", "$b1 = false",
	`$s0 = "abc"`, `$s1 = "abd"`, `$s2 = ""`, `$s3 = "abcdefghij"`,
}

// opaqueZero is an expression that is always 0 but that the verifier
// cannot see through: rand is a u32 in a register the verifier only knows
// as some 64-bit scalar.
const opaqueZero = "(int64)(rand >> 32)"

// diffScript builds a BEGIN script that prints each expression on its own
// line with the given printf formats. With opaque, the prelude's values are
// computed from opaqueZero, so that the verifier does not know them either
// (it then checks the generated code for every possible value, and no
// branch is pruned as dead).
func diffScript(exprs, formats []string, opaque bool) string {
	var sb strings.Builder
	sb.WriteString("BEGIN {\n")
	if opaque {
		sb.WriteString("\t$z = " + opaqueZero + ";\n")
	}
	for _, p := range diffPrelude {
		name, val, _ := strings.Cut(p, " = ")
		switch {
		case !opaque || strings.HasPrefix(val, `"`):
		case val == "true" || val == "false":
			p = fmt.Sprintf("%s = (bool)($z + %s)", name, val)
		case strings.HasPrefix(name, "$u"):
			// an unsigned variable stays unsigned: $z is int64
			p = fmt.Sprintf("%s = (uint64)$z + (%s)", name, val)
		default:
			p = fmt.Sprintf("%s = $z + (%s)", name, val)
		}
		sb.WriteString("\t" + p + ";\n")
	}
	for i, e := range exprs {
		fmt.Fprintf(&sb, "\tprintf(\"%s\\n\", %s);\n", formats[i], e)
	}
	sb.WriteString("\texit();\n}\n")
	return sb.String()
}

// expected runs the script's BEGIN probe through the evaluator: it executes
// the assignments and returns, for each printf of one value, the
// evaluator's value, the printed expression and the conversion used.
func expected(t *testing.T, s *gt.Script) (vals []eval.Value, srcs, formats []string) {
	t.Helper()
	p := s.Checked.Probes[0]
	env := eval.NewEnv(p.Info)
	for _, st := range p.AST.Body.Stmts {
		if es, ok := st.(*ast.ExprStmt); ok {
			if c, ok := es.X.(*ast.Call); ok {
				switch c.Name {
				case "exit":
					continue
				case "printf":
					if len(c.Args) != 2 {
						t.Fatalf("%s: printf needs exactly one value", c.Pos())
					}
					v, err := env.Expr(c.Args[1])
					if err != nil {
						t.Fatalf("eval: %v", err)
					}
					sp := c.Args[1].GetSpan()
					vals = append(vals, v)
					srcs = append(srcs, s.Source[sp.Start.Offset:sp.End.Offset])
					formats = append(formats, strings.TrimSuffix(c.Args[0].(*ast.StrLit).Value, "\n"))
					continue
				}
			}
		}
		if as, ok := st.(*ast.AssignStmt); ok {
			if sp := as.Rhs.GetSpan(); s.Source[sp.Start.Offset:sp.End.Offset] == opaqueZero {
				id, t := p.Info.VarOf(as.Lhs.(*ast.Var))
				env.Vars[id] = eval.Value{Type: t}
				continue
			}
		}
		if err := env.Exec(st); err != nil {
			t.Fatalf("eval: %v", err)
		}
	}
	return vals, srcs, formats
}

// printed is what printf prints for v with the conversion f (%lld, %llu or
// %s).
func printed(v eval.Value, f string) string {
	switch {
	case v.IsString():
		return v.Str
	case v.Type.Kind == types.Bool:
		// A bool argument is read as its low byte.
		if v.Bits&0xff != 0 {
			return "1"
		}
		return "0"
	case f == "%lld":
		return strconv.FormatInt(int64(v.Bits), 10)
	}
	return strconv.FormatUint(v.Bits, 10)
}

// format picks the printf conversion for a value of type t.
func format(t *types.Type) string {
	switch {
	case t.Kind == types.String:
		return "%s"
	case t.Kind == types.Int && t.Signed:
		return "%lld"
	}
	return "%llu"
}

// runDiff compares the expressions printed with the given conversions. A
// batch the code generator cannot fit in the BPF stack (deep random
// expressions with many string temporaries) is split in halves; a single
// expression that does not fit is skipped.
func runDiff(t *testing.T, exprs, formats []string, opaque bool) {
	t.Helper()
	src := diffScript(exprs, formats, opaque)
	if _, err := gt.Compile("diff.bt", src, gt.Options{Params: diffParams}); err != nil && strings.Contains(err.Error(), "stack limit") {
		if len(exprs) == 1 {
			t.Logf("skipped, too deep for the BPF stack: %s", exprs[0])
			return
		}
		h := len(exprs) / 2
		runDiff(t, exprs[:h], formats[:h], opaque)
		runDiff(t, exprs[h:], formats[h:], opaque)
		return
	}
	runDiffScript(t, src)
}

// runDiffScript compiles and runs a BEGIN script made of assignments and
// printf("%lld\n" (or %llu, %s), expr) calls and compares every printed
// line with the evaluator.
func runDiffScript(t *testing.T, src string) {
	t.Helper()
	s, err := gt.Compile("diff.bt", src, gt.Options{Params: diffParams})
	if err != nil {
		t.Fatalf("compile: %s\n%s", gt.FormatError(err, src), src)
	}
	want, srcs, formats := expected(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code, err := s.Run(ctx, gt.RunOptions{Stdout: &stdout, Stderr: &stderr, Quiet: true, NoSignals: true})
	if err != nil || code != 0 {
		t.Fatalf("run: code %d, %v\n%s\nstderr: %s", code, s.FormatError(err), src, stderr.String())
	}
	// The runtime prints "\n\n" at exit, before the (here absent) maps.
	got := strings.Split(strings.TrimSuffix(stdout.String(), "\n\n\n"), "\n")
	if len(got) != len(want) {
		t.Errorf("got %d lines, want %d:\n%q", len(got), len(want), stdout.String())
	}
	bad := 0
	for i := range min(len(want), len(got)) {
		if f := format(want[i].Type); f != formats[i] {
			t.Errorf("%s: checked type %s, but the script prints it with %s", srcs[i], want[i].Type, formats[i])
		}
		w := printed(want[i], formats[i])
		if got[i] != w {
			bad++
			if bad <= 20 {
				t.Errorf("%s  (%s, printed with %s)\n\tbpf:  %s\n\teval: %s", srcs[i], want[i].Type, formats[i], got[i], w)
			}
		}
	}
	if bad > 20 {
		t.Errorf("... %d mismatches in all", bad)
	}
}

// needRoot skips kernel tests when not root.
func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("kernel tests need root (CAP_BPF, CAP_PERFMON)")
	}
}

// diffCases are hand-picked expressions at the edges of the semantics.
var diffCases = []string{
	// shifts by 64 and more: the count's low 6 bits
	"$i1 << $i4", "$i1 << $i12", "$i2 >> $i4", "$u0 >> $i4", "$u0 >> $i12", "$i1 << $i2", "$i8 >> $i3",
	"$i1 << 64", "$i1 << 65", "$i2 >> 64", "$i1 << 63", "$i6 >> 63", "$u1 >> 63", "$i6 >> $u4",
	// division and remainder, signs and zero
	"$i11 / 2", "$i11 % 2", "7 / $i11", "7 % $i11", "$i11 / $i11", "-7 / -2", "-7 % -2",
	"$i6 / $i2", "$i6 % $i2", "$i5 / $i0", "$i11 % $i0", "$u0 / $i0", "$u0 % $u3", "5 / $i0", "-5 % $i0",
	"$u0 / 2", "$u0 % 10", "$i2 / $u2", "$i2 % $u2", "$u1 / $i2",
	// comparisons: signed only when both sides are signed
	"$i2 < 0", "$i2 < $i0", "$i2 < $u3", "$u0 > $i1", "$i2 == $u0", "$u1 < $i5", "$i6 < $i5",
	"(uint32)$i2 > 0", "(int32)$i7 < 0", "(uint8)$i2 == 255", "$i2 <= -1", "$u0 >= $i2",
	"$b0 == 1", "$b0 > $b1", "!$i0", "!$i2", "!!$i10",
	// casts truncate and extend
	"(int8)$i9", "(uint8)$i8", "(int16)0x18000", "(uint16)$i2", "(int32)$i14", "(uint32)$i2",
	"(int64)$u0", "(uint64)$i2", "(bool)$i4", "(bool)$i0", "(int8)(uint8)$i8", "(uint8)300 + 1",
	"(int32)$i7 + 1", "(uint32)$i7 + 1", "-(uint8)$i9", "~(int8)0", "~(uint8)0", "~(uint32)0",
	// arithmetic wraps
	"$i5 + 1", "$i6 - 1", "$u0 + 1", "$i5 * 2", "-$i6", "-$u0", "$i7 * $i7", "$u3 - 1",
	// logical operators, ternaries
	"$i1 && $i2", "$i0 || $i0", "$i0 || $b0", "$i2 ? $i3 : $i4", "$b1 ? $i3 : $u0", "$i0 ? $u0 : -1",
	"$i2 ?: $i3", "$i0 ?: $i4", "$u0 ?: 1", "$i0 ?: -1",
	`(bool)$s0`, `(bool)$s2`, `(bool)""`, `(bool)$4`,
	// strings
	`$s0 == "abc"`, `$s0 != $s1`, `$4 == "hello"`, `$5 == $4`, `$s3 == "abcdefghij"`, `$s3 == "abcdefghi"`,
	`$s2 == ""`, `strlen($s3)`, `strlen($4)`, `strlen("")`, `strncmp($4, $5, 4)`, `strncmp($4, $5, 5)`,
	`strncmp($s0, $s1, 2)`, `strncmp($s0, $s1, 3)`, `($i1 ? $s0 : $s1) == "abc"`, `($i0 ? $s0 : $s1) == "abc"`,
	// positional parameters
	"$1 + $2", "$3 + $i0", "$3 > $1", "$2 < $3", "$# * 2", "$6 >> 63", "$2 / $1", "$2 % 3",
	// constants folded by the checker
	"0x7fffffffffffffff + 1", "0xffffffffffffffff / 3", "-9223372036854775808 / -1", "(int8)200 * 2",
	"1000000007 * 1000000007 % 998244353", "0xffffffff << 32 >> 32",
	"$i2 >> $i2", "$u0 >> $u0", "(int8)$i9 >> 1", "(uint8)$i2 >> 1", `strlen("ab\0cd")`,
	// bpftrace 0.26 widths and signedness: 64-bit results, signed when an
	// operand is and always for -; ~ and - in the operand's width; mixed
	// signs divide unsigned; a zero divisor yields 1; shift counts of 64
	// and more at run time are taken modulo 64
	"(uint8)250 + (uint8)10", "(uint64)1 - (uint64)2", "(uint32)$i2 * (uint32)$i2", "~10", "~-11",
	"~(uint16)$i8", "-(uint16)$i8", "-(int8)$i9", "$i2 / (uint64)2", "$i2 % (uint8)10", "$i2 / $u0",
	"$i5 / ($i0 * $i1)", "$u0 % $i0", "$i2 / $i0", "$i8 % $i0", "$i5 << 64", "$u0 >> 65", "(uint64)1 << 65",
	"$i2 >> (uint64)1", "(uint32)$i2 >> 1", "-8 >> 1", "0x8000000000000000 << 1", "$3 - 1",
}

// TestDiffCases compares the hand-picked edge cases.
func TestDiffCases(t *testing.T) {
	needRoot(t)
	for _, opaque := range []bool{false, true} {
		// The formats follow the checked types (a variable of the
		// known prelude may be flexible, one of the opaque prelude is
		// not): check once with placeholders.
		formats := make([]string, len(diffCases))
		s, err := gt.Compile("diff.bt", diffScript(diffCases, repeat("%s", len(diffCases)), opaque), gt.Options{Params: diffParams})
		if err != nil {
			t.Fatalf("compile: %v", err)
		}
		vals, _, _ := expected(t, s)
		for i, v := range vals {
			formats[i] = format(v.Type)
		}
		name := map[bool]string{false: "known", true: "opaque"}[opaque]
		t.Run(name, func(t *testing.T) { runDiff(t, diffCases, formats, opaque) })
	}
}

func repeat(s string, n int) []string {
	r := make([]string, n)
	for i := range r {
		r[i] = s
	}
	return r
}

// TestDiffStringEdges: strings compare as C strings, up to their first NUL
// (bpftrace prints 1 for "a\0b" == "a\0c"), and strncmp of 0 bytes is 0.
func TestDiffStringEdges(t *testing.T) {
	needRoot(t)
	t.Run("nul", func(t *testing.T) {
		runDiff(t, []string{`"a\0b" == "a\0c"`, `"a\0b" != "a\0c"`, `strncmp("a\0b", "a\0c", 3)`}, []string{"%llu", "%llu", "%lld"}, false)
	})
	t.Run("strncmp0", func(t *testing.T) {
		runDiff(t, []string{`strncmp("a", "b", 0)`, `strncmp($s0, $s1, 0)`}, []string{"%lld", "%lld"}, false)
	})
}

// TestDiffStatements compares values computed through scratch variable
// assignments, compound assignments and let declarations.
func TestDiffStatements(t *testing.T) {
	needRoot(t)
	runDiffScript(t, `BEGIN {
	$a = 5; $a += 3; printf("%lld\n", $a);
	$a -= 10; printf("%lld\n", $a);
	$a *= -7; printf("%lld\n", $a);
	$a /= -3; printf("%lld\n", $a);
	$a %= 4; printf("%lld\n", $a);
	$a <<= 62; printf("%lld\n", $a);
	$a >>= 61; printf("%lld\n", $a);
	$a |= 0x70; $a &= 0x3c; $a ^= 0xff; printf("%lld\n", $a);
	$u = 0xfffffffffffffff0; $u /= 16; printf("%llu\n", $u);
	$u >>= 68; printf("%llu\n", $u);
	$u ^= 0x8000000000000000; printf("%llu\n", $u);
	$n = -9; $n >>= 1; printf("%lld\n", $n);
	$n %= 0; printf("%lld\n", $n);
	$n /= 0; printf("%lld\n", $n);
	let $c: int8 = -3; printf("%lld\n", $c * $c);
	let $d: uint32 = 7; printf("%lld\n", $d - 8);
	let $w: uint8 = (uint8)300; $w += 250; printf("%llu\n", $w);
	let $e = (int16)0x12345; printf("%lld\n", $e);
	$f = (uint8)-1 > (int8)-1; printf("%llu\n", $f);
	$g = $1 > $2 ? $4 : $5; printf("%s\n", $g);
	printf("%llu\n", $g == "hello");
	printf("%llu\n", strlen($g));
	$b = $2 < 0 && $3 > 0; printf("%llu\n", $b);
	$b = !$b || (bool)$a; printf("%llu\n", $b);
	printf("%llu\n", bswap((uint16)0x1234));
	printf("%llu\n", bswap((uint32)0x12345678));
	printf("%llu\n", bswap(0x0102030405060708));
	printf("%llu\n", bswap((uint8)0xab));
	exit();
}`)
}

// exprGen generates random well-typed expressions, tracking their types
// with the checker's rules so that it can pick the printf conversion.
type exprGen struct {
	r *rand.Rand
	// known: the script's prelude assigns literals (diffScript's opaque
	// false), so the variables holding non-negative ones are flexible
	known bool
}

type genExpr struct {
	src string
	t   *types.Type
	// flex: a variable that only held a non-negative literal, which takes
	// the other operand's sign in x op y, as in bpftrace 0.27
	flex bool
}

// flexVars are the prelude's variables that hold non-negative literals.
var flexVars = map[string]bool{"$i0": true, "$i1": true, "$i3": true, "$i4": true, "$i5": true, "$i7": true,
	"$i9": true, "$i10": true, "$i12": true, "$i13": true, "$i14": true}

var (
	genLits = []string{"0", "1", "2", "3", "5", "7", "10", "31", "32", "33", "63", "64", "65", "127", "128",
		"255", "256", "-1", "-2", "-3", "-7", "-64", "-128", "-129", "0x7fff", "0x8000", "0xffff",
		"0x7fffffff", "0x80000000", "0xffffffff", "0x100000000", "-0x80000000", "1000000007",
		"0x7fffffffffffffff", "-0x7fffffffffffffff", "0x8000000000000000", "0xfffffffffffffffe",
		"0xffffffffffffffff", "0x123456789abcdef0"}
	genStrLits  = []string{`""`, `"a"`, `"ab"`, `"abc"`, `"abd"`, `"abcdefg"`, `"abcdefgh"`, `"abcdefghi"`, `"abcdefghij"`, `"hell"`, `"hello"`, `"hello!"`}
	genStrVars  = []string{"$s0", "$s1", "$s2", "$s3", "$4", "$5"}
	genCasts    = []string{"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"}
	genArith    = []string{"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"}
	genCompare  = []string{"==", "!=", "<", "<=", ">", ">="}
	genIntVars  = []string{"$i0", "$i1", "$i2", "$i3", "$i4", "$i5", "$i6", "$i7", "$i8", "$i9", "$i10", "$i11", "$i12", "$i13", "$i14", "$1", "$2", "$#"}
	genUintVars = []string{"$u0", "$u1", "$u2", "$u3", "$u4", "$u5", "$3", "$6"}
)

func isU64(t *types.Type) bool { return t.Kind == types.Int && !t.Signed && t.Size == 8 }

// ternaryType mirrors the checker's type of a ternary on branches that
// are not literals: 64 bits, signed when a branch is signed.
func ternaryType(a, b *types.Type) *types.Type {
	if a.Kind == types.Int && a.Signed || b.Kind == types.Int && b.Signed {
		return types.Int64
	}
	return types.Uint64
}

// arithType mirrors the checker's type of x op y on operands that are not
// literals (the generator casts its literals): 64 bits, signed when an
// operand is signed and always for -, unsigned otherwise; a flexible
// operand takes the other's sign.
func arithType(op string, x, y genExpr) *types.Type {
	as, bs := x.t.Kind == types.Int && x.t.Signed, y.t.Kind == types.Int && y.t.Signed
	switch {
	case x.flex && !y.flex:
		as = bs
	case y.flex && !x.flex:
		bs = as
	}
	if op == "-" || as || bs {
		return types.Int64
	}
	return types.Uint64
}

// nonLiteral casts a literal or positional parameter to its own type:
// bpftrace folds operations on literals alone exactly and rejects those
// out of range (1 << 64, 5 / 0), which the literal folding tests cover;
// a cast is computed at run time, in 64 bits, as the kernel does.
func nonLiteral(src string, t *types.Type) genExpr {
	return genExpr{src: "(" + t.String() + ")(" + src + ")", t: t}
}

func isParam(v string) bool {
	return len(v) > 1 && v[0] == '$' && (v[1] == '#' || v[1] >= '0' && v[1] <= '9')
}

func (g *exprGen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g *exprGen) leaf() genExpr {
	switch n := g.r.IntN(20); {
	case n < 8:
		l := g.pick(genLits)
		if !strings.HasPrefix(l, "-") {
			if v, err := strconv.ParseUint(l, 0, 64); err == nil && v > 1<<63-1 {
				return nonLiteral(l, types.Uint64)
			}
		}
		return nonLiteral(l, types.Int64)
	case n < 13:
		if v := g.pick(genIntVars); isParam(v) {
			return nonLiteral(v, types.Int64)
		} else {
			return genExpr{src: v, t: types.Int64, flex: g.known && flexVars[v]}
		}
	case n < 16:
		if v := g.pick(genUintVars); isParam(v) {
			return nonLiteral(v, types.Uint64)
		} else {
			return genExpr{src: v, t: types.Uint64}
		}
	case n < 17:
		return genExpr{src: g.pick([]string{"$b0", "$b1", "true", "false"}), t: types.BoolT}
	case n < 18:
		return genExpr{src: "strlen(" + g.str(1).src + ")", t: types.Uint64}
	case n < 19:
		return genExpr{src: fmt.Sprintf("strncmp(%s, %s, %d)", g.str(1).src, g.str(1).src, 1+g.r.IntN(11)), t: types.Int64}
	default:
		op := g.pick([]string{"==", "!="})
		return genExpr{src: g.str(1).src + " " + op + " " + g.str(1).src, t: types.BoolT}
	}
}

// str generates a string expression.
func (g *exprGen) str(depth int) genExpr {
	t := types.NewString(16)
	switch n := g.r.IntN(10); {
	case n < 5:
		return genExpr{src: g.pick(genStrLits), t: t}
	case n < 9 || depth <= 0:
		return genExpr{src: g.pick(genStrVars), t: t}
	default:
		return genExpr{src: fmt.Sprintf("(%s ? %s : %s)", g.expr(0).src, g.str(depth-1).src, g.str(depth-1).src), t: t}
	}
}

// expr generates an integer or bool expression of at most depth levels of
// operators.
func (g *exprGen) expr(depth int) genExpr {
	if depth <= 0 || g.r.IntN(8) == 0 {
		return g.leaf()
	}
	switch n := g.r.IntN(20); {
	case n < 9:
		x, y := g.expr(depth-1), g.expr(depth-1)
		op := g.pick(genArith)
		return genExpr{src: "(" + x.src + ") " + op + " (" + y.src + ")", t: arithType(op, x, y)}
	case n < 12:
		x, y := g.expr(depth-1), g.expr(depth-1)
		return genExpr{src: "(" + x.src + ") " + g.pick(genCompare) + " (" + y.src + ")", t: types.BoolT}
	case n < 13:
		x, y := g.expr(depth-1), g.expr(depth-1)
		return genExpr{src: "(" + x.src + ") " + g.pick([]string{"&&", "||"}) + " (" + y.src + ")", t: types.BoolT}
	case n < 16:
		x := g.expr(depth - 1)
		c := g.pick(genCasts)
		for _, t := range []*types.Type{types.Int8, types.Uint8, types.Int16, types.Uint16, types.Int32, types.Uint32, types.Int64, types.Uint64, types.BoolT} {
			if t.String() == c || (c == "bool" && t.Kind == types.Bool) {
				return genExpr{src: "(" + c + ")(" + x.src + ")", t: t}
			}
		}
		panic("unknown cast " + c)
	case n < 18:
		x := g.expr(depth - 1)
		switch op := g.pick([]string{"-", "~", "!"}); {
		case op == "!":
			return genExpr{src: "!(" + x.src + ")", t: types.BoolT}
		case x.t.Kind == types.Bool:
			// - and ~ are errors on bools
			return genExpr{src: op + "((int64)(" + x.src + "))", t: types.Int64}
		default:
			return genExpr{src: op + "(" + x.src + ")", t: types.NewInt(8, x.t.Signed)}
		}
	default:
		c, x, y := g.expr(depth-1), g.expr(depth-1), g.expr(depth-1)
		t := ternaryType(x.t, y.t)
		if x.t.Kind == types.Bool && y.t.Kind == types.Bool {
			t = types.BoolT
		}
		return genExpr{src: "(" + c.src + ") ? (" + x.src + ") : (" + y.src + ")", t: t}
	}
}

// TestDiffRandom compares 2000 random expressions: 1000 in 10 scripts of
// 100 whose operand values the verifier knows, and 1000 in 50 scripts of
// 20 whose operand values it does not know (see diffScript; the verifier
// walks every branch of those, so the scripts are kept short). For a
// longer soak, GOTRACE_DIFF_SCALE multiplies the number of scripts and
// GOTRACE_DIFF_SEED sets the seed.
func TestDiffRandom(t *testing.T) {
	needRoot(t)
	scale, seed := 1, uint64(1)
	if n, err := strconv.Atoi(os.Getenv("GOTRACE_DIFF_SCALE")); err == nil && n > 0 {
		scale = n
	}
	if n, err := strconv.ParseUint(os.Getenv("GOTRACE_DIFF_SEED"), 0, 64); err == nil {
		seed = n
	}
	g := &exprGen{r: rand.New(rand.NewPCG(seed, 2))}
	batch := func(n int) (exprs, formats []string) {
		exprs, formats = make([]string, n), make([]string, n)
		for j := range exprs {
			e := g.expr(1 + g.r.IntN(4))
			if g.r.IntN(20) == 0 {
				e = g.str(2)
			}
			exprs[j], formats[j] = e.src, format(e.t)
		}
		return exprs, formats
	}
	for i := range 10 * scale {
		g.known = true
		exprs, formats := batch(100)
		g.known = false
		t.Run(fmt.Sprintf("known%d", i), func(t *testing.T) { runDiff(t, exprs, formats, false) })
	}
	for i := range 50 * scale {
		exprs, formats := batch(20)
		t.Run(fmt.Sprintf("opaque%d", i), func(t *testing.T) { runDiff(t, exprs, formats, true) })
	}
}
