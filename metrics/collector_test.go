package metrics

import (
	"bytes"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/gotrace/gotrace/lang/types"
)

// fakeSource is a Source with fixed maps.
type fakeSource struct {
	maps    []MapInfo
	entries map[string][]Entry
	health  Health
}

func (f *fakeSource) Maps() []MapInfo { return f.maps }
func (f *fakeSource) Read(name string) ([]Entry, error) {
	return append([]Entry(nil), f.entries[name]...), nil
}
func (f *fakeSource) Health() (Health, bool) { return f.health, true }

var (
	str16  = types.NewString(16)
	count  = &types.Type{Kind: types.Count, Size: 8}
	usum   = &types.Type{Kind: types.Sum, Size: 8}
	ssum   = &types.Type{Kind: types.Sum, Size: 8, Signed: true}
	maxT   = &types.Type{Kind: types.Max, Size: 8, Signed: true}
	avgT   = &types.Type{Kind: types.Avg, Size: 8}
	stats  = &types.Type{Kind: types.Stats, Size: 8}
	hist0  = &types.Type{Kind: types.Hist, Size: 8}
	lhistT = &types.Type{Kind: types.Lhist, Size: 8, LMin: 0, LMax: 30, LStep: 10}
	kstack = &types.Type{Kind: types.Stack, Size: 8, Name: "kstack"}
)

// scrape collects c once and returns the text exposition.
func scrape(t *testing.T, c *Collector) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := reg.Register(c); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	return buf.String()
}

// promtool runs `promtool check metrics` on a scrape when promtool is
// installed (Debian's prometheus package).
func promtool(t *testing.T, text string) {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		t.Log("promtool not installed: the scrape is not linted")
		return
	}
	cmd := exec.Command(path, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s\non:\n%s", err, out, text)
	}
}

func TestCollectorTypesAndLabels(t *testing.T) {
	src := &fakeSource{
		maps: []MapInfo{
			{Name: "@", Keys: []*types.Type{str16}, Value: count},
			{Name: "@bytes", Keys: []*types.Type{str16, types.Uint64}, Value: usum},
			{Name: "@ret", Value: ssum},
			{Name: "@peak", Keys: []*types.Type{types.NewTuple([]*types.Type{str16, types.Int64}, nil)}, Value: maxT},
			{Name: "@mean", Value: avgT},
			{Name: "@st", Keys: []*types.Type{types.NewTuple([]*types.Type{str16, types.Uint32}, []string{"comm", "pid"})}, Value: stats},
			{Name: "@lat", Keys: []*types.Type{str16}, Value: hist0},
			{Name: "@lin", Value: lhistT},
			{Name: "@level", Value: types.Int64},
			{Name: "@names", Keys: []*types.Type{types.Uint64}, Value: str16},
			{Name: "@stacks", Keys: []*types.Type{kstack}, Value: count},
		},
		entries: map[string][]Entry{
			"@":      {{Key: []string{"bash"}, Value: Value{N: 3}}, {Key: []string{"cat"}, Value: Value{N: 12}}},
			"@bytes": {{Key: []string{"cat", "1"}, Value: Value{N: 4096}}},
			"@ret":   {{Value: Value{N: -2}}},
			"@peak":  {{Key: []string{"sh", "-1"}, Value: Value{N: 7}}},
			"@mean":  {{Value: Value{N: 33}}},
			"@st":    {{Key: []string{"sh", "42"}, Value: Value{N: 5, Count: 4, Total: 21}}},
			// hist rows [0], [1], [2, 4), [4, 8).
			"@lat": {{Key: []string{"ls"}, Value: Value{Buckets: []Bucket{{7, 2}, {0, 1}, {1, 3}, {3, 0}}}}},
			// lhist(v, 0, 30, 10): rows [0, 10), [10, 20), [20, 30), [30, ...).
			"@lin":   {{Value: Value{Buckets: []Bucket{{9, 5}, {math.Inf(1), 1}, {19, 0}, {29, 2}}, Sum: 100, HasSum: true}}},
			"@level": {{Value: Value{N: 9}}},
		},
		health: Health{
			LostEvents: 7,
			MapFull:    map[string]uint64{"@bytes": 2},
			Probes: []ProbeStats{
				{Probe: "tracepoint:syscalls:sys_enter_openat", Runs: 10, RunTime: 2 * time.Millisecond},
				{Probe: "tracepoint:syscalls:sys_enter_openat", Runs: 5, RunTime: time.Millisecond},
			},
		},
	}
	var warnings []string
	c, err := New(src, Options{Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	got := scrape(t, c)
	for _, line := range []string{
		`# TYPE gotrace_total counter`,
		`gotrace_total{key="bash"} 3`,
		`gotrace_total{key="cat"} 12`,
		`# TYPE gotrace_bytes_total counter`,
		`gotrace_bytes_total{key0="cat",key1="1"} 4096`,
		`# TYPE gotrace_ret gauge`,
		`gotrace_ret -2`,
		`# TYPE gotrace_peak gauge`,
		`gotrace_peak{key0="sh",key1="-1"} 7`,
		`gotrace_mean 33`,
		`# TYPE gotrace_st summary`,
		`gotrace_st_sum{comm="sh",pid="42"} 21`,
		`gotrace_st_count{comm="sh",pid="42"} 4`,
		`# TYPE gotrace_st_avg gauge`,
		`gotrace_st_avg{comm="sh",pid="42"} 5`,
		`# TYPE gotrace_lat histogram`,
		`gotrace_lat_bucket{key="ls",le="0"} 1`,
		`gotrace_lat_bucket{key="ls",le="1"} 4`,
		`gotrace_lat_bucket{key="ls",le="3"} 4`,
		`gotrace_lat_bucket{key="ls",le="7"} 6`,
		`gotrace_lat_bucket{key="ls",le="+Inf"} 6`,
		`gotrace_lat_sum{key="ls"} NaN`,
		`gotrace_lat_count{key="ls"} 6`,
		`gotrace_lin_bucket{le="9"} 5`,
		`gotrace_lin_bucket{le="19"} 5`,
		`gotrace_lin_bucket{le="29"} 7`,
		`gotrace_lin_bucket{le="+Inf"} 8`,
		`gotrace_lin_sum 100`,
		`gotrace_lin_count 8`,
		`gotrace_level 9`,
		`gotrace_events_lost_total 7`,
		`gotrace_map_full_drops_total{map="@bytes"} 2`,
		`gotrace_probe_runs_total{probe="tracepoint:syscalls:sys_enter_openat"} 15`,
		`gotrace_probe_run_seconds_total{probe="tracepoint:syscalls:sys_enter_openat"} 0.003`,
		`gotrace_metrics_dropped_series_total 0`,
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("scrape lacks %q", line)
		}
	}
	for _, absent := range []string{"gotrace_names", "gotrace_stacks", `le="-1"`, `le="30"`} {
		if strings.Contains(got, absent) {
			t.Errorf("scrape has %q", absent)
		}
	}
	wantWarn := []string{
		"--metrics: map @names is not exported: its values are strings",
		"--metrics: map @stacks is not exported: its key key is a stack",
	}
	if strings.Join(warnings, "\n") != strings.Join(wantWarn, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(warnings, "\n"), strings.Join(wantWarn, "\n"))
	}
	// A second scrape warns no more.
	scrape(t, c)
	if len(warnings) != len(wantWarn) {
		t.Errorf("second scrape warned again: %q", warnings[len(wantWarn):])
	}
	if t.Failed() {
		t.Log(got)
	}
	promtool(t, got)
}

func TestCollectorNameClashes(t *testing.T) {
	for _, tc := range []struct {
		name string
		maps []MapInfo
		opts Options
		want string
	}{
		{"counter and gauge", []MapInfo{{Name: "@x", Value: count}, {Name: "@x_total", Value: types.Int64}}, Options{},
			"--metrics: maps @x and @x_total both make metric gotrace_x_total"},
		{"summary parts", []MapInfo{{Name: "@s", Value: stats}, {Name: "@s_avg", Value: types.Int64}}, Options{},
			"--metrics: maps @s and @s_avg both make metric gotrace_s_avg"},
		{"histogram parts", []MapInfo{{Name: "@h", Value: hist0}, {Name: "@h_bucket", Value: types.Int64}}, Options{},
			"--metrics: maps @h and @h_bucket both make metric gotrace_h_bucket"},
		{"camel case", []MapInfo{{Name: "@readBytes", Value: types.Int64}, {Name: "@read_bytes", Value: types.Int64}}, Options{},
			"--metrics: maps @readBytes and @read_bytes both make metric gotrace_read_bytes"},
		{"own metric", []MapInfo{{Name: "@events_lost", Value: count}}, Options{},
			"--metrics: map @events_lost: metric gotrace_events_lost_total is one of gotrace's own"},
		{"no prefix", []MapInfo{{Name: "@", Value: count}}, Options{NoPrefix: true},
			"--metrics: map @ has no metric name without a prefix (--metrics-prefix)"},
		{"le label", []MapInfo{{Name: "@h", Keys: []*types.Type{types.NewTuple([]*types.Type{types.Int64}, []string{"le"})}, Value: hist0}}, Options{},
			"--metrics: map @h: key le cannot be a label name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(&fakeSource{maps: tc.maps}, tc.opts)
			if err == nil || err.Error() != tc.want {
				t.Errorf("New: %v, want %s", err, tc.want)
			}
		})
	}
}

func TestCollectorPrefix(t *testing.T) {
	src := &fakeSource{
		maps:    []MapInfo{{Name: "@", Value: count}, {Name: "@openAt", Value: types.Int64}},
		entries: map[string][]Entry{"@": {{Value: Value{N: 1}}}, "@openAt": {{Value: Value{N: 2}}}},
	}
	c, err := New(src, Options{Prefix: "node-1.trace"})
	if err != nil {
		t.Fatal(err)
	}
	got := scrape(t, c)
	for _, line := range []string{"node_1_trace_total 1", "node_1_trace_open_at 2", "node_1_trace_events_lost_total 0"} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("scrape lacks %q:\n%s", line, got)
		}
	}
	c, err = New(src, Options{NoPrefix: true, Prefix: "ignored"})
	if err == nil {
		t.Errorf("NoPrefix with map @: no error")
	}
	promtool(t, got)
}

func TestCollectorEscaping(t *testing.T) {
	src := &fakeSource{
		maps: []MapInfo{{Name: "@c", Keys: []*types.Type{str16}, Value: count}},
		entries: map[string][]Entry{"@c": {
			{Key: []string{`a"b\c` + "\nd"}, Value: Value{N: 1}},
			{Key: []string{"bad\xffutf8\xc3"}, Value: Value{N: 2}},
			{Key: []string{"héllo"}, Value: Value{N: 3}},
		}},
	}
	c, err := New(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := scrape(t, c)
	for _, line := range []string{
		`gotrace_c_total{key="a\"b\\c\nd"} 1`,
		`gotrace_c_total{key="bad\\xffutf8\\xc3"} 2`,
		`gotrace_c_total{key="héllo"} 3`,
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("scrape lacks %s:\n%s", line, got)
		}
	}
	promtool(t, got)
}

func TestCollectorSeriesCap(t *testing.T) {
	var entries []Entry
	for _, k := range []string{"j", "i", "h", "g", "f", "e", "d", "c", "b", "a"} {
		entries = append(entries, Entry{Key: []string{k}, Value: Value{N: 1}})
	}
	src := &fakeSource{
		maps: []MapInfo{
			{Name: "@a", Keys: []*types.Type{str16}, Value: count},
			{Name: "@b", Keys: []*types.Type{str16}, Value: hist0},
		},
		entries: map[string][]Entry{
			"@a": entries,
			"@b": {{Key: []string{"x"}, Value: Value{Buckets: []Bucket{{1, 1}}}}},
		},
	}
	var warnings []string
	c, err := New(src, Options{MaxSeries: 4, Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	got := scrape(t, c)
	// The first four keys in key order survive; the histogram (4 series)
	// does not fit.
	for _, line := range []string{
		`gotrace_a_total{key="a"} 1`, `gotrace_a_total{key="d"} 1`,
		`gotrace_metrics_dropped_series_total 10`,
	} {
		if !strings.Contains(got, line+"\n") {
			t.Errorf("scrape lacks %s:\n%s", line, got)
		}
	}
	for _, absent := range []string{`key="e"`, "gotrace_b"} {
		if strings.Contains(got, absent) {
			t.Errorf("scrape has %s:\n%s", absent, got)
		}
	}
	got = scrape(t, c)
	if !strings.Contains(got, "gotrace_metrics_dropped_series_total 20\n") {
		t.Errorf("second scrape: dropped series not counted again:\n%s", got)
	}
	want := "--metrics: more than 4 series (--metrics-max-series): the rest are dropped, counted in gotrace_metrics_dropped_series_total"
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want once %q", warnings, want)
	}
}

// TestCollectorResets: the values exported are the maps' values at each
// scrape, so clear(), zero() and delete() show as counter resets (a lower
// value, or a series gone), and a histogram's bucket layout only grows.
func TestCollectorResets(t *testing.T) {
	src := &fakeSource{
		maps: []MapInfo{
			{Name: "@c", Keys: []*types.Type{str16}, Value: count},
			{Name: "@h", Value: hist0},
		},
		entries: map[string][]Entry{
			"@c": {{Key: []string{"a"}, Value: Value{N: 10}}, {Key: []string{"b"}, Value: Value{N: 5}}},
			"@h": {{Value: Value{Buckets: []Bucket{{3, 2}, {7, 0}, {15, 1}}}}},
		},
	}
	c, err := New(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := scrape(t, c)
	// zero(@c) then one event for a; delete(@c["b"]); clear(@h) then one
	// value 1.
	src.entries["@c"] = []Entry{{Key: []string{"a"}, Value: Value{N: 1}}}
	src.entries["@h"] = []Entry{{Value: Value{Buckets: []Bucket{{1, 1}}}}}
	second := scrape(t, c)
	for _, line := range []string{`gotrace_c_total{key="a"} 10`, `gotrace_c_total{key="b"} 5`, `gotrace_h_bucket{le="3"} 2`} {
		if !strings.Contains(first, line+"\n") {
			t.Errorf("first scrape lacks %s:\n%s", line, first)
		}
	}
	for _, line := range []string{
		`gotrace_c_total{key="a"} 1`,
		`gotrace_h_bucket{le="1"} 1`, `gotrace_h_bucket{le="3"} 1`, `gotrace_h_bucket{le="7"} 1`, `gotrace_h_bucket{le="15"} 1`,
		`gotrace_h_count 1`,
	} {
		if !strings.Contains(second, line+"\n") {
			t.Errorf("second scrape lacks %s:\n%s", line, second)
		}
	}
	if strings.Contains(second, `key="b"`) {
		t.Errorf("deleted key still exported:\n%s", second)
	}
}

// TestCollectorDuplicateKeys: keys that print alike are one series.
func TestCollectorDuplicateKeys(t *testing.T) {
	src := &fakeSource{
		maps: []MapInfo{{Name: "@c", Keys: []*types.Type{{Kind: types.Ksym, Size: 8}}, Value: count}},
		entries: map[string][]Entry{"@c": {
			{Key: []string{"vfs_read"}, Value: Value{N: 2}},
			{Key: []string{"vfs_read"}, Value: Value{N: 3}},
		}},
	}
	c, err := New(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := scrape(t, c); !strings.Contains(got, `gotrace_c_total{key="vfs_read"} 5`+"\n") {
		t.Errorf("duplicate keys not merged:\n%s", got)
	}
}

// counterSource is a source with one counter map of n keys.
func counterSource(n int) *fakeSource {
	entries := make([]Entry, n)
	for i := range entries {
		entries[i] = Entry{Key: []string{strconv.Itoa(i)}, Value: Value{N: float64(i)}}
	}
	return &fakeSource{
		maps:    []MapInfo{{Name: "@m", Keys: []*types.Type{types.Int64}, Value: count}},
		entries: map[string][]Entry{"@m": entries},
	}
}

// BenchmarkCollect10k: the collector's part of a scrape of 10,000 series
// (decoded entries to the text exposition), without reading a kernel
// map; see BenchmarkScrapeSession10k for a whole scrape.
func BenchmarkCollect10k(b *testing.B) {
	c, err := New(counterSource(10000), Options{})
	if err != nil {
		b.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	b.ReportAllocs()
	for b.Loop() {
		mfs, err := reg.Gather()
		if err != nil {
			b.Fatal(err)
		}
		enc := expfmt.NewEncoder(io.Discard, expfmt.NewFormat(expfmt.TypeTextPlain))
		for _, mf := range mfs {
			if err := enc.Encode(mf); err != nil {
				b.Fatal(err)
			}
		}
	}
}
