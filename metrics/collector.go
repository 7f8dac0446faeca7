package metrics

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gotrace/gotrace/lang/types"
)

// DefaultMaxSeries is the default of Options.MaxSeries.
const DefaultMaxSeries = 10000

// Options configure a Collector.
type Options struct {
	// Prefix starts every metric name; "" means DefaultPrefix. It is
	// sanitised as map names are.
	Prefix string
	// NoPrefix makes the prefix empty (--metrics-prefix ""), whatever
	// Prefix says.
	NoPrefix bool
	// MaxSeries caps the series exported per scrape; 0 means
	// DefaultMaxSeries.
	MaxSeries int
	// Warn receives each warning (without "WARNING: "); nil drops them.
	Warn func(msg string)
}

// Collector is a prometheus.Collector over a Source. It is unchecked: the
// metrics it yields depend on the maps' contents at scrape time.
type Collector struct {
	src    Source
	prefix string
	max    int
	warn   func(string)

	mu      sync.Mutex // serialises scrapes; guards what follows
	plans   map[string]*plan
	skipped map[string]bool   // maps that cannot be exported, warned about
	owners  map[string]string // sample name → the map (or "gotrace") that uses it
	dropped uint64            // series dropped over the cap, over all scrapes
	warned  map[string]bool   // one-time warnings given

	lost, full, runs, runTime, droppedDesc *prometheus.Desc
}

// plan is how one map is exported.
type plan struct {
	info   MapInfo
	shape  valueShape
	labels []string
	desc   *prometheus.Desc // the value; the summary; the histogram
	avg    *prometheus.Desc // stats()'s average
	// bounds are a histogram's finite bucket bounds exported, ascending:
	// every bound the map has shown, so that a series' layout only grows.
	bounds []float64
	seen   map[float64]bool
	// mayAlias: two keys may print alike (a key component is neither an
	// integer, a boolean nor a string), so entries must be merged.
	mayAlias bool
}

// New returns a Collector over src. Every map of src.Maps() is planned
// now: a metric name that two maps (or a map and gotrace's own metrics)
// would share is an error, and a map that cannot be exported is named in
// a warning.
func New(src Source, opts Options) (*Collector, error) {
	prefix := opts.Prefix
	switch {
	case opts.NoPrefix:
		prefix = ""
	case prefix == "":
		prefix = DefaultPrefix
	}
	prefix = sanitize(prefix, true)
	c := &Collector{
		src:     src,
		prefix:  prefix,
		max:     opts.MaxSeries,
		warn:    opts.Warn,
		plans:   map[string]*plan{},
		skipped: map[string]bool{},
		owners:  map[string]string{},
		warned:  map[string]bool{},
	}
	if c.max <= 0 {
		c.max = DefaultMaxSeries
	}
	if c.warn == nil {
		c.warn = func(string) {}
	}
	own := func(name, help string, labels ...string) (*prometheus.Desc, error) {
		full, err := metricName(prefix, "@"+name)
		if err != nil {
			return nil, err
		}
		c.owners[full] = "gotrace"
		return prometheus.NewDesc(full, help, labels, nil), nil
	}
	var err error
	for _, d := range []struct {
		p      **prometheus.Desc
		name   string
		help   string
		labels []string
	}{
		{&c.lost, "events_lost_total", "Events gotrace lost because the ring buffer was full.", nil},
		{&c.full, "map_full_drops_total", "Map updates dropped because the map was full.", []string{"map"}},
		{&c.runs, "probe_runs_total", "Times each probe's BPF program ran (kernel program statistics).", []string{"probe"}},
		{&c.runTime, "probe_run_seconds_total", "Time each probe's BPF program ran (kernel program statistics).", []string{"probe"}},
		{&c.droppedDesc, "metrics_dropped_series_total", "Series not exported because of --metrics-max-series.", nil},
	} {
		if *d.p, err = own(d.name, d.help, d.labels...); err != nil {
			return nil, err
		}
	}
	var errs []error
	for _, m := range src.Maps() {
		if err := c.planMap(m); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return c, nil
}

// planMap plans the export of m, or records it as skipped with a warning.
// It fails when m's metric names clash with others.
func (c *Collector) planMap(m MapInfo) error {
	shape := shapeOf(m.Value)
	if shape == shapeNone {
		c.skip(m.Name, fmt.Sprintf("--metrics: map %s is not exported: its values are %s", m.Name, valueWhat(m.Value)))
		return nil
	}
	labels := Labels(m.Keys)
	names := make([]string, len(labels))
	for i, l := range labels {
		if ok, what := labelKind(l.Type); !ok {
			c.skip(m.Name, fmt.Sprintf("--metrics: map %s is not exported: its key %s is %s", m.Name, l.Name, what))
			return nil
		}
		names[i] = sanitize(l.Name, false)
		if strings.HasPrefix(names[i], "__") ||
			shape == shapeHistogram && names[i] == "le" || shape == shapeSummary && names[i] == "quantile" {
			return fmt.Errorf("--metrics: map %s: key %s cannot be a label name", m.Name, l.Name)
		}
	}
	base, err := metricName(c.prefix, m.Name)
	if err != nil {
		return fmt.Errorf("--metrics: %w", err)
	}
	fams := familyNames(base, shape)
	for _, f := range fams {
		if o, ok := c.owners[f]; ok {
			if o == "gotrace" {
				return fmt.Errorf("--metrics: map %s: metric %s is one of gotrace's own", m.Name, f)
			}
			return fmt.Errorf("--metrics: maps %s and %s both make metric %s", o, m.Name, f)
		}
	}
	for _, f := range fams {
		c.owners[f] = m.Name
	}
	p := &plan{info: m, shape: shape, labels: names, seen: map[float64]bool{}}
	for _, l := range labels {
		if k := l.Type.Kind; k != types.Int && k != types.Bool && k != types.String {
			p.mayAlias = true
		}
	}
	help := fmt.Sprintf("gotrace map %s of %s", m.Name, m.Value)
	if m.Value.IsAggregation() {
		help = fmt.Sprintf("gotrace map %s = %s()", m.Name, strings.TrimSuffix(m.Value.String(), "_t"))
	}
	name := base
	if shape == shapeCounter {
		name = counterName(base)
	}
	p.desc = prometheus.NewDesc(name, help, names, nil)
	if shape == shapeSummary {
		p.avg = prometheus.NewDesc(base+"_avg", help+", average", names, nil)
	}
	c.plans[m.Name] = p
	return nil
}

// skip records that map name is not exported and warns once.
func (c *Collector) skip(name, msg string) {
	if !c.skipped[name] {
		c.skipped[name] = true
		c.warn(msg)
	}
}

// warnOnce gives a warning once per key.
func (c *Collector) warnOnce(key, msg string) {
	if !c.warned[key] {
		c.warned[key] = true
		c.warn(msg)
	}
}

// Describe sends nothing: the Collector is unchecked.
func (c *Collector) Describe(chan<- *prometheus.Desc) {}

// Collect reads every map of the source and sends its series, then
// gotrace's own metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	infos := slices.Clone(c.src.Maps())
	slices.SortFunc(infos, func(a, b MapInfo) int { return strings.Compare(a.Name, b.Name) })
	budget := c.max
	for _, m := range infos {
		p := c.plans[m.Name]
		if p == nil && !c.skipped[m.Name] {
			// A map the source gained after New (a session's later entry).
			if err := c.planMap(m); err != nil {
				c.skip(m.Name, err.Error())
			}
			p = c.plans[m.Name]
		}
		if p == nil {
			continue
		}
		entries, err := c.src.Read(m.Name)
		if err != nil {
			c.warnOnce("read "+m.Name, fmt.Sprintf("--metrics: reading %s: %v", m.Name, err))
			continue
		}
		budget = c.collectMap(ch, p, entries, budget)
	}
	c.collectHealth(ch)
}

// collectMap sends the series of one map within budget series, and
// returns what is left of the budget.
func (c *Collector) collectMap(ch chan<- prometheus.Metric, p *plan, entries []Entry, budget int) int {
	entries = c.merge(p, entries)
	bounds := p.bucketBounds(entries)
	per := 1
	switch p.shape {
	case shapeSummary:
		per = 3
	case shapeHistogram:
		per = len(bounds) + 3 // buckets, +Inf, _sum, _count
	}
	if len(entries)*per > budget {
		// Which series survive the cap does not depend on hash order.
		slices.SortFunc(entries, func(a, b Entry) int { return slices.Compare(a.Key, b.Key) })
	}
	for _, e := range entries {
		if per > budget {
			c.dropped += uint64(per)
			c.warnOnce("cap", fmt.Sprintf("--metrics: more than %d series (--metrics-max-series): the rest are dropped, counted in %s_metrics_dropped_series_total",
				c.max, c.prefix))
			continue
		}
		budget -= per
		values := labelValues(e.Key, len(p.labels))
		switch p.shape {
		case shapeCounter:
			ch <- prometheus.MustNewConstMetric(p.desc, prometheus.CounterValue, e.Value.N, values...)
		case shapeGauge:
			ch <- prometheus.MustNewConstMetric(p.desc, prometheus.GaugeValue, e.Value.N, values...)
		case shapeSummary:
			ch <- prometheus.MustNewConstSummary(p.desc, e.Value.Count, e.Value.Total, nil, values...)
			ch <- prometheus.MustNewConstMetric(p.avg, prometheus.GaugeValue, e.Value.N, values...)
		case shapeHistogram:
			count, cum := cumulative(e.Value.Buckets, bounds)
			sum := math.NaN()
			if e.Value.HasSum {
				sum = e.Value.Sum
			}
			ch <- prometheus.MustNewConstHistogram(p.desc, count, sum, cum, values...)
		}
	}
	return budget
}

// labelValues returns key as label values: n of them (missing ones
// empty), each valid UTF-8 with other bytes written as \xNN.
func labelValues(key []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		if i < len(key) {
			out[i] = validUTF8(key[i])
		}
	}
	return out
}

// validUTF8 returns s with every byte that is not part of valid UTF-8
// written as \xNN.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&sb, "\\x%02x", s[i])
		} else {
			sb.WriteString(s[i : i+n])
		}
		i += n
	}
	return sb.String()
}

// merge combines entries whose keys print alike (two kernel addresses in
// one function, say), which would otherwise be the same series twice:
// counts, stats and buckets add up; of other values the first is kept,
// with a warning.
func (c *Collector) merge(p *plan, entries []Entry) []Entry {
	if len(p.labels) == 0 || len(entries) < 2 {
		if len(entries) > 1 {
			entries = entries[:1]
		}
		return entries
	}
	if !p.mayAlias {
		return entries
	}
	seen := make(map[string]int, len(entries))
	out := entries[:0:0]
	for _, e := range entries {
		k := strings.Join(e.Key, "\x00")
		i, dup := seen[k]
		if !dup {
			seen[k] = len(out)
			out = append(out, e)
			continue
		}
		v := &out[i].Value
		switch p.shape {
		case shapeCounter:
			v.N += e.Value.N
		case shapeSummary:
			v.Count += e.Value.Count
			v.Total += e.Value.Total
			if v.Count > 0 {
				v.N = math.Trunc(v.Total / float64(v.Count))
			}
		case shapeHistogram:
			v.Buckets = append(slices.Clip(v.Buckets), e.Value.Buckets...)
			v.Sum += e.Value.Sum
			v.HasSum = v.HasSum && e.Value.HasSum
		default:
			c.warnOnce("dup "+p.info.Name, fmt.Sprintf("--metrics: map %s has keys that print alike (%s); one value of each is exported",
				p.info.Name, strings.Join(e.Key, ", ")))
		}
	}
	return out
}

// bucketBounds adds the finite bucket bounds of entries to the plan's
// and returns them.
func (p *plan) bucketBounds(entries []Entry) []float64 {
	if p.shape != shapeHistogram {
		return nil
	}
	n := len(p.bounds)
	for _, e := range entries {
		for _, b := range e.Value.Buckets {
			if !math.IsInf(b.Le, 1) && !p.seen[b.Le] {
				p.seen[b.Le] = true
				p.bounds = append(p.bounds, b.Le)
			}
		}
	}
	if len(p.bounds) > n {
		slices.Sort(p.bounds)
	}
	return p.bounds
}

// cumulative returns the total count of buckets and the cumulative count
// at each bound.
func cumulative(buckets []Bucket, bounds []float64) (uint64, map[float64]uint64) {
	sorted := slices.SortedFunc(slices.Values(buckets), func(a, b Bucket) int { return cmp.Compare(a.Le, b.Le) })
	cum := make(map[float64]uint64, len(bounds))
	var n uint64
	i := 0
	for _, le := range bounds {
		for ; i < len(sorted) && sorted[i].Le <= le; i++ {
			n += sorted[i].Count
		}
		cum[le] = n
	}
	for ; i < len(sorted); i++ {
		n += sorted[i].Count
	}
	return n, cum
}

// collectHealth sends gotrace's own metrics.
func (c *Collector) collectHealth(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(c.droppedDesc, prometheus.CounterValue, float64(c.dropped))
	h, ok := c.src.Health()
	if !ok {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.lost, prometheus.CounterValue, float64(h.LostEvents))
	names := make([]string, 0, len(h.MapFull))
	for n := range h.MapFull {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ch <- prometheus.MustNewConstMetric(c.full, prometheus.CounterValue, float64(h.MapFull[n]), validUTF8(n))
	}
	// Probes written twice share a name: their programs add up.
	type agg struct {
		runs uint64
		secs float64
	}
	var order []string
	byName := map[string]*agg{}
	for _, p := range h.Probes {
		a := byName[p.Probe]
		if a == nil {
			a = &agg{}
			byName[p.Probe] = a
			order = append(order, p.Probe)
		}
		a.runs += p.Runs
		a.secs += p.RunTime.Seconds()
	}
	for _, n := range order {
		ch <- prometheus.MustNewConstMetric(c.runs, prometheus.CounterValue, float64(byName[n].runs), validUTF8(n))
		ch <- prometheus.MustNewConstMetric(c.runTime, prometheus.CounterValue, byName[n].secs, validUTF8(n))
	}
}
