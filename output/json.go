package output

import (
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// OutputFormat is an output format, chosen with bpftrace's -f option.
type OutputFormat string

// Output formats.
const (
	// FormatText is bpftrace's default human-readable output.
	FormatText OutputFormat = "text"
	// FormatJSON prints one JSON object per line (bpftrace -f json).
	FormatJSON OutputFormat = "json"
)

// ParseOutputFormat parses the argument of -f: "text" (or ""), "json" or
// "folded" (FormatFolded, gotrace's).
// The error message is bpftrace's.
func ParseOutputFormat(s string) (OutputFormat, error) {
	switch s {
	case "", "text":
		return FormatText, nil
	case "json":
		return FormatJSON, nil
	case "folded":
		return FormatFolded, nil
	}
	return "", fmt.Errorf("Invalid output format %q\nValid formats: 'text', 'json', 'folded'", s)
}

// JSONString quotes s as bpftrace's JSON output does: '"', '\\', newline,
// carriage return and tab get their short escapes, other bytes up to 0x1f
// are written as \u00XX, and valid UTF-8 passes through. A byte that is
// not part of valid UTF-8 is written as \u00XX, the code point of the same
// number, so that the output stays valid JSON and keeps every byte. (bpftrace
// 0.26 tests a signed char and writes every byte from 0x80 up, valid UTF-8
// or not, as \uffffffXX, which no JSON parser accepts.)
func JSONString(s string) string {
	var sb strings.Builder
	sb.Grow(len(s) + 2)
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			sb.WriteString(`\"`)
		case c == '\\':
			sb.WriteString(`\\`)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\r':
			sb.WriteString(`\r`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c <= 0x1f:
			fmt.Fprintf(&sb, `\u%04x`, c)
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n <= 1 {
				fmt.Fprintf(&sb, `\u%04x`, c)
				continue
			}
			sb.WriteString(s[i : i+n])
			i += n - 1
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// exactFloat reports whether v is exactly representable as a float64.
func exactFloat(v uint64) bool {
	if v == 0 {
		return true
	}
	return bits.Len64(v)-bits.TrailingZeros64(v) <= 53
}

// jsonUint renders an unsigned integer as a JSON number, or as a string
// when a float64 cannot hold it exactly (bpftrace's rule, after RFC 8259).
func jsonUint(v uint64) string {
	s := strconv.FormatUint(v, 10)
	if !exactFloat(v) {
		return `"` + s + `"`
	}
	return s
}

// jsonInt64 is jsonUint for signed integers.
func jsonInt64(v int64) string {
	s := strconv.FormatInt(v, 10)
	abs := uint64(v)
	if v < 0 {
		abs = -abs
	}
	if !exactFloat(abs) {
		return `"` + s + `"`
	}
	return s
}

// jsonInt converts a decimal integer rendered by the text formatter to JSON.
func jsonInt(text string) string {
	if v, err := strconv.ParseInt(text, 10, 64); err == nil {
		return jsonInt64(v)
	}
	if v, err := strconv.ParseUint(text, 10, 64); err == nil {
		return jsonUint(v)
	}
	return JSONString(text)
}

func jsonIntBits(v uint64, signed bool) string {
	if signed {
		return jsonInt64(int64(v))
	}
	return jsonUint(v)
}

// json renders stats() as bpftrace's JSON output does.
func (s *stats) json(div uint32) string {
	return fmt.Sprintf(`{"count": %s, "average": %s, "total": %s}`,
		jsonIntBits(s.count, s.signed), jsonInt(s.avgString(div)), jsonIntBits(s.total, s.signed))
}

// FormatValueJSON renders a value of type t stored in b as bpftrace's JSON
// output does: integers and pointers as numbers (as strings when a float64
// cannot hold them), strings quoted, tuples and arrays as arrays without
// spaces ("[1,2]"), records and structs as objects ({"a": 1, "b": 2}),
// symbols, stacks and strftime timestamps as strings.
func FormatValueJSON(t *types.Type, b []byte) string {
	return NewFormatter().JSONValue(t, b)
}

// JSONValue is FormatValueJSON with f's hooks and settings.
func (f *Formatter) JSONValue(t *types.Type, b []byte) string {
	var sb strings.Builder
	f.writeJSON(&sb, t, b, 0)
	return sb.String()
}

func (f *Formatter) writeJSON(sb *strings.Builder, t *types.Type, b []byte, depth int) {
	if t == nil || depth > maxDepth {
		sb.WriteString("null")
		return
	}
	switch t.Kind {
	case types.Void:
		// a struct member without a value (float), as bpftrace prints it
		sb.WriteString("null")
	case types.Int:
		sb.WriteString(jsonIntBits(readInt(b, t.Size, t.Signed), t.Signed))
	case types.Bool:
		if readUint(b, 1) != 0 {
			sb.WriteString("true")
		} else {
			sb.WriteString("false")
		}
	case types.String:
		sb.WriteString(JSONString(f.str(t, b)))
	case types.Pointer, types.Ctx:
		sb.WriteString(jsonUint(readUint(b, 8)))
	case types.Tuple:
		sb.WriteString("[")
		for i, fl := range t.Fields {
			if i > 0 {
				sb.WriteString(",")
			}
			f.writeJSON(sb, fl.Type, slice(b, fl.Offset, fl.Type.Size), depth+1)
		}
		sb.WriteString("]")
	case types.Record, types.Struct:
		sb.WriteString("{")
		for i, fl := range t.Fields {
			if i > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString(JSONString(fl.Name))
			sb.WriteString(": ")
			if fl.BitSize > 0 && fl.Type.IsInt() {
				sb.WriteString(jsonInt(bitfield(fl, b)))
				continue
			}
			f.writeJSON(sb, fl.Type, slice(b, fl.Offset, fl.Type.Size), depth+1)
		}
		sb.WriteString("}")
	case types.Buf:
		jsonBytes(sb, t.BufBytes(slice(b, 0, t.Size)))
	case types.Array:
		if t.IsBuf() {
			jsonBytes(sb, slice(b, 0, t.Len))
			return
		}
		sb.WriteString("[")
		if t.Elem != nil {
			for i := 0; i < t.Len; i++ {
				if i > 0 {
					sb.WriteString(",")
				}
				f.writeJSON(sb, t.Elem, slice(b, i*t.Elem.Size, t.Elem.Size), depth+1)
			}
		}
		sb.WriteString("]")
	case types.Timestamp:
		if f.Timestamp != nil {
			sb.WriteString(JSONString(f.Timestamp(t, readUint(b, 8))))
		} else {
			sb.WriteString(jsonUint(readUint(b, 8)))
		}
	case types.Ksym, types.Usym, types.Stack, types.Errno, types.SyscallName, types.Inet, types.Username, types.SignalName, types.MacAddr, types.CgroupPath:
		sb.WriteString(JSONString(f.Value(t, b)))
	case types.Count:
		sb.WriteString(jsonUint(readUint(b, 8)))
	case types.Sum, types.Min, types.Max:
		sb.WriteString(jsonIntBits(readUint(b, 8), t.Signed))
	case types.Avg:
		var s stats
		s.add(b, t.Signed)
		sb.WriteString(jsonInt(s.avgString(1)))
	case types.Stats:
		var s stats
		s.add(b, t.Signed)
		sb.WriteString(s.json(1))
	default:
		sb.WriteString("null")
	}
}

// jsonEvent renders {"type": typ, "data": data} and a newline.
func jsonEvent(typ, data string) string {
	return `{"type": "` + typ + `", "data": ` + data + "}\n"
}

// JSONPrintf renders printf() output as a JSON line:
// {"type": "printf", "data": "..."}.
func JSONPrintf(s string) string { return jsonEvent("printf", JSONString(s)) }

// JSONTime renders time() output: {"type": "time", "data": "..."}.
func JSONTime(s string) string { return jsonEvent("time", JSONString(s)) }

// JSONCat renders cat() output: {"type": "cat", "data": "..."}.
func JSONCat(s string) string { return jsonEvent("cat", JSONString(s)) }

// JSONSyscall renders system() output: {"type": "syscall", "data": "..."}.
func JSONSyscall(s string) string { return jsonEvent("syscall", JSONString(s)) }

// JSONLostEvents renders a lost-events report:
// {"type": "lost_events", "count": n, "data": {"events": n}}.
func JSONLostEvents(n uint64) string {
	return fmt.Sprintf(`{"type": "lost_events", "count": %d, "data": {"events": %d}}`+"\n", n, n)
}

// JSONAttachedProbes renders the message printed once probes are attached:
// {"type": "attached_probes", "count": n, "data": {"probes": n}}.
func JSONAttachedProbes(n int) string {
	return fmt.Sprintf(`{"type": "attached_probes", "count": %d, "data": {"probes": %d}}`+"\n", n, n)
}

// JSONMessage renders errorf() (isError) or warnf() output with the
// position of the call:
// {"type": "errorf", "msg": "...", "filename": "...", "line": 1, "col": 9}.
// A script named "-e" or "" is named "stdin", as bpftrace names -e
// programs (gotrace's CLI names them "stdin" itself).
func JSONMessage(isError bool, msg string, pos srcpos.Pos) string {
	typ := "warnf"
	if isError {
		typ = "errorf"
	}
	name := pos.Filename
	if name == "-e" || name == "" {
		name = "stdin"
	}
	return fmt.Sprintf(`{"type": "%s", "msg": %s, "filename": %s, "line": %d, "col": %d}`+"\n",
		typ, JSONString(msg), JSONString(name), max(pos.Line, 0), max(pos.Column, 0))
}

// FormatPrintValueJSON renders print(value) output as a JSON line:
// {"type": "value", "data": ...}.
func (f *Formatter) FormatPrintValueJSON(p *object.Printf, record []byte) (string, error) {
	if p == nil || len(p.Args) != 1 {
		return "", fmt.Errorf("print() takes one argument: %w", ErrBadRecord)
	}
	a := p.Args[0]
	if a.Type == nil || a.Offset < 0 || a.Offset+a.Type.Size > len(record) {
		return "", fmt.Errorf("argument does not fit in a %d-byte record: %w", len(record), ErrBadRecord)
	}
	return jsonEvent("value", f.JSONValue(a.Type, record[a.Offset:a.Offset+a.Type.Size])), nil
}

// jsonKey renders a map key as bpftrace's JSON output does: the text
// rendering without enclosing parentheses and without any space.
func (f *Formatter) jsonKey(fields []keyField, key []byte) string {
	return JSONString(strings.ReplaceAll(f.keyString(fields, key), " ", ""))
}

// jsonMin renders a histogram bound as a "min" value.
func (l histLabel) jsonMin() string {
	if l.isInt {
		return jsonInt64(l.n)
	}
	return jsonUint(uint64(l.n))
}

// jsonMax renders the closed upper bound of a bucket whose open upper
// bound is l.
func (l histLabel) jsonMax() string {
	if l.isInt {
		return jsonInt64(l.n - 1)
	}
	if l.n == 0 {
		return "-1"
	}
	return jsonInt64(int64(uint64(l.n) - 1))
}

// json renders a histogram as an array of {"min": a, "max": b, "count": n}
// buckets; the first bucket has no "min" when it is open below, the last
// no "max" when it is open above.
func (h *histogram) json() string {
	var sb strings.Builder
	sb.WriteString("[")
	for i, c := range h.counts {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("{")
		switch {
		case i == 0 && h.lower != nil:
			sb.WriteString(`"min": ` + h.lower.jsonMin() + ", ")
		case i > 0:
			sb.WriteString(`"min": ` + h.labels[i-1].jsonMin() + ", ")
		}
		if i < len(h.labels) {
			sb.WriteString(`"max": ` + h.labels[i].jsonMax() + ", ")
		}
		sb.WriteString(`"count": ` + strconv.FormatUint(c, 10) + "}")
	}
	sb.WriteString("]")
	return sb.String()
}

// WriteMapJSON prints map m as one line of bpftrace's JSON output, as
// print(@m) and the print at exit do with -f json. Entries are combined,
// sorted and trimmed exactly as by WriteMap. The line is
//
//	{"type": T, "data": {"@m": V}}
//
// where T is "hist" for hist() and lhist() maps, "stats" for avg() and
// stats() maps and "map" otherwise, and V is the value for a map without
// keys, or an object of values by key ({"k1": v1, "k2": v2}; keys as text,
// multi-part keys joined by "," without spaces). A map without entries
// prints nothing.
func (f *Formatter) WriteMapJSON(w io.Writer, m *object.Map, entries []Entry, opt MapOptions) error {
	if m == nil || m.Value == nil {
		return fmt.Errorf("map without a value type: %w", ErrBadEntry)
	}
	var (
		typ    = "map"
		values []string // "value" or "key: value"
		fields []keyField
		err    error
	)
	switch m.Value.Kind {
	case types.Tseries:
		typ = "tseries"
		var all []tsSeries
		fields, all, err = tseriesItems(m, entries)
		for _, s := range all {
			v := tseriesJSON(s.pts, m.Value)
			if fields != nil {
				v = f.jsonKey(fields, s.key) + ": " + v
			}
			values = append(values, v)
		}
	case types.Hist, types.Lhist:
		typ = "hist"
		var hists []*histEntry
		fields, hists, err = histItems(m, entries, opt)
		for _, h := range hists {
			v := h.hist.json()
			if fields != nil {
				v = f.jsonKey(fields, h.key) + ": " + v
			}
			values = append(values, v)
		}
	default:
		if m.Value.Kind == types.Avg || m.Value.Kind == types.Stats {
			typ = "stats"
		}
		var items []plainEntry
		fields, items, err = f.plainItems(m, entries, opt, textJSON)
		for _, it := range items {
			v := it.text
			if fields != nil {
				v = f.jsonKey(fields, it.key) + ": " + v
			}
			values = append(values, v)
		}
	}
	if err != nil {
		return fmt.Errorf("printing map %s: %w", m.Name, err)
	}
	if len(values) == 0 {
		return nil
	}
	var data string
	if fields == nil {
		data = values[0] // a map without keys has a single value
	} else {
		data = "{" + strings.Join(values, ", ") + "}"
	}
	_, err = io.WriteString(w, jsonEvent(typ, "{"+JSONString(m.Name)+": "+data+"}"))
	return err
}

// JSONBenchmark renders the result of one bench probe (bpftrace --mode
// bench): its average time per run in nanoseconds and how many runs it
// was timed over.
func JSONBenchmark(name string, averageNs int64, iters int) string {
	return fmt.Sprintf(`{"type": "benchmark_result", "data": {%s: {"average": %d, "iters": %d}}}`+"\n", JSONString(name), averageNs, iters)
}

// JSONTestResult renders the result of one test probe (bpftrace --test):
// its run time in nanoseconds, whether it passed, and what it printed.
func JSONTestResult(name string, durationNs int64, passed bool, output string) string {
	return fmt.Sprintf(`{"type": "test_result", "data": {%s: {"duration": %d, "passed": %t, "output": %s}}}`+"\n", JSONString(name), durationNs, passed, JSONString(output))
}

// jsonBytes writes a buf() value as bpftrace does: an array of its bytes,
// each a signed char (buf("a\xff") is [97,-1]).
func jsonBytes(sb *strings.Builder, data []byte) {
	sb.WriteString("[")
	for i, c := range data {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(strconv.Itoa(int(int8(c))))
	}
	sb.WriteString("]")
}
