package syntax_test

import (
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/syntax"
)

// TestIntSuffixes checks C's integer suffixes: accepted in either case
// (bpftrace 0.26's documentation writes 123UL), ignored but for the range
// they allow, combined with hex, octal, underscores and exponents.
func TestIntSuffixes(t *testing.T) {
	checkExprTrees(t, []struct{ src, want string }{
		{"123UL", "(int 123)"},
		{"1u", "(int 1)"},
		{"10LL", "(int 10)"},
		{"1_000u", "(int 1000)"},
		{"1_000ul", "(int 1000)"},
		{"1_000ull", "(int 1000)"},
		{"1_000l", "(int 1000)"},
		{"1_000ll", "(int 1000)"},
		{"0x10UL", "(int 16)"},
		{"0xffu", "(int 255)"},
		{"0777u", "(int 511)"},
		{"1e3u", "(int 1000)"},
		{"4294967295u", "(int 4294967295)"},
		{"9223372036854775807l", "(int 9223372036854775807)"},
		{"18446744073709551615ULL", "(int 18446744073709551615)"},
		{"10us", "(int 10 us)"},
	})
	for _, tt := range []struct{ src, want string }{
		{"4294967296u", `integer literal "4294967296u" out of range`},
		{"9223372036854775808ll", `integer literal "9223372036854775808ll" out of range`},
		{"1ulll", `invalid integer literal "1ulll"`},
		{"1lul", `invalid integer literal "1lul"`},
		{"1_u", `invalid integer literal "1_u"`},
		{"1msu", `invalid integer literal "1msu"`},
	} {
		_, err := syntax.ParseExpr(tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseExpr(%q): error %v, want %q", tt.src, err, tt.want)
		}
	}
}
