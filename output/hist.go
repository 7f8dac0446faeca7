package output

import (
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
)

// MaxHistBits is the largest k accepted by hist(n, k).
const MaxHistBits = 5

// HistBucket returns the bucket index of v in a log2 histogram with k bits
// (hist(v, k), k in 0..MaxHistBits; k is clamped to that range). It is the
// index that codegen stores in the last 8 bytes of a Hist map key, computed
// exactly as bpftrace's log2 helper:
//
//	v < 0            -> 0
//	0 <= v < 2^k     -> v + 1
//	v >= 2^k         -> ((l - k + 1) << k) + ((v >> (l - k)) & (2^k - 1)) + 1
//	                    where l = floor(log2(v)), the position of v's top bit
//
// For k = 0 this is: 0 for negative values, 1 for 0, 2 for 1, and j+2 for
// [2^j, 2^(j+1)), j >= 1. Each power of two is split into 2^k sub-buckets for
// k > 0. The largest index is (64-k) << k.
func HistBucket(v int64, k int) uint64 {
	k = min(max(k, 0), MaxHistBits)
	if v < 0 {
		return 0
	}
	n := uint64(v)
	mask := uint64(1)<<uint(k) - 1
	if n <= mask {
		return n + 1
	}
	l := uint64(bits.Len64(n)-1) - uint64(k)
	x := (n >> l) & mask
	return ((l + 1) << uint(k)) + x + 1
}

// maxHistIndex is the largest index HistBucket returns for k bits.
func maxHistIndex(k int) uint64 { return uint64(64-k) << uint(k) }

// LhistBucket returns the bucket index of v in lhist(v, min, max, step), the
// index codegen stores in the last 8 bytes of an Lhist map key, computed as
// bpftrace's linear helper (C integer division):
//
//	v < min   -> 0
//	v > max   -> 1 + (max-min)/step
//	otherwise -> 1 + (v-min)/step
//
// With N = (max-min)/step and (max-min) a multiple of step, bucket i in 1..N
// holds [min+(i-1)*step, min+i*step) and bucket N+1 holds values >= max.
// A step <= 0 (rejected by the checker) yields 0.
func LhistBucket(v, min, max, step int64) uint64 {
	if step <= 0 || v < min {
		return 0
	}
	if v > max {
		return uint64(1 + (max-min)/step)
	}
	return uint64(1 + (v-min)/step)
}

// histLabel is one bucket boundary: a plain integer, or a symbolic label such
// as "1K" (which never collapses into a one-value "[n]" bucket). n is the
// label's value; for a symbolic label it holds the bits of bpftrace's uint64
// numeric value, which the JSON output prints.
type histLabel struct {
	text  string
	n     int64
	isInt bool
}

func intLabel(n int64) histLabel {
	return histLabel{text: strconv.FormatInt(n, 10), n: n, isInt: true}
}

// histogram mirrors bpftrace's output::Value::Histogram: labels[i] is the
// upper bound of row i, lower (if any) the lower bound of row 0; a row past
// the last label is the open-ended overflow row.
type histogram struct {
	lower  *histLabel
	labels []histLabel
	counts []uint64
}

// nonEmpty returns the lowest and highest bucket with a non-zero count, or
// ok == false when there is none.
func nonEmpty(counts map[uint64]uint64) (lo, hi int, ok bool) {
	first := true
	var l, h uint64
	for b, c := range counts {
		if c == 0 {
			continue
		}
		if first || b < l {
			l = b
		}
		if first || b > h {
			h = b
		}
		first = false
	}
	return int(l), int(h), !first
}

// histIndexLabel is the label (exclusive upper bound) of log2 bucket index
// with k bits, with a K/M/G/T/P/E suffix for powers of 1024.
func histIndexLabel(index uint64, k int) histLabel {
	n := uint64(1) << uint(k)
	interval := index & (n - 1)
	power := (index >> uint(k)) - 1
	if power > 63 {
		power = 63
	}
	value := (uint64(1) << power) * (n + interval)
	decade := power / 10
	suffix := "\x00KMGTPE"[decade]
	power -= 10 * decade
	text := strconv.FormatUint((uint64(1)<<power)*(n+interval), 10)
	if suffix != 0 {
		text += string(suffix)
	}
	return histLabel{text: text, n: int64(value)}
}

// buildHist builds a log2 histogram from bucket counts (bucket indexes are
// bounded by the caller).
func buildHist(vals map[uint64]uint64, div uint32, k int) histogram {
	var h histogram
	lo, hi, ok := nonEmpty(vals)
	if !ok {
		return h
	}
	if div == 0 {
		div = 1
	}
	if lo != 0 {
		l := histBoundLabel(uint64(lo-1), k)
		h.lower = &l
	}
	for i := lo; i <= hi; i++ {
		h.labels = append(h.labels, histBoundLabel(uint64(i), k))
		h.counts = append(h.counts, vals[uint64(i)]/uint64(div))
	}
	return h
}

// histDirect is the largest log2 bucket index, with k bits, whose bound
// is the index itself (the buckets below it hold a single value each).
func histDirect(k int) uint64 { return 2 << uint(k) }

// histBoundLabel is the label of the exclusive upper bound of log2 bucket
// index with k bits: the index itself up to histDirect, a power-of-1024
// label above.
func histBoundLabel(index uint64, k int) histLabel {
	if index <= histDirect(k) {
		return intLabel(int64(index))
	}
	return histIndexLabel(index, k)
}

// lhistLabel renders a linear histogram bound; steps that are multiples of
// 1024 get K/M suffixes.
func lhistLabel(n, step int64) histLabel {
	const kilo, mega = 1024, 1024 * 1024
	if step%kilo != 0 {
		return intLabel(n)
	}
	var text string
	switch {
	case n == 0:
		text = "0"
	case n%mega == 0:
		text = strconv.FormatInt(n/mega, 10) + "M"
	case n%kilo == 0:
		text = strconv.FormatInt(n/kilo, 10) + "K"
	default:
		text = strconv.FormatInt(n, 10)
	}
	return histLabel{text: text, n: n}
}

// buildLhist builds a linear histogram from bucket counts. div has no
// effect on linear histograms, as in bpftrace.
func buildLhist(vals map[uint64]uint64, lmin, lmax, step int64) histogram {
	var h histogram
	lo, hi, ok := nonEmpty(vals)
	if !ok || step <= 0 {
		return h
	}
	if lo != 0 {
		l := lhistLabel(lmin+int64(lo-1)*step, step)
		h.lower = &l
	}
	for i := lo; i <= hi; i++ {
		if b := lmin + int64(i)*step; b <= lmax {
			h.labels = append(h.labels, lhistLabel(b, step))
		}
		h.counts = append(h.counts, vals[uint64(i)])
	}
	return h
}

func single(a, b histLabel) bool { return a.isInt && b.isInt && a.n+1 == b.n }

// rowHeader is the label of row i: "[4, 8)", "[1]", "(..., 0)", "[1M, ...)".
func (h *histogram) rowHeader(i int) string {
	switch {
	case i == 0 && h.lower == nil:
		up := "..."
		if len(h.labels) > 0 {
			up = h.labels[0].text
		}
		return "(..., " + up + ")"
	case i == 0 && len(h.labels) == 0:
		return "[" + h.lower.text + ", ...)"
	case i == 0 && single(*h.lower, h.labels[0]):
		return "[" + h.lower.text + "]"
	case i == 0:
		return "[" + h.lower.text + ", " + h.labels[0].text + ")"
	case i >= len(h.labels):
		return "[" + h.labels[len(h.labels)-1].text + ", ...)"
	case single(h.labels[i-1], h.labels[i]):
		return "[" + h.labels[i-1].text + "]"
	default:
		return "[" + h.labels[i-1].text + ", " + h.labels[i].text + ")"
	}
}

// histBarWidth is the width of the '@' bar.
const histBarWidth = 52

// write prints the histogram rows as bpftrace does: the bucket label padded
// to 16, the count right-aligned in 8, and a 52-wide bar scaled to the
// largest count.
func (h *histogram) write(w io.Writer) error {
	var maxCount uint64
	for _, c := range h.counts {
		maxCount = max(maxCount, c)
	}
	var sb strings.Builder
	for i, c := range h.counts {
		header := h.rowHeader(i)
		bar := 0
		if maxCount > 0 {
			// bpftrace computes this in single precision and truncates.
			bar = int(float32(c) / float32(maxCount) * histBarWidth)
			bar = min(max(bar, 0), histBarWidth)
		}
		fmt.Fprintf(&sb, "%-16s%8d |%s%s|\n", header, c,
			strings.Repeat("@", bar), strings.Repeat(" ", histBarWidth-bar))
	}
	_, err := io.WriteString(w, sb.String())
	return err
}
