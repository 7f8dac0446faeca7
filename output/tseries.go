package output

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// tsPoint is one interval of a time series: its epoch and value; ok is
// false for an interval without data.
type tsPoint struct {
	epoch uint64
	value int64
	ok    bool
}

// tsSlot is one CPU's {value, meta, epoch} of a bucket.
type tsSlot struct {
	value, meta int64
	epoch       uint64
}

// reduceBucket combines a bucket's per-CPU slots as bpftrace does: only
// slots of the same epoch combine, and the latest epoch's value is kept.
func reduceBucket(slots []tsSlot, agg types.Kind, signed bool) (uint64, int64, bool) {
	byEpoch := map[uint64]tsSlot{}
	var latest uint64
	for _, s := range slots {
		if s.epoch == 0 {
			continue // never used
		}
		latest = max(latest, s.epoch)
		cur, ok := byEpoch[s.epoch]
		if !ok {
			byEpoch[s.epoch] = s
			continue
		}
		switch agg {
		case types.Avg, types.Sum:
			cur.value += s.value
			cur.meta += s.meta
		case types.Min, types.Max:
			less := s.value < cur.value
			if !signed {
				less = uint64(s.value) < uint64(cur.value)
			}
			if less == (agg == types.Min) {
				cur.value = s.value
			}
		default: // the most recently set value wins
			if s.meta > cur.meta {
				cur = s
			}
		}
		byEpoch[s.epoch] = cur
	}
	if latest == 0 {
		return 0, 0, false
	}
	v := byEpoch[latest]
	if agg == types.Avg && v.meta != 0 {
		v.value /= v.meta
	}
	return latest, v.value, true
}

// tsSeries is one key's time series.
type tsSeries struct {
	key []byte
	pts []tsPoint
}

// tseriesItems reduces a tseries map's buckets into one series a key: from
// each key's first interval to the map's latest, at most num_intervals,
// keys ordered from least to most recently updated (as bpftrace does).
func tseriesItems(m *object.Map, entries []Entry) ([]keyField, []tsSeries, error) {
	fields, err := keyFields(m)
	if err != nil {
		return nil, nil, err
	}
	bucketOff := 0
	if (m.Key.Kind == types.Tuple || m.Key.Kind == types.Record) && len(m.Key.Fields) > 0 {
		bucketOff = m.Key.Fields[len(m.Key.Fields)-1].Offset
	}
	vt := m.Value
	type series struct {
		key    []byte
		byEp   map[uint64]int64
		latest uint64
	}
	byKey := map[string]*series{}
	var all []*series
	for i, e := range entries {
		if len(e.Key) < bucketOff+8 {
			return nil, nil, fmt.Errorf("entry %d: short key: %w", i, ErrBadEntry)
		}
		prefix := string(e.Key[:bucketOff])
		s := byKey[prefix]
		if s == nil {
			s = &series{key: e.Key[:bucketOff], byEp: map[uint64]int64{}}
			byKey[prefix] = s
			all = append(all, s)
		}
		var slots []tsSlot
		for _, v := range e.Values {
			if len(v) < 24 {
				return nil, nil, fmt.Errorf("entry %d: tseries value of %d bytes: %w", i, len(v), ErrBadEntry)
			}
			slots = append(slots, tsSlot{int64(readUint(v, 8)), int64(readUint(v[8:], 8)), readUint(v[16:], 8)})
		}
		if ep, val, ok := reduceBucket(slots, vt.Agg, vt.Signed); ok {
			s.byEp[ep] = val
			s.latest = max(s.latest, ep)
		} else if _, seen := s.byEp[0]; !seen {
			// A bucket written only at epoch 0 (a timestamp within the
			// first interval) reads as never used, and bpftrace 0.26
			// then keeps epoch 0 with the value 0: the series starts at
			// time 0 with a 0 when that interval is in range.
			s.byEp[0] = 0
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].latest < all[j].latest })
	var last uint64
	for _, s := range all {
		last = max(last, s.latest)
	}
	first := uint64(0)
	if last+1 > uint64(vt.Len) {
		first = last + 1 - uint64(vt.Len)
	}
	var out []tsSeries
	for _, s := range all {
		start := last
		for ep := range s.byEp {
			if ep >= first {
				start = min(start, ep)
			}
		}
		var pts []tsPoint
		for ep := max(first, start); ep <= last && last > 0; ep++ {
			v, ok := s.byEp[ep]
			pts = append(pts, tsPoint{ep, v, ok})
		}
		out = append(out, tsSeries{s.key, pts})
	}
	return fields, out, nil
}

// writeTseriesMap prints tseries maps as bpftrace's text charts.
func (f *Formatter) writeTseriesMap(sb *strings.Builder, m *object.Map, entries []Entry) error {
	fields, all, err := tseriesItems(m, entries)
	if err != nil {
		return err
	}
	for _, s := range all {
		sb.WriteString(m.Name)
		if fields != nil {
			sb.WriteString("[" + f.keyString(fields, s.key) + "]")
		}
		sb.WriteString(":\n")
		writeChart(sb, s.pts, m.Value)
		sb.WriteString("\n")
		if fields == nil {
			break
		}
	}
	return nil
}

// tseriesJSON renders a series as bpftrace's JSON: the intervals with data,
// [{"interval_start":"TIME","value":N}, ...].
func tseriesJSON(pts []tsPoint, vt *types.Type) string {
	var parts []string
	offset := taiOffset()
	for _, p := range pts {
		if !p.ok {
			continue
		}
		t := time.Unix(0, int64(p.epoch)*vt.LStep-offset)
		v := strconv.FormatInt(p.value, 10)
		if !vt.Signed {
			v = strconv.FormatUint(uint64(p.value), 10)
		}
		parts = append(parts, fmt.Sprintf(`{"interval_start":"%s.%09d","value":%s}`, t.Format("2006-01-02 15:04:05"), t.Nanosecond(), v))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// chartWidth is the width of a tseries chart between its time column and
// its values.
const chartWidth = 53

// writeChart draws one time series.
func writeChart(sb *strings.Builder, pts []tsPoint, vt *types.Type) {
	if len(pts) == 0 {
		sb.WriteString("<no data>\n")
		return
	}
	num := func(v int64) string {
		if vt.Signed {
			return strconv.FormatInt(v, 10)
		}
		return strconv.FormatUint(uint64(v), 10)
	}
	less := func(a, b int64) bool {
		if vt.Signed {
			return a < b
		}
		return uint64(a) < uint64(b)
	}
	var lo, hi int64
	seen := false
	for _, p := range pts {
		if !p.ok {
			continue
		}
		if !seen || less(p.value, lo) {
			lo = p.value
		}
		if !seen || less(hi, p.value) {
			hi = p.value
		}
		seen = true
	}
	if lo == hi {
		// some room on both sides of a flat line
		if vt.Signed || uint64(lo) > 0 {
			lo--
		}
		hi++
	}
	// The display unit follows the interval between rows.
	step := vt.LStep
	if len(pts) > 1 {
		step = int64((pts[len(pts)-1].epoch - pts[0].epoch) * uint64(vt.LStep) / uint64(len(pts)-1))
	}
	digits := 0
	switch {
	case step >= 1e9:
	case step >= 1e6:
		digits = 3
	case step >= 1e3:
		digits = 6
	default:
		digits = 9
	}
	timeFmt := "hh:mm:ss"
	timeSize := len(timeFmt)
	if digits > 0 {
		timeFmt += "." + map[int]string{3: "ms", 6: "us", 9: "ns"}[digits]
		timeSize += 1 + digits
	}
	const padding = 21
	scale := func() string {
		return fmt.Sprintf("%-*s%*s", padding, num(lo), chartWidth-padding, num(hi))
	}
	fmt.Fprintf(sb, "%*s%s\n", timeSize+1, "", scale())
	fmt.Fprintf(sb, "%-*s|%s|\n", timeSize+1, timeFmt, strings.Repeat("_", chartWidth-2))
	span := float64(distance(hi, lo, vt.Signed))
	zero := 0
	if vt.Signed && lo < 0 && hi > 0 {
		zero = int(float64(chartWidth) * float64(-lo) / span)
	}
	offset := taiOffset()
	for _, p := range pts {
		t := time.Unix(0, int64(p.epoch)*vt.LStep-offset)
		stamp := t.Format("15:04:05")
		if digits > 0 {
			frac := fmt.Sprintf("%09d", t.Nanosecond())
			stamp += "." + frac[:digits]
		}
		line := []byte(strings.Repeat(" ", chartWidth))
		line[0], line[chartWidth-1] = '|', '|'
		if zero > 0 {
			line[zero] = '.'
		}
		if !p.ok {
			fmt.Fprintf(sb, "%s %s -\n", stamp, line)
			continue
		}
		at := chartWidth / 2
		if lo != hi {
			at = int(float64(chartWidth-1) * float64(distance(p.value, lo, vt.Signed)) / span)
		}
		line[max(0, min(chartWidth-1, at))] = '*'
		fmt.Fprintf(sb, "%s %s %s\n", stamp, line, num(p.value))
	}
	bottom := []byte(strings.Repeat("_", chartWidth))
	bottom[0], bottom[chartWidth-1] = 'v', 'v'
	fmt.Fprintf(sb, "%*s %s\n", timeSize, "", bottom)
	fmt.Fprintf(sb, "%*s %s\n", timeSize, "", scale())
}

// distance is a - b for the values of the series.
func distance(a, b int64, signed bool) int64 {
	if signed {
		return a - b
	}
	return int64(uint64(a) - uint64(b))
}

// taiOffset is CLOCK_TAI minus CLOCK_REALTIME in nanoseconds (the leap
// seconds), to turn tseries epochs into wall-clock times.
func taiOffset() int64 {
	var tai, real unix.Timespec
	if unix.ClockGettime(unix.CLOCK_TAI, &tai) != nil || unix.ClockGettime(unix.CLOCK_REALTIME, &real) != nil {
		return 0
	}
	return (tai.Nano() - real.Nano() + 5e8) / 1e9 * 1e9
}
