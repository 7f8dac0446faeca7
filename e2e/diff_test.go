package e2e

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/eval"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/runtime"
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

// diffScript builds a BEGIN script that prints each expression on its own
// line with the given printf formats.
func diffScript(exprs, formats []string) string {
	var sb strings.Builder
	sb.WriteString("BEGIN {\n")
	for _, p := range diffPrelude {
		sb.WriteString("\t" + p + ";\n")
	}
	for i, e := range exprs {
		fmt.Fprintf(&sb, "\tprintf(\"%s\\n\", %s);\n", formats[i], e)
	}
	sb.WriteString("\texit();\n}\n")
	return sb.String()
}

// expected runs the script's BEGIN probe through the evaluator: it executes
// the assignments and returns, for each printf, the evaluator's value and
// the printed expression.
func expected(t *testing.T, s *gotrace.Script) (vals []eval.Value, srcs []string) {
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
					v, err := env.Expr(c.Args[1])
					if err != nil {
						t.Fatalf("eval: %v", err)
					}
					sp := c.Args[1].GetSpan()
					vals = append(vals, v)
					srcs = append(srcs, s.Source[sp.Start.Offset:sp.End.Offset])
					continue
				}
			}
		}
		if err := env.Exec(st); err != nil {
			t.Fatalf("eval: %v", err)
		}
	}
	return vals, srcs
}

// printed is what printf prints for v with %lld/%llu/%s.
func printed(v eval.Value) string {
	if v.Type.Kind == types.Bool {
		// A bool argument is read as its low byte.
		if v.Bits&0xff != 0 {
			return "1"
		}
		return "0"
	}
	return v.String()
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

// runDiff compiles and runs one script and compares every printed line
// with the evaluator.
func runDiff(t *testing.T, exprs, formats []string) {
	t.Helper()
	src := diffScript(exprs, formats)
	s, err := gotrace.Compile("diff.bt", src, gotrace.Options{Params: diffParams})
	if err != nil {
		t.Fatalf("compile: %s\n%s", gotrace.FormatError(err, src), src)
	}
	want, srcs := expected(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code, err := s.Run(ctx, runtime.Options{Stdout: &stdout, Stderr: &stderr, Quiet: true, NoSignals: true})
	if err != nil || code != 0 {
		t.Fatalf("run: code %d, %v\n%s\nstderr: %s", code, s.FormatError(err), src, stderr.String())
	}
	got := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d lines, want %d:\n%s", len(got), len(want), stdout.String())
	}
	bad := 0
	for i := range want {
		w := printed(want[i])
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
	"1 << 64", "1 << 65", "-1 >> 64", "$i1 << 63", "$i6 >> 63", "$u1 >> 63", "$i6 >> $u4",
	// division and remainder, signs and zero
	"$i11 / 2", "$i11 % 2", "7 / $i11", "7 % $i11", "$i11 / $i11", "-7 / -2", "-7 % -2",
	"$i6 / $i2", "$i6 % $i2", "$i5 / $i0", "$i11 % $i0", "$u0 / $i0", "$u0 % $u3", "5 / 0", "-5 % 0",
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
	// strings
	`$s0 == "abc"`, `$s0 != $s1`, `$4 == "hello"`, `$5 == $4`, `$s3 == "abcdefghij"`, `$s3 == "abcdefghi"`,
	`$s2 == ""`, `strlen($s3)`, `strlen($4)`, `strlen("")`, `strncmp($4, $5, 4)`, `strncmp($4, $5, 5)`,
	`strncmp($s0, $s1, 2)`, `strncmp($s0, $s1, 3)`, `($i1 ? $s0 : $s1) == "abc"`, `($i0 ? $s0 : $s1) == "abc"`,
	// positional parameters
	"$1 + $2", "$3 + 1", "$3 > $1", "$2 < $3", "$# * 2", "$6 >> 63", "$2 / $1", "$2 % 3",
	// constants folded by the checker
	"0x7fffffffffffffff + 1", "0xffffffffffffffff / 3", "-9223372036854775808 / -1", "(int8)200 * 2",
	"1000000007 * 1000000007 % 998244353", "0xffffffff << 32 >> 32",
}

// TestDiffCases compares the hand-picked edge cases.
func TestDiffCases(t *testing.T) {
	needRoot(t)
	formats := make([]string, len(diffCases))
	// The formats follow the checked types: check once with placeholders.
	s, err := gotrace.Compile("diff.bt", diffScript(diffCases, repeat("%s", len(diffCases))), gotrace.Options{Params: diffParams})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	vals, _ := expected(t, s)
	for i, v := range vals {
		formats[i] = format(v.Type)
	}
	runDiff(t, diffCases, formats)
}

func repeat(s string, n int) []string {
	r := make([]string, n)
	for i := range r {
		r[i] = s
	}
	return r
}

var _ = rand.New
