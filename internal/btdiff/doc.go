// Package btdiff is the differential check against the real bpftrace:
// it generates deterministic scripts (integer arithmetic of every width
// and sign, compound assignments, ++ and --, casts (also to C's one-word
// names: char takes its sign from the kernel's BTF), comparisons, tuples and
// records, strings, str() and buf(), map reads and prints, printf
// conversions, hist, lhist, stats and the other aggregations over known
// values),
// runs each through gotrace and through a reference bpftrace (0.27.1,
// scripts/bpftrace27.sh installs it), and compares what they print.
//
// Programs are begin probes, many to a script (bpftrace takes seconds to
// start): each prints a marker line and then its values, so that the
// output splits back into programs. A program one tool refuses is taken
// out of the batch (the error's line names it) and reported when the
// other accepts it. What the tools print at exit (every map) is compared
// too, attributed by map name. With Tool.JSON the tools print -f json,
// and each event is laid out as the text form's lines before the split.
//
// Every disagreement is a gotrace bug to fix, a documented deliberate
// difference, or a bpftrace bug named with its issue number: Known lists
// the last two, with the generator's choices that avoid them (see gen.go).
package btdiff
