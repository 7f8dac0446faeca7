package metrics

import (
	"time"

	"github.com/gotrace/gotrace/lang/types"
)

// Source is what the Collector reads at scrape time: a running script's
// maps and health. Its methods are called from the scraping goroutine
// while the script runs.
type Source interface {
	// Maps describes the maps the script has now.
	Maps() []MapInfo
	// Read returns the entries of the named map ("@name") now.
	Read(name string) ([]Entry, error)
	// Health returns gotrace's own counters.
	Health() Health
}

// MapInfo describes a map as the script declares it.
type MapInfo struct {
	Name  string        // "@name", "@"
	Keys  []*types.Type // the key components as written; nil for a map without keys
	Value *types.Type   // the value type or aggregation kind
}

// Entry is one entry of a map, decoded and reduced over the CPUs as
// bpftrace reduces it.
type Entry struct {
	// Key holds one string per label (see Labels): the key components as
	// gotrace prints them; a single tuple or record key is split into its
	// fields.
	Key   []string
	Value Value
}

// Value is a map value. Which fields are set depends on the map's value
// type.
type Value struct {
	// N is the value of count(), sum(), min(), max(), avg() (bpftrace's
	// integer average) and of integer and boolean values.
	N float64
	// Count and Total are stats()'s number of values and their sum.
	Count uint64
	Total float64
	// Buckets are the non-empty buckets of hist() and lhist(), in any
	// order; Sum is the sum of the values they recorded, when HasSum.
	Buckets []Bucket
	Sum     float64
	HasSum  bool
}

// Bucket is one histogram bucket: its index as bpftrace numbers them
// (output.HistBucket, output.LhistBucket) and its count.
type Bucket struct {
	Index uint64
	Count uint64
}

// Health is gotrace's own state.
type Health struct {
	// LostEvents counts events dropped because the ring buffer was full.
	LostEvents uint64
	// MapFull counts, by map name, the updates dropped because the map
	// was full.
	MapFull map[string]uint64
	// Probes are the kernel's run statistics of each probe's program;
	// nil when the kernel keeps none (kernel.bpf_stats_enabled is 0).
	Probes []ProbeStats
}

// ProbeStats are the kernel's statistics of one probe's program.
type ProbeStats struct {
	Probe   string // the probe as written after expansion
	Runs    uint64
	RunTime time.Duration
}
