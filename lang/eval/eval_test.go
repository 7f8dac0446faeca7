package eval_test

import (
	"errors"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/eval"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/tracefs"
)

// noEnv is a machine without tracepoints or BTF: BEGIN scripts need none.
type noEnv struct{}

func (noEnv) Tracepoints(string) ([]string, error) { return nil, errors.New("no tracefs") }
func (noEnv) TracepointFormat(string, string) (*tracefs.Format, error) {
	return nil, errors.New("no tracefs")
}
func (noEnv) BTF() (*btf.Spec, error) { return nil, errors.New("no BTF") }

const prelude = `$m1 = -1; $big = 0xffffffffffffffff; $min = -0x7fffffffffffffff - 1; $s = "abc"; $t = true; `

// evalLast checks `BEGIN { prelude; $r = expr; }`, runs the statements
// through an Env and returns the value of expr.
func evalLast(t *testing.T, expr string) (eval.Value, error) {
	t.Helper()
	src := "BEGIN { " + prelude + "$r = " + expr + "; }"
	file, err := syntax.Parse("test.bt", src)
	if err != nil {
		t.Fatalf("parse %q: %v", expr, syntax.Render(err, src))
	}
	prog, err := check.Check(file, noEnv{}, check.Options{Params: []string{"42", "hello", "18446744073709551615", "-5"}})
	if err != nil {
		t.Fatalf("check %q: %v", expr, syntax.Render(err, src))
	}
	p := prog.Probes[0]
	env := eval.NewEnv(p.Info)
	stmts := p.AST.Body.Stmts
	for _, s := range stmts[:len(stmts)-1] {
		if err := env.Exec(s); err != nil {
			t.Fatalf("exec: %v", err)
		}
	}
	return env.Expr(stmts[len(stmts)-1].(*ast.AssignStmt).Rhs)
}

func TestExpr(t *testing.T) {
	tests := []struct {
		expr, want, typ string
	}{
		// literals and parameters
		{"0", "0", "int64"},
		{"0x7fffffffffffffff", "9223372036854775807", "int64"},
		{"0x8000000000000000", "9223372036854775808", "uint64"},
		{"1_000", "1000", "int64"},
		{"2ms", "2000000", "int64"},
		{"$1", "42", "int64"},
		{"$3", "18446744073709551615", "uint64"},
		{"$4 * 2", "-10", "int64"},
		{"$#", "4", "int64"},
		{"$9", "0", "int64"},
		{"true", "1", "bool"},
		// arithmetic wraps in 64 bits
		{"0x7fffffffffffffff + 1", "9223372036854775808", "uint64"}, // literals fold exactly
		{"$m1 + 0x7fffffffffffffff + 2", "-9223372036854775808", "int64"},
		{"$big + 1", "0", "uint64"},
		{"$m1 * $m1", "1", "int64"},
		{"$min - 1", "9223372036854775807", "int64"},
		{"-$min", "-9223372036854775808", "int64"},
		{"-$big", "1", "uint64"},
		{"-(uint8)255", "1", "uint8"},
		{"-(-(uint8)19)", "19", "uint8"},
		{"-(int8)-128", "-128", "int8"},
		// 64-bit results: signed when an operand is signed, always for -;
		// a non-negative literal takes the other operand's sign
		{"$m1 + (uint64)0", "-1", "int64"},
		{"(uint8)250 + (uint8)10", "260", "uint64"},
		{"(uint64)1 - (uint64)2", "-1", "int64"},
		{"(uint32)0xffffffff * (uint32)0xffffffff", "18446744065119617025", "uint64"},
		{"(uint32)$m1 + 1", "4294967296", "uint64"},
		{"(int8)-1 + (uint8)1", "0", "int64"},
		// mixed signs divide as unsigned 64-bit numbers (bpftrace)
		{"$m1 / (uint64)2", "9223372036854775807", "int64"},
		{"$m1 / (uint32)2", "9223372036854775807", "int64"},
		{"$m1 % (uint8)10", "5", "int64"},
		{"$big / 2", "9223372036854775807", "uint64"},
		// division: truncation toward zero, C remainders, zero divisors
		{"-7 / 2", "-3", "int64"},
		{"-7 % 2", "-1", "int64"},
		{"7 % -2", "1", "int64"},
		{"-7 / -2", "3", "int64"},
		{"$min / $m1", "-9223372036854775808", "int64"},
		{"$min % $m1", "0", "int64"},
		{"5 / ($m1 + 1)", "1", "int64"}, // bpftrace: 1, and a warning
		{"-5 % ($m1 + 1)", "1", "int64"},
		{"$big % 0", "1", "uint64"},
		{"(uint64)10 / (uint64)0", "1", "uint64"},
		{"$big / 10", "1844674407370955161", "uint64"},
		// shifts use the count's low 6 bits; >> is arithmetic when signed
		{"1 << 63", "9223372036854775808", "uint64"},
		{"-1 << 63", "-9223372036854775808", "int64"},
		{"$m1 << 64", "-1", "int64"},
		{"(uint64)1 << 65", "2", "uint64"},
		{"-8 >> 1", "-4", "int64"},
		{"1 << $m1", "-9223372036854775808", "int64"},
		{"$m1 >> 60", "-1", "int64"},
		{"$big >> 60", "15", "uint64"},
		{"$m1 >> (uint64)60", "15", "int64"},
		{"(uint32)$m1 >> 1", "2147483647", "uint64"},
		// bitwise
		{"~0", "18446744073709551615", "uint64"},
		{"~10", "18446744073709551605", "uint64"},
		{"~-11", "10", "int64"},
		{"~$m1", "0", "int8"},
		{"~$big", "0", "uint64"},
		{"~(uint8)0", "255", "uint8"},
		{"~(uint32)$m1", "0", "uint32"},
		{"-(uint16)1", "65535", "uint16"},
		{"~(int8)0", "-1", "int8"},
		{"0xf0 & 0x3c | 1 ^ 3", "50", "int64"},
		// comparisons: signed when an operand is signed (bpftrace promotes
		// uint64 and int64 to int64)
		{"$m1 < 0", "1", "bool"},
		{"$m1 < (uint64)0", "1", "bool"},
		{"$m1 < $big - $big", "1", "bool"},
		{"$big < $m1 + 2", "1", "bool"},
		{"$big < 2", "0", "bool"},
		{"$big > 0", "1", "bool"},
		{"$big == $m1", "1", "bool"},
		{"(int8)-1 < (uint32)0", "1", "bool"},
		{"(uint32)$m1 > 0", "1", "bool"},
		{"$min <= $m1", "1", "bool"},
		{"3 >= 4", "0", "bool"},
		{"3 != 4", "1", "bool"},
		// logical operators and ternaries
		{"!0", "1", "bool"},
		{"!$m1", "0", "bool"},
		{"$m1 && 0", "0", "bool"},
		{"0 || $t", "1", "bool"},
		{"1 || (1 / ($m1 + 1))", "1", "bool"},
		{"$t ? 1 : 2", "1", "int64"},
		{"0 ? $big : 2", "2", "uint64"},
		{"$t ? $big : -1", "-1", "int64"}, // uint64 and int64 branches: int64
		{"$t ? (uint32)5 : (int8)-1", "5", "int64"},
		{"$t ? (uint32)5 : (uint8)1", "5", "uint64"},
		{"$t ? true : false", "1", "bool"},
		{"$m1 ? $s : \"x\"", "abc", "string[8]"},
		// casts truncate and extend
		{"(int8)255", "-1", "int8"},
		{"(uint8)-1", "255", "uint8"},
		{"(int16)0x18000", "-32768", "int16"},
		{"(uint16)$m1", "65535", "uint16"},
		{"(int32)0x80000000", "-2147483648", "int32"},
		{"(uint32)$m1", "4294967295", "uint32"},
		{"(int64)$big", "-1", "int64"},
		{"(uint64)$m1", "18446744073709551615", "uint64"},
		{"(bool)256", "1", "bool"},
		{"(bool)0", "0", "bool"},
		{"(int8)(uint8)200", "-56", "int8"},
		// strings
		{`"abc" == $s`, "1", "bool"},
		{`"abc" != "abd"`, "1", "bool"},
		{`$2 == "hello"`, "1", "bool"},
		{`"" == ""`, "1", "bool"},
		{`"a\0b" == "a\0c"`, "1", "bool"},
		{`strlen($s)`, "3", "uint64"},
		{`strlen("")`, "0", "uint64"},
		{`strlen("ab\0cd")`, "2", "uint64"},
		{`strncmp("hello", "help", 3)`, "0", "int64"},
		{`strncmp("hello", "help", 4)`, "1", "int64"},
		{`strncmp("ab", "abc", 5)`, "1", "int64"},
		{`strncmp("abc", "abc", 10)`, "0", "int64"},
		{`strncmp("a", "b", 0)`, "0", "int64"},
		// bswap
		{"bswap((uint16)0x1234)", "13330", "uint16"},
		{"bswap((uint32)0x12345678)", "2018915346", "uint32"},
		{"bswap(0x0102030405060708)", "578437695752307201", "uint64"},
	}
	for _, tt := range tests {
		v, err := evalLast(t, tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if got := v.String(); got != tt.want || v.Type.String() != tt.typ {
			t.Errorf("%s = %s (%s), want %s (%s)", tt.expr, got, v.Type, tt.want, tt.typ)
		}
	}
}

func TestExec(t *testing.T) {
	tests := []struct {
		stmts, want string
	}{
		{"$a = 5; $a += 3; $a *= -2;", "-16"},
		{"$a = -9; $a /= 2;", "-4"},
		{"$a = -9; $a %= 4;", "-1"},
		{"$a = -9; $a >>= 1;", "-5"},
		{"$a = 0xffffffffffffffff; $a >>= 60;", "15"},
		{"$a = 1; $a <<= 64;", "1"},
		{"let $a: int8 = -3; $a -= 1;", "-4"},
		{"let $a; $a = 7;", "7"},
		{"$a = 1; { $a = 2; }", "2"},
	}
	for _, tt := range tests {
		src := "BEGIN { " + tt.stmts + " }"
		file, err := syntax.Parse("test.bt", src)
		if err != nil {
			t.Fatalf("parse %q: %v", tt.stmts, syntax.Render(err, src))
		}
		prog, err := check.Check(file, noEnv{}, check.Options{})
		if err != nil {
			t.Fatalf("check %q: %v", tt.stmts, syntax.Render(err, src))
		}
		p := prog.Probes[0]
		env := eval.NewEnv(p.Info)
		for _, s := range p.AST.Body.Stmts {
			if err := env.Exec(s); err != nil {
				t.Fatalf("%s: %v", tt.stmts, err)
			}
		}
		var got string
		for _, v := range env.Vars {
			got = v.String()
		}
		if len(env.Vars) != 1 || got != tt.want {
			t.Errorf("%s: $a = %s (%d variables), want %s", tt.stmts, got, len(env.Vars), tt.want)
		}
	}
}

func TestUnsupported(t *testing.T) {
	for _, expr := range []string{"pid + 1", "nsecs", "comm == \"x\"", "$t ? pid : 1"} {
		_, err := evalLast(t, expr)
		if !errors.Is(err, eval.ErrUnsupported) {
			t.Errorf("%s: err = %v, want ErrUnsupported", expr, err)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		v    uint64
		t    *types.Type
		want uint64
	}{
		{0x1ff, types.Int8, ^uint64(0)},
		{0x1ff, types.Uint8, 0xff},
		{0x17fff, types.Int16, 0x7fff},
		{0x80000000, types.Int32, 0xffffffff80000000},
		{0x180000000, types.Uint32, 0x80000000},
		{^uint64(0), types.Int64, ^uint64(0)},
		{2, types.BoolT, 1},
		{0, types.BoolT, 0},
	}
	for _, tt := range tests {
		if got := eval.Truncate(tt.v, tt.t); got != tt.want {
			t.Errorf("Truncate(%#x, %s) = %#x, want %#x", tt.v, tt.t, got, tt.want)
		}
	}
}

func TestArith(t *testing.T) {
	if _, ok := eval.Arith("**", 1, 2, true); ok {
		t.Error("Arith accepted an unknown operator")
	}
	if v, _ := eval.Arith("<", ^uint64(0), 0, true); v != 1 {
		t.Error("signed -1 < 0 is false")
	}
	if v, _ := eval.Arith("<", ^uint64(0), 0, false); v != 0 {
		t.Error("unsigned max < 0 is true")
	}
}
