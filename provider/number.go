package provider

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
)

// durationSuffixes are the suffixes a number in an attach point may carry
// and what they multiply it by (nanoseconds for the time units), as
// bpftrace 0.26 reads integers.
var durationSuffixes = map[string]uint64{
	"": 1, "u": 1, "ul": 1, "ull": 1, "l": 1, "ll": 1,
	"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9,
}

// parseNumber reads an unsigned integer of an attach point the way
// bpftrace 0.26 does: underscores are dropped, 0x/0b/0 prefixes set the
// base, a scientific form "1e6" has a one-digit coefficient, and a time
// suffix (ns, us, ms, s, m, h, d) scales to nanoseconds.
func parseNumber(s string) (uint64, error) {
	n := strings.ReplaceAll(s, "_", "")
	base := 10
	switch {
	case len(n) >= 2 && (strings.HasPrefix(n, "0x") || strings.HasPrefix(n, "0X")):
		base, n = 16, n[2:]
	case len(n) >= 2 && (strings.HasPrefix(n, "0b") || strings.HasPrefix(n, "0B")):
		base, n = 2, n[2:]
	case len(n) >= 2 && n[0] == '0' && n[1] >= '0' && n[1] <= '7':
		base, n = 8, n[1:]
	}
	i := 0
	for i < len(n) && digitIn(n[i], base) {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("invalid integer: %s", s)
	}
	v, err := strconv.ParseUint(n[:i], base, 64)
	if err != nil {
		return 0, fmt.Errorf("overflow error, maximum value is %d: %s", uint64(math.MaxUint64), s)
	}
	rest := n[i:]
	if len(rest) >= 2 && (rest[0] == 'e' || rest[0] == 'E') && rest[1] >= '1' && rest[1] <= '9' {
		if v == 0 || v >= 10 {
			return 0, fmt.Errorf("coefficient part of scientific literal must be 1-9: %s", s)
		}
		j := 1
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		exp, err := strconv.ParseUint(rest[1:j], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid exponent: %s", s)
		}
		for ; exp > 0; exp-- {
			if v > math.MaxUint64/10 {
				return 0, fmt.Errorf("overflow error, maximum value is %d: %s", uint64(math.MaxUint64), s)
			}
			v *= 10
		}
		rest = rest[j:]
	}
	mul, ok := durationSuffixes[rest]
	if !ok {
		return 0, fmt.Errorf("invalid trailing bytes: %s", s)
	}
	hi, lo := bits.Mul64(v, mul)
	if hi != 0 {
		return 0, errors.New("overflow error: " + s)
	}
	return lo, nil
}

func digitIn(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '9':
		return int(c-'0') < base
	case base == 16 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		return true
	}
	return false
}

// parseCount reads a positive count (a period, a frequency).
func parseCount(s string) (uint64, error) {
	v, err := parseNumber(s)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("invalid count %q: want a positive integer", s)
	}
	return v, nil
}
