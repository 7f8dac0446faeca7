package lang

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
)

// provider is one probe type: its spellings and how an attach point of that
// type is expanded and validated.
type provider struct {
	name    string
	aliases []string
	// expand turns the parts after the provider into attach points.
	expand func(c *checker, ap *ast.AttachPoint, parts []string) ([]*AttachPoint, error)
	// needs says which kernel feature a not-yet-supported provider requires.
	needs string
}

// providers is the table of probe types, looked up by name or alias.
func providers() []*provider {
	return []*provider{
		{name: "begin", aliases: []string{"BEGIN"}, expand: expandSpecial},
		{name: "end", aliases: []string{"END"}, expand: expandSpecial},
		{name: "tracepoint", aliases: []string{"t"}, expand: expandTracepoint},
		{name: "interval", aliases: []string{"i"}, expand: expandTimer},
		{name: "profile", aliases: []string{"p"}, expand: expandTimer},
		{name: "software", aliases: []string{"s"}, expand: expandSoftware},
		{name: "kprobe", aliases: []string{"k"}, expand: expandKfunc},
		{name: "kretprobe", aliases: []string{"kr"}, expand: expandKfunc},
		{name: "fentry", aliases: []string{"f", "kfunc"}, expand: expandKfunc},
		{name: "fexit", aliases: []string{"fr", "kretfunc"}, expand: expandKfunc},
		{name: "rawtracepoint", aliases: []string{"rt"}, expand: expandRawTracepoint},
		{name: "uprobe", aliases: []string{"u"}, expand: expandUprobe},
		{name: "uretprobe", aliases: []string{"ur"}, expand: expandUprobe},
		{name: "usdt", aliases: []string{"U"}, needs: "USDT probes"},
		{name: "hardware", aliases: []string{"h"}, needs: "a hardware PMU"},
		{name: "watchpoint", aliases: []string{"w"}, needs: "hardware breakpoints"},
		{name: "asyncwatchpoint", aliases: []string{"aw"}, needs: "hardware breakpoints"},
		{name: "iter", aliases: []string{"it"}, needs: "BPF iterators"},
	}
}

func lookupProvider(name string) *provider {
	for _, p := range providers() {
		if p.name == name {
			return p
		}
		for _, a := range p.aliases {
			if a == name {
				return p
			}
		}
	}
	return nil
}

// splitAttach splits an attach point on ':' outside double quotes and removes
// the quotes.
func splitAttach(raw string) []string {
	var parts []string
	var cur strings.Builder
	inQuote := false
	for _, r := range raw {
		switch {
		case r == '"':
			inQuote = !inQuote
		case r == ':' && !inQuote:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(parts, cur.String())
}

func (c *checker) expandAttach(ap *ast.AttachPoint) []*AttachPoint {
	parts := splitAttach(ap.Raw)
	p := lookupProvider(parts[0])
	if p == nil {
		c.errorf(ap, "unknown probe type %q", parts[0])
		return nil
	}
	if p.expand == nil {
		c.errorf(ap, "%s probes are not supported yet (they need %s)", p.name, p.needs)
		return nil
	}
	points, err := p.expand(c, ap, parts[1:])
	if err != nil {
		c.errorf(ap, "%s", err)
		return nil
	}
	for _, pt := range points {
		pt.Pos = ap.Pos()
		pt.Provider = p.name
	}
	return points
}

func expandSpecial(_ *checker, ap *ast.AttachPoint, parts []string) ([]*AttachPoint, error) {
	if len(parts) != 0 {
		return nil, fmt.Errorf("%s takes no arguments", splitAttach(ap.Raw)[0])
	}
	return []*AttachPoint{{Name: strings.ToLower(ap.Raw)}}, nil
}

func expandTracepoint(c *checker, ap *ast.AttachPoint, parts []string) ([]*AttachPoint, error) {
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("tracepoint must be tracepoint:category:event, got %q", ap.Raw)
	}
	if c.env == nil {
		return nil, fmt.Errorf("tracepoints are unavailable: no tracing environment")
	}
	names, err := c.env.Tracepoints(parts[0] + ":" + parts[1])
	if err != nil {
		return nil, fmt.Errorf("listing tracepoints: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("No matches for tracepoint %s:%s.", parts[0], parts[1])
	}
	var out []*AttachPoint
	for _, n := range names {
		cat, ev, _ := strings.Cut(n, ":")
		out = append(out, &AttachPoint{Name: "tracepoint:" + n, Category: cat, Event: ev})
	}
	return out, nil
}

func parseCount(s string) (uint64, error) {
	v, err := strconv.ParseUint(strings.ReplaceAll(s, "_", ""), 0, 64)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("invalid count %q: want a positive integer", s)
	}
	return v, nil
}

// splitDuration splits "100ms" into (100, "ms").
func splitDuration(s string) (string, string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '_') {
		i++
	}
	return s[:i], s[i:]
}

func expandTimer(_ *checker, ap *ast.AttachPoint, parts []string) ([]*AttachPoint, error) {
	kind := splitAttach(ap.Raw)[0]
	var unit, count string
	switch len(parts) {
	case 1: // interval:1s, profile:99 (hz)
		count, unit = splitDuration(parts[0])
		if unit == "" {
			unit = "hz"
		}
	case 2:
		unit, count = parts[0], parts[1]
	default:
		return nil, fmt.Errorf("%s must be %s:unit:count, got %q", kind, kind, ap.Raw)
	}
	switch unit {
	case "s", "ms", "us", "hz":
	default:
		return nil, fmt.Errorf("invalid %s unit %q: want s, ms, us or hz", kind, unit)
	}
	v, err := parseCount(count)
	if err != nil {
		return nil, err
	}
	full := lookupProvider(kind).name
	return []*AttachPoint{{Name: fmt.Sprintf("%s:%s:%d", full, unit, v), Unit: unit, Value: v}}, nil
}

// SoftwareEvents maps software event names (and their aliases) to the
// perf PERF_COUNT_SW_* config value and bpftrace's default sample period.
func SoftwareEvents() map[string][2]uint64 {
	return map[string][2]uint64{
		"cpu-clock":        {0, 1000000},
		"cpu":              {0, 1000000},
		"task-clock":       {1, 1000000},
		"page-faults":      {2, 100},
		"faults":           {2, 100},
		"context-switches": {3, 1000},
		"cs":               {3, 1000},
		"cpu-migrations":   {4, 1},
		"minor-faults":     {5, 100},
		"major-faults":     {6, 1},
		"alignment-faults": {7, 1},
		"emulation-faults": {8, 1},
		"dummy":            {9, 1},
		"bpf-output":       {10, 1},
	}
}

func expandSoftware(_ *checker, ap *ast.AttachPoint, parts []string) ([]*AttachPoint, error) {
	if len(parts) < 1 || len(parts) > 2 {
		return nil, fmt.Errorf("software must be software:event[:count], got %q", ap.Raw)
	}
	ev, ok := SoftwareEvents()[parts[0]]
	if !ok {
		return nil, fmt.Errorf("unknown software event %q", parts[0])
	}
	period := ev[1]
	if len(parts) == 2 {
		v, err := parseCount(parts[1])
		if err != nil {
			return nil, err
		}
		period = v
	}
	return []*AttachPoint{{Name: fmt.Sprintf("software:%s:%d", parts[0], period), Event: parts[0], Value: period}}, nil
}
