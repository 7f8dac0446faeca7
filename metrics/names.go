package metrics

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/lang/types"
)

// DefaultPrefix is the prefix of every metric name unless Options.Prefix
// sets another.
const DefaultPrefix = "gotrace"

// Label is a label of a map's series: its name and the key component it
// holds.
type Label struct {
	Name string
	Type *types.Type
}

// Labels returns the labels of a map with the given key components: none
// without keys; "key" for a single key; the fields of a single tuple key
// (key0...keyN) or record key (named after the fields); key0...keyN for
// several keys. Entry.Key holds one value per label, in this order.
func Labels(keys []*types.Type) []Label {
	parts := keys
	var names []string
	if len(keys) == 1 && (keys[0].Kind == types.Tuple || keys[0].Kind == types.Record) {
		parts = nil
		for _, f := range keys[0].Fields {
			parts = append(parts, f.Type)
			if keys[0].Kind == types.Record {
				names = append(names, f.Name)
			}
		}
	}
	out := make([]Label, len(parts))
	for i, t := range parts {
		switch {
		case names != nil:
			out[i].Name = names[i]
		case len(parts) == 1:
			out[i].Name = "key"
		default:
			out[i].Name = "key" + strconv.Itoa(i)
		}
		out[i].Type = t
	}
	return out
}

// sanitize makes s a valid Prometheus metric or label name in snake_case,
// as Prometheus' naming conventions (and promtool's lint) want:
// characters outside [a-zA-Z0-9_] (and ':' for metric names) become '_',
// a lower-case letter followed by an upper-case one gets a '_' between
// them ("readBytes" is "read_bytes"), upper-case letters are made lower
// case, and a leading digit gets a '_' before it.
func sanitize(s string, colon bool) string {
	b := make([]byte, 0, len(s)+4)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			if i > 0 && s[i-1] >= 'a' && s[i-1] <= 'z' {
				b = append(b, '_')
			}
			b = append(b, c-'A'+'a')
		case c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || colon && c == ':':
			b = append(b, c)
		default:
			b = append(b, '_')
		}
	}
	if len(b) > 0 && b[0] >= '0' && b[0] <= '9' {
		return "_" + string(b)
	}
	return string(b)
}

// metricName is the base metric name of map name under prefix.
func metricName(prefix, name string) (string, error) {
	n := strings.TrimPrefix(name, "@")
	base := prefix
	if n != "" {
		if base != "" {
			base += "_"
		}
		base += n
	}
	if base == "" {
		return "", fmt.Errorf("map %s has no metric name without a prefix (--metrics-prefix)", name)
	}
	return sanitize(base, true), nil
}

// valueShape is how a map value is exported.
type valueShape uint8

const (
	shapeNone valueShape = iota
	shapeCounter
	shapeGauge
	shapeSummary   // stats(): _count, _sum, and a gauge _avg
	shapeHistogram // hist(), lhist()
)

// shapeOf returns how values of type t are exported, or shapeNone.
func shapeOf(t *types.Type) valueShape {
	if t == nil {
		return shapeNone
	}
	switch t.Kind {
	case types.Count:
		return shapeCounter
	case types.Sum:
		if t.Signed {
			return shapeGauge
		}
		return shapeCounter
	case types.Min, types.Max, types.Avg, types.Int, types.Bool:
		return shapeGauge
	case types.Stats:
		return shapeSummary
	case types.Hist, types.Lhist:
		return shapeHistogram
	}
	return shapeNone
}

// labelKind reports whether a key component of type t can be a label
// value, and if not, what it is.
func labelKind(t *types.Type) (ok bool, what string) {
	switch t.Kind {
	case types.Stack:
		return false, "a stack"
	case types.Struct:
		return false, "a struct"
	case types.Array, types.Buf:
		return false, "an array or buffer"
	case types.Tuple, types.Record:
		for _, f := range t.Fields {
			if ok, what := labelKind(f.Type); !ok {
				return false, what
			}
		}
	}
	return true, ""
}

// valueWhat names what a value type that cannot be exported is.
func valueWhat(t *types.Type) string {
	if t == nil {
		return "without a type"
	}
	switch t.Kind {
	case types.String:
		return "strings"
	case types.Stack:
		return "stacks"
	case types.Tseries:
		return "tseries()"
	}
	return "of type " + t.String()
}

// familyNames are the sample names an exported map uses: a clash between
// any two is an error.
func familyNames(base string, s valueShape) []string {
	switch s {
	case shapeCounter:
		return []string{counterName(base)}
	case shapeSummary:
		return []string{base, base + "_count", base + "_sum", base + "_avg"}
	case shapeHistogram:
		return []string{base, base + "_bucket", base + "_count", base + "_sum"}
	}
	return []string{base}
}

// counterName is the name of a counter: base with "_total" appended
// unless it ends with it.
func counterName(base string) string {
	if strings.HasSuffix(base, "_total") {
		return base
	}
	return base + "_total"
}
