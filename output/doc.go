// Package output turns the raw bytes gotrace reads back from BPF maps and
// ringbuf events into bpftrace's exact text output. It is pure Go and needs
// no kernel.
//
// The reference is bpftrace 0.26 (src/output/text.cpp, src/types_format.cpp,
// src/format_string.cpp). Where it differs from the bpftrace 0.17 that Debian
// and Ubuntu still ship, this package follows 0.26:
//
//   - stats() values print as a record: "@s: { .count = 3, .average = 2, .total = 6 }"
//     (0.17: "@s: count 3, average 2, total 6").
//   - histogram headers have no trailing space ("@h:" rather than "@h: "),
//     and a one-value bucket whose bounds are plain integers prints as "[3]"
//     (0.17: lhist with step 1 printed "[3, 4)").
//   - only histograms (hist, lhist) are followed by a blank line; other maps
//     are not (0.17 also added one after avg and stats maps).
//   - empty maps print nothing (0.17 printed an empty line).
//   - min()/max() keyed maps are sorted by their value compared as uint64,
//     exactly as bpftrace 0.26 does (negative values sort after positive).
//   - printf follows C++ iostream semantics, as bpftrace >= 0.24 does: the
//     precision is ignored for integers and strings, the space flag is
//     ignored, and width padding with the '0' flag goes before any sign or
//     "0x" prefix ("%05d" of -5 is "000-5"; "%-05d" of 42 is "42000").
//
// At exit bpftrace prints "\n\n" and then every map in name order with
// WriteMap; print(@m) calls WriteMap directly. print(value) prints
// FormatValue's result followed by "\n".
//
// With -f json (WriteMapJSON, FormatValueJSON, the JSON* functions in
// json.go) every message is one line in the exact layout of bpftrace 0.26's
// src/output/json.cpp: ", " between object members, "," between array
// elements, integers a float64 cannot hold exactly quoted as strings, map
// keys as their text rendering without parentheses or spaces, histogram
// buckets as {"min", "max", "count"} with closed bounds. One bpftrace
// quirk is kept: an -e script is named "stdin" in errorf/warnf messages.
// Two are not: bpftrace escapes every string byte >= 0x80 as \uffffffXX,
// which is not JSON (gotrace passes valid UTF-8 through and writes other
// bytes as \u00XX, see JSONString), and it leaves its stream in
// hexadecimal after such an escape, which then garbles later histogram
// counts.
//
// The bucket functions HistBucket and LhistBucket define the bucket index
// that generated BPF code stores in the last 8 bytes of a histogram map key;
// codegen must compute exactly the same index.
package output
