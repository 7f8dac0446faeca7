package e2e

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestHistFineGrain: hist(v, k) puts every value in the bucket whose JSON
// bounds hold it, for k = 0..5, and loses none (bpftrace's log2 helper
// splits each power of two into 2^k buckets).
func TestHistFineGrain(t *testing.T) {
	value := func(i int64) int64 { return i*i*i*12345 - 1000 }
	const n = 200
	var prog strings.Builder
	prog.WriteString("BEGIN { $i = 0; while ($i < 200) { $v = $i * $i * $i * 12345 - 1000;")
	for k := 0; k <= 5; k++ {
		fmt.Fprintf(&prog, " @h%d = hist($v, %d);", k, k)
	}
	prog.WriteString(" $i++; }")
	for k := 0; k <= 5; k++ {
		fmt.Fprintf(&prog, " @h%d = hist(1 << 62, %d);", k, k)
	}
	prog.WriteString(" exit(); }")
	got := run(t, "-f", "json", "-e", prog.String())
	if got.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", got.code, got.stderr)
	}
	values := []int64{1 << 62}
	for i := int64(0); i < n; i++ {
		values = append(values, value(i))
	}
	seen := 0
	for _, line := range strings.Split(got.stdout, "\n") {
		var ev struct {
			Type string
			Data map[string][]struct {
				Min, Max *json.Number
				Count    int
			}
		}
		if line == "" || json.Unmarshal([]byte(line), &ev) != nil || ev.Type != "hist" {
			continue
		}
		for name, buckets := range ev.Data {
			seen++
			bound := func(n *json.Number, def int64) int64 {
				if n == nil {
					return def
				}
				v, err := strconv.ParseInt(strings.Trim(n.String(), `"`), 10, 64)
				if err != nil {
					t.Fatalf("%s: bound %q: %v", name, n, err)
				}
				return v
			}
			total := 0
			for _, b := range buckets {
				lo, hi := bound(b.Min, -1<<63), bound(b.Max, 1<<63-1)
				want := 0
				for _, v := range values {
					if v >= lo && v <= hi {
						want++
					}
				}
				if b.Count != want {
					t.Errorf("%s bucket [%d, %d]: count %d, want %d", name, lo, hi, b.Count, want)
				}
				total += b.Count
			}
			if total != len(values) {
				t.Errorf("%s: %d values counted, want %d", name, total, len(values))
			}
		}
	}
	if seen != 6 {
		t.Errorf("%d histograms in the output, want 6:\n%s", seen, got.stdout)
	}
}
