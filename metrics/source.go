package metrics

import (
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/runtime"
)

// Source is what the Collector reads at scrape time: a running script's
// maps and health. Its methods are called from the scraping goroutine
// while the script runs.
type Source interface {
	// Maps describes the maps the script has now.
	Maps() []MapInfo
	// Read returns the entries of the named map ("@name") now.
	Read(name string) ([]Entry, error)
	// Health returns gotrace's own counters, or false when they cannot
	// be read now (the collector then leaves them out of the scrape
	// rather than report them as 0).
	Health() (Health, bool)
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
	// Buckets are the buckets of hist() and lhist(), as gotrace prints
	// them (from the first to the last non-empty one), in any order; Sum
	// is the sum of the values they recorded, when HasSum.
	Buckets []Bucket
	Sum     float64
	HasSum  bool
}

// Bucket is one histogram bucket: the largest value it holds (the values
// are integers: bpftrace's row [4, 8) has Le 7), or +Inf for the open top
// row of lhist ("[100, ...)"), and its count.
type Bucket struct {
	Le    float64
	Count uint64
}

// Health is gotrace's own state: events lost, map-full drops and the
// kernel's run statistics of each probe (see runtime.Health).
type Health = runtime.Health

// ProbeStats are the kernel's run statistics of one probe's program.
type ProbeStats = runtime.ProbeStats
