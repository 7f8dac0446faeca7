// Package metrics serves a running script's maps as Prometheus metrics
// (gotrace --metrics ADDR). A Collector reads the maps of a Source (a live
// runtime session, through a thin adapter) at scrape time: nothing is
// copied on a timer, and nothing the script prints changes.
//
// Naming: map @name becomes metric PREFIX_name (PREFIX is "gotrace" unless
// Options.Prefix says otherwise; the anonymous map @ becomes PREFIX),
// sanitised to Prometheus' rules and snake_case convention: every
// character outside [a-zA-Z0-9_:] made '_', camelCase made camel_case,
// and a '_' before a leading digit. Two maps whose metrics would share a
// name, or a map whose metric would take the name of one of gotrace's own
// metrics, is an error when the Collector is made. promtool's lint also
// flags names with units other than Prometheus' base units (@lat_ms,
// @lat_nanoseconds): those are kept as the script names them.
//
// Types, from the map's value:
//   - count(), and sum() of unsigned values: a counter PREFIX_name_total
//     (a name already ending in _total keeps it). sum() of signed values
//     can go down, so it is a gauge, as avg(), min(), max() and integer
//     (and boolean) values are: PREFIX_name, in bpftrace's reduction over
//     the CPUs (avg is bpftrace's integer average).
//   - stats(): a summary without quantiles (PREFIX_name_count and
//     PREFIX_name_sum) and a gauge PREFIX_name_avg.
//   - hist() and lhist(): a histogram PREFIX_name with the bucket bounds
//     gotrace prints. A row [lo, hi) of integers is le="hi-1"
//     (Prometheus' bounds are inclusive); lhist's open top row is +Inf.
//     The buckets exported are every row the map has shown since the
//     start, so that a series' layout only grows. _sum is the sum of the
//     recorded values when the source keeps it (Value.HasSum: gotrace
//     --metrics compiles the script with gotrace.Options.HistSum), and NaN
//     otherwise: bpftrace's histograms do not keep one.
//   - other values (strings, stacks, tseries, ...) cannot be exported:
//     the map is skipped and named in one warning. So is a map with a key
//     that cannot be a label value (stacks, structs, arrays, buffers).
//
// Labels: a map with one key has label "key"; a map with several keys (or
// one tuple key) has key0...keyN; a record key names its labels after its
// fields. Label values are the keys as gotrace prints them, with bytes
// that are not UTF-8 written as \xNN; the exposition format escapes the
// rest.
//
// Resets: the values are the maps' values at scrape time, so clear(),
// zero() and delete() make a counter go down or a series disappear, which
// Prometheus' rate() and increase() treat as counter resets.
//
// Cardinality: at most Options.MaxSeries series (default 10,000; a
// histogram series counts each bucket, _sum and _count) are exported per
// scrape, in map name order and, within a map, key order. Past the cap,
// series are dropped, counted in PREFIX_metrics_dropped_series_total, and
// warned about once.
//
// gotrace's own health: PREFIX_events_lost_total (events dropped because
// the ring buffer was full), PREFIX_map_full_drops_total{map} (updates
// dropped because a map was full), and, when the kernel keeps program
// statistics (sysctl kernel.bpf_stats_enabled=1), PREFIX_probe_runs_total
// {probe} and PREFIX_probe_run_seconds_total{probe}.
package metrics
