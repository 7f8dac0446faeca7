package btdiff

import (
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
	{Name: "map order", Why: "bpftrace bug: it sorts the entries of an integer-valued map with an unstable sort " +
		"(std::ranges::sort in types_format.cpp), and reads values narrower than 64 bits as 64-bit ones, " +
		"so entries with equal or narrow values come in any order; gotrace sorts by value, then by key",
		Match: func(d Disagreement) bool {
			return d.Got.Refused == "" && d.Want.Refused == "" && d.Got.Out != d.Want.Out &&
				sortMapLines(d.Got.Out) == sortMapLines(d.Want.Out)
		}},
	{Name: "signed division", Why: "bpftrace bug: /, % and >> of a negative value held in a variable or computed " +
		"at run time are done as unsigned 64-bit operations ($a = -7; $a / 2 is 9223372036854775804); gotrace " +
		"divides as C does (and warns about signed division as bpftrace does). The generator divides and shifts " +
		"right unsigned values only; e2e TestDiff* covers the signed ones against lang/eval"},
	{Name: "narrow unary", Why: "bpftrace bug: - and ~ of an int8, int16 or int32 value print as unsigned " +
		"(~(int16)5 is 65530, -$v of $v = 121 is 135); gotrace gives -6 and -121. The generator negates " +
		"64-bit or unsigned values only"},
	{Name: "mixed signs", Why: "deliberate: bpftrace promotes a uint64 compared with (or aggregated with) a signed " +
		"value to a signed type, with a warning, so (uint64)-103 >= 1 is false and stats() of (uint32)-29 after " +
		"stats(4) adds -29; gotrace compares and aggregates as C does (unsigned), with the same warning. The " +
		"generator compares and aggregates values of one signedness"},
	{Name: "narrow array cast of a variable", Why: "bpftrace bug: (int8[4])$x of $x = -1 reads bytes past the " +
		"variable's one byte ([-1,55,117,0]); gotrace zero-fills ([-1,0,0,0]). Not generated; e2e TestArrayCastWiden"},
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
