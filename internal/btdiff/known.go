package btdiff

import (
	"math/big"
	"regexp"
	"sort"
	"strings"
)

// Explanation is a disagreement explained: a bpftrace bug or a deliberate
// difference of gotrace, and how to recognise it. An explanation whose
// Match is nil is one the generator avoids (gen.go says where): the
// construct is compared by the project's own tests instead.
type Explanation struct {
	Name, Why string
	Match     func(d Disagreement) bool
}

// Known lists the explained disagreements.
var Known = []*Explanation{
	{Name: "map order", Why: "deliberate: gotrace prints a map's entries sorted by value, then by key; bpftrace " +
		"0.27 sorts them with an unstable sort (std::ranges::sort in types_format.cpp), so entries of equal " +
		"values come in any order, and it compares values narrower than 64 bits through reduce_value<int64_t>, " +
		"so entries of (uint8) or (int16) values are not in value order (@m[a] = (uint8)0, @m[b] = (uint8)114, " +
		"@m[c] = (uint8)0 prints 0, 114, 0). No bpftrace issue is filed for it. Matched only when gotrace's " +
		"entries are in value order and the two outputs hold the same lines",
		Match: func(d Disagreement) bool {
			return d.Got.Refused == "" && d.Want.Refused == "" && d.Got.Out != d.Want.Out &&
				sortMapLines(d.Got.Out) == sortMapLines(d.Want.Out) && valueOrdered(d.Got.Out)
		}},
	{Name: "signed division", Why: "deliberate: bpftrace divides (/, %) and shifts right (>>) a negative value held " +
		"in a variable or computed at run time as an unsigned 64-bit number ($a = -7; $a / 2 is " +
		"9223372036854775804), since BPF had no signed division (bpftrace#910 added the warning \"signed operands " +
		"for '/' can lead to undefined behavior\" for it); gotrace divides as C does, with the same warning. The " +
		"generator divides and shifts right unsigned values only; e2e TestDiff* covers the signed ones against lang/eval"},
	{Name: "narrow unary", Why: "deliberate: bpftrace computes - and ~ of an int8, int16 or int32 value in its width " +
		"and zero-extends the result, so ~(int16)5 prints 65530 and -$v of $v = 49 (an int8) prints 207; gotrace " +
		"sign-extends (-6, -49). No bpftrace issue is filed for it. The generator negates 64-bit or unsigned values only"},
	{Name: "mixed signs", Why: "deliberate: bpftrace 0.27 sums (and averages) an unsigned value into an " +
		"aggregation that also took a signed one as if it were signed in its own width, so sum(4) then " +
		"sum((uint32)4294967267) prints -25; gotrace adds the values as they are (4294967271). No bpftrace issue " +
		"is filed for it. The generator gives one aggregation values of one type, or literals and int64 values"},
	{Name: "narrow array cast of a variable", Why: "deliberate: (int8[4])$x of $x = -1 reads, in bpftrace, bytes " +
		"past the variable's one byte ([-1,55,117,0]); gotrace zero-fills ([-1,0,0,0]). No bpftrace issue is filed " +
		"for it. Not generated; e2e TestArrayCastWiden"},
}

// Explain returns the explanation of d, or nil.
func Explain(d Disagreement) *Explanation {
	for _, k := range Known {
		if k.Match != nil && k.Match(d) {
			return k
		}
	}
	return nil
}

var mapLineRe = regexp.MustCompile(`^@\w+\[`)

// sortMapLines sorts each run of keyed map entries of out.
func sortMapLines(out string) string {
	lines := strings.Split(out, "\n")
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && mapLineRe.MatchString(lines[j]) {
			j++
		}
		if j > i {
			sort.Strings(lines[i:j])
			i = j
			continue
		}
		i++
	}
	return strings.Join(lines, "\n")
}

var mapEntryRe = regexp.MustCompile(`^(@\w+\[.*\]): (-?\d+)$`)

// valueOrdered reports whether each print of a map in out whose values are
// integers has its entries in ascending value order. A print ends at a
// line that is not an entry, at another map's entry, or at a key printed
// already (the same map printed again).
func valueOrdered(out string) bool {
	var prev *big.Int
	seen := map[string]bool{}
	name := ""
	for _, l := range strings.Split(out, "\n") {
		m := mapEntryRe.FindStringSubmatch(l)
		if m == nil || !strings.HasPrefix(m[1], name+"[") || seen[m[1]] {
			prev, seen = nil, map[string]bool{}
		}
		if m == nil {
			continue
		}
		name, _, _ = strings.Cut(m[1], "[")
		seen[m[1]] = true
		v, _ := new(big.Int).SetString(m[2], 10)
		if prev != nil && prev.Cmp(v) > 0 {
			return false
		}
		prev = v
	}
	return true
}
