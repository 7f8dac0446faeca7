package check_test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
)

// TestIntegerTypes checks the types of integer expressions: 64-bit
// results, signed when an operand is signed and always for -, literals
// that take the other operand's sign and fold exactly, and the unary
// operators (bpftrace 0.26's rules).
func TestIntegerTypes(t *testing.T) {
	tests := []struct{ expr, typ string }{
		{"(uint8)250 + (uint8)10", "uint64"},
		{"(uint32)5 + (uint8)3", "uint64"},
		{"(uint64)1 - (uint64)2", "int64"},
		{"(uint64)1 + (-2)", "int64"},
		{"(uint64)$x + 1", "uint64"},
		{"(int8)$x + (uint64)1", "int64"},
		{"(uint16)$x << 3", "uint64"},
		{"~10", "uint64"},
		{"~(-11)", "int64"},
		// - and ~ are typed in the operand's width, where they are
		// computed (sizeof and typeof see 64 bits, as bpftrace's)
		{"~(uint8)$x", "uint8"},
		{"~(int16)$x", "int16"},
		{"-(uint32)$x", "uint32"},
		{"-(int32)$x", "int32"},
		{"-$x", "int8"},
		{"-(int64)$x", "int64"},
		{"0x7fffffffffffffff + 1", "uint64"},
		{"1 << 63", "uint64"},
		{"-1 << 63", "int64"},
		{"-(-0x8000000000000000)", "uint64"},
		{"10 - 20", "int64"},
	}
	for _, tt := range tests {
		p, rhs := lastAssigned(t, "BEGIN { $x = 1; $r = "+tt.expr+"; }")
		if p == nil {
			continue
		}
		if got := p.Info.TypeOf(rhs).String(); got != tt.typ {
			t.Errorf("%s: type %s, want %s", tt.expr, got, tt.typ)
		}
	}
}

// TestSignedDivisionWarning checks bpftrace 0.27's warning for / and % on
// operands of different own types (a literal's is the smallest that holds
// it, and takes the other operand's sign when not negative), one of them
// signed.
func TestSignedDivisionWarning(t *testing.T) {
	tests := []struct {
		expr string
		warn bool
	}{
		{"(int64)$x / (uint32)$x", true},
		{"(uint64)$x % (int8)$x", true},
		{"(int64)$x / (int64)$x", false},
		{"(uint64)$x / (uint32)$x", false},
		// a literal has the smallest type that holds it (bpftrace 0.27)
		{"(int64)$x / 2", true},
		{"(uint64)$x / 2", false},
		{"(int64)$x * (uint32)$x", false},
		{"(int16)$x / 2", true},
		{"(int8)$x / 2", false},
		{"$x / 2", true},
		{"$x / $x", false},
		{"(int8)$x / (int8)$x", false},
		{"$x % (uint8)3", false},
		{"-5 / $x", true},
		{"($x+1) / 3", true},
		{"(uint32)$x / -2", true},
	}
	for _, tt := range tests {
		// $x is an int32: none of the casts is unnecessary
		src := "BEGIN { $x = 1000000; @r = " + tt.expr + "; }"
		file, err := syntax.Parse("t.bt", src)
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, err)
		}
		prog, err := check.Check(file, nil, check.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.expr, syntax.Render(err, src))
		}
		var got bool
		for _, w := range prog.Warnings {
			switch {
			case w.Msg == "signed operands for '"+strings.Fields(tt.expr)[1]+"' can lead to undefined behavior (cast to unsigned to silence warning)":
				got = true
			case strings.HasPrefix(w.Msg, "Expression of type: "):
				// the conversion of an operand (TestCastWarnings)
			default:
				t.Errorf("%s: unexpected warning %q", tt.expr, w.Msg)
			}
		}
		if got != tt.warn {
			t.Errorf("%s: warning %v, want %v", tt.expr, got, tt.warn)
		}
	}
}

// TestSizeofVariable checks sizeof of scratch variables: the size of the
// type bpftrace 0.26 gives the variable, the smallest type of an integer
// literal promoted over its assignments, not the 64 bits it is stored in.
func TestSizeofVariable(t *testing.T) {
	tests := []struct {
		stmts string
		want  uint64
	}{
		{"$x = 1;", 1},
		{"$x = 1000;", 2},
		{"$x = 100000;", 4},
		{"$x = 1 << 40;", 8},
		{"$x = -1;", 1},
		{"$x = 1; $x = 1000;", 2},
		{"$x = 1000; $x = 1;", 2},
		{"$x = (uint32)3;", 4},
		{"$x = 1; $x = (uint8)2;", 1},
		{"$x = (uint8)1; $x = (int16)-1;", 2},
		{"$x = (uint16)1; $x = (int16)-1;", 4},
		{"$x = (uint64)1; $x = (int64)-1;", 8},
		{"$y = 1; $x = $y;", 1},
		{"$x = 1 == 1;", 1},
		{"$x = pid;", 4},
		{"$x = nsecs;", 8},
		{"$x = 1 + 1;", 1},
		{"$y = 1; $x = $y + 1;", 8},
		{"let $x: int16 = 1;", 2},
		{"let $x = 1;", 1},
		{`$x = "hi";`, 3},
		{`$x = "hi"; $x = "hello";`, 6},
		{"$x = (1, (int16)2);", 4},
	}
	for _, tt := range tests {
		src := "BEGIN { " + tt.stmts + " $r = sizeof($x); }"
		file, err := syntax.Parse("t.bt", src)
		if err != nil {
			t.Fatalf("%s: %v", tt.stmts, err)
		}
		prog, err := check.Check(file, nil, check.Options{})
		if err != nil {
			t.Errorf("%s: %v", tt.stmts, syntax.Render(err, src))
			continue
		}
		p := prog.Probes[0]
		stmts := p.AST.Body.Stmts
		rhs := stmts[len(stmts)-1].(*ast.AssignStmt).Rhs
		if got := p.Info.Consts[rhs].Int; got != tt.want {
			t.Errorf("%s sizeof($x) = %d, want %d", tt.stmts, got, tt.want)
		}
	}
}

// TestFlexibleOperands: a variable or map that only ever held
// non-negative literals ($f = 49) takes the other operand's sign in a
// binary operation, as the literals do in bpftrace 0.27 ((uint64)x * $f is
// a uint64, and (uint64)x > $f compares unsigned); a cast or a negative
// value is not flexible.
func TestFlexibleOperands(t *testing.T) {
	const prelude = "$f = 49; $f2 = 50; $f2 = 7; $g = $f; $n = -1; $c = (int64)49; $q = (int8)49; $mixed = 49; $mixed = -1; @m = 49; "
	tests := []struct {
		expr, typ string
		signedCmp bool // for a comparison: whether it is signed
	}{
		{"(uint64)1 * $f", "uint64", false},
		{"$f * (uint64)1", "uint64", false},
		{"(uint64)1 | $f2", "uint64", false},
		{"(uint64)1 ^ $g", "uint64", false},
		{"(uint64)1 * @m", "uint64", false},
		{"(uint64)1 * $n", "int64", false},
		{"(uint64)1 * $c", "int64", false},
		{"(uint64)1 * $q", "int64", false},
		{"(uint64)1 * $mixed", "int64", false},
		{"(uint64)1 - $f", "int64", false},
		{"(int32)-1 * $f", "int64", false},
		{"(uint64)1 > $f", "bool", false},
		{"@m < (uint64)1", "bool", false},
		{"(uint64)1 > $c", "bool", true},
		{"(uint64)1 > $n", "bool", true},
		{"(int8)-1 > $f", "bool", true},
		// a cast is not flexible: (int32)5 makes the comparison signed
		{"(uint64)1 > (int32)5", "bool", true},
		{"(uint64)1 > 5", "bool", false},
	}
	for _, tt := range tests {
		p, rhs := lastAssigned(t, "BEGIN { "+prelude+"$r = "+tt.expr+"; }")
		if p == nil {
			continue
		}
		if got := p.Info.TypeOf(rhs).String(); got != tt.typ {
			t.Errorf("%s: type %s, want %s", tt.expr, got, tt.typ)
		}
		if b, ok := rhs.(*ast.Binary); ok && tt.typ == "bool" {
			if got := p.Info.SignedCompare(b.X, b.Y); got != tt.signedCmp {
				t.Errorf("%s: signed comparison %v, want %v", tt.expr, got, tt.signedCmp)
			}
		}
	}
}

// lastAssigned checks src and returns its probe and the value its last
// statement assigns; nil (the error reported) when src does not check.
func lastAssigned(t *testing.T, src string) (*check.Probe, ast.Expr) {
	t.Helper()
	file, err := syntax.Parse("t.bt", src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	prog, err := check.Check(file, nil, check.Options{})
	if err != nil {
		t.Errorf("%s", syntax.Render(err, src))
		return nil, nil
	}
	p := prog.Probes[0]
	stmts := p.AST.Body.Stmts
	return p, stmts[len(stmts)-1].(*ast.AssignStmt).Rhs
}

// TestCastWarnings checks bpftrace 0.27's warning for an integer converted
// implicitly to a type that does not hold all its values, with the columns
// 0.27 gives: an operand of arithmetic converted to its result type, the
// operands of a comparison to their promoted type, a value assigned to a
// variable or map whose type other assignments promoted, and x op= y (read
// as x = x op y) converted to x's declared type, from the operator on.
func TestCastWarnings(t *testing.T) {
	tests := []struct {
		src  string
		want []string // col-col: from to
	}{
		{"begin { $a = (int64)1; $b = $a + (uint64)5; }", []string{"34-42: uint64 int64"}},
		{"begin { $a = (int32)-1; $b = $a * (uint64)5; }", []string{"35-43: uint64 int64"}},
		{"begin { $a = (uint64)1; $b = $a > -1; }", []string{"30-32: uint64 int64"}},
		{"begin { $a = (uint64)1; $b = (int8)-1; $c = $a == $b; }", []string{"45-47: uint64 int64"}},
		{"begin { $a = (uint32)1; $b = (int8)-1; $c = $a < $b; $d = $a + $b; }", nil},
		{"begin { @c = count(); $b = (int8)-1; $d = @c + $b; }", nil},
		{"begin { $f = 49; $u = (uint64)2; $d = $u * $f; $e = $u > $f; }", nil},
		{"begin { let $x: uint8 = 1; $x += 5; }", []string{"31-35: uint64 uint8"}},
		{"begin { let $x: int16 = 1; $x *= 300; }", []string{"31-37: int64 int16"}},
		{"begin { let $x: int64 = 1; $x += (uint64)5; }", []string{"34-42: uint64 int64"}},
		{"begin { let $x: uint32 = 1; $x <<= 3; $x -= 1; }", []string{"32-37: uint64 uint32", "42-46: int64 uint32"}},
		{"begin { $x = (uint8)1; $x += 1000; }", nil},
		{"begin { @a = (int64)1; @a += (uint64)5; }", []string{"30-38: uint64 int64"}},
		{"begin { $a = (uint64)1; $a -= 5; }", []string{"14-22: uint64 int64"}},
		{"begin { @a = (uint64)1; @a -= 5; }", []string{"14-22: uint64 int64"}},
		{"begin { @a = (uint64)1; @a = (int8)-1; $v = (uint64)1; $v = (int8)-1; }", []string{"14-22: uint64 int64", "45-53: uint64 int64"}},
		{"begin { let $x: int8 = 1; $x = (int64)5; $x = ($x + 1); }", []string{"32-39: int64 int8", "48-54: int64 int8"}},
	}
	re := regexp.MustCompile(`^Expression of type: (\w+) being cast to type: (\w+)\. This may cause unexpected results\. Use an explicit cast to suppress this warning\.$`)
	for _, tt := range tests {
		file, err := syntax.Parse("t.bt", tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		prog, err := check.Check(file, nil, check.Options{})
		if err != nil {
			t.Errorf("%s", syntax.Render(err, tt.src))
			continue
		}
		var got []string
		for _, w := range prog.Warnings {
			if m := re.FindStringSubmatch(w.Msg); m != nil {
				got = append(got, fmt.Sprintf("%d-%d: %s %s", w.Pos.Column, w.End.Column, m[1], m[2]))
			}
		}
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s: warnings\n%s\nwant\n%s", tt.src, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
}

// TestCompoundPromotes: x op= y is x = x op y, so x's type is promoted
// with the type of x op y, as bpftrace 0.27 does: $a = (uint64)1; $a -= 5
// holds -4, an int64; a declared type stays.
func TestCompoundPromotes(t *testing.T) {
	for _, tt := range []struct{ stmts, typ string }{
		{"$a = (uint64)1; $a -= 5;", "int64"},
		{"$a = (uint32)1; $a += 5;", "uint64"},
		{"$a = (uint16)1; $a |= (int8)-1;", "int64"},
		{"$a = (uint64)0; $a--;", "int64"},
		{"$a = (uint8)255; $a++;", "uint64"},
		{"$a = 1; $a *= (uint64)5;", "uint64"},
		{"let $a: uint8 = 1; $a -= 5;", "uint8"},
		{"@a = (uint64)1; @a -= 5; $a = @a;", "int64"},
		{"@a = (uint64)1; @a--; $a = @a;", "int64"},
		{"@a = (uint32)1; @a++; $a = @a;", "uint64"},
	} {
		wantReadType(t, tt.stmts, "$a", tt.typ)
	}
}

// wantReadType checks that x, read after stmts, has type typ.
func wantReadType(t *testing.T, stmts, x, typ string) {
	t.Helper()
	p, rhs := lastAssigned(t, "BEGIN { "+stmts+" $r = "+x+"; }")
	if p == nil {
		return
	}
	if got := p.Info.TypeOf(rhs).String(); got != typ {
		t.Errorf("%s: %s reads as %s, want %s", stmts, x, got, typ)
	}
}

// TestFoldedCompareSign: a comparison of constants folds with the
// signedness it has at run time: (uint64)18446744073709551513 (that is,
// -103) > (int32)5 is false, as in bpftrace 0.27; > 5 compares unsigned.
func TestFoldedCompareSign(t *testing.T) {
	for expr, want := range map[string]uint64{
		"(uint64)18446744073709551513 > (int32)5": 0,
		"(uint64)18446744073709551513 > 5":        1,
	} {
		p, rhs := lastAssigned(t, "BEGIN { $r = "+expr+"; }")
		if p == nil {
			continue
		}
		if cv, ok := p.Info.Consts[rhs]; !ok || cv.Int != want {
			t.Errorf("%s folds to %v (%v), want %d", expr, cv.Int, ok, want)
		}
	}
}

// TestAggregationSign: an aggregation is signed as its arguments are, and
// signed when it is given both, as in bpftrace 0.27: max((uint64)x) reads
// as a uint64.
func TestAggregationSign(t *testing.T) {
	for _, tt := range []struct{ stmts, typ string }{
		{"@m = max((uint64)1);", "uint64"},
		{"@m = min((uint32)1);", "uint64"},
		{"@m = avg((uint64)1);", "uint64"},
		{"@m = sum((uint64)1);", "uint64"},
		{"@m = max(5);", "int64"},
		{"@m = max((int8)-1);", "int64"},
		{"@m = max((uint64)1); @m = max(5);", "int64"},
		{"@m = sum((uint64)1); @m = sum(-3);", "int64"},
		{"@m = min(5); @m = min((uint64)1);", "int64"},
	} {
		wantReadType(t, tt.stmts, "@m", tt.typ)
	}
}

// TestCompoundSignedDivision: x /= y and x %= y warn as x = x / y does,
// from the operator to the end of y (bpftrace 0.27).
func TestCompoundSignedDivision(t *testing.T) {
	for src, want := range map[string]string{
		"begin { $a = (int64)-7; $a /= 16; }":                   "28-33",
		"begin { $a = -7; $a %= 4; }":                           "21-25",
		"begin { $b = (uint64)5; $b /= 2; }":                    "",
		"begin { $c = (int8)-7; $c /= (int8)2; $c = (int8)1; }": "27-37",
	} {
		file, err := syntax.Parse("t.bt", src)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := check.Check(file, nil, check.Options{})
		if err != nil {
			t.Fatalf("%s", syntax.Render(err, src))
		}
		got := ""
		for _, w := range prog.Warnings {
			if strings.HasPrefix(w.Msg, "signed operands for ") {
				got = fmt.Sprintf("%d-%d", w.Pos.Column, w.End.Column)
			}
		}
		if got != want {
			t.Errorf("%s: signed division warning at %q, want %q", src, got, want)
		}
	}
}
