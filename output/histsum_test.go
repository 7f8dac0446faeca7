package output

import (
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/types"
)

// TestDecodeHistSum: a histogram that keeps its sum ({count, sum} per
// bucket and CPU, object.Map.HistSum) decodes with the sum over its
// buckets and CPUs, and prints exactly as one without it.
func TestDecodeHistSum(t *testing.T) {
	printed := map[bool]string{}
	for _, withSum := range []bool{false, true} {
		hm := newMap("@h", histT(0), types.Int64)
		hm.HistSum = withSum
		val := func(n uint64, sum int64) []byte {
			if !withSum {
				return u64(n)
			}
			return append(u64(n), i64(sum)...)
		}
		// Key 1: bucket 1 (value 0) twice on CPU 0; bucket 4 ([4, 8)) 2
		// on CPU 0 (5+6) and 1 on CPU 1 (7); bucket 0 (negative) once on
		// CPU 1 (-3). Key 2: 1 once.
		entries := []Entry{
			{Key: pack(hm.Key, int64(1), uint64(1)), Values: [][]byte{val(2, 0), val(0, 0)}},
			{Key: pack(hm.Key, int64(1), uint64(4)), Values: [][]byte{val(2, 11), val(1, 7)}},
			{Key: pack(hm.Key, int64(1), uint64(0)), Values: [][]byte{val(0, 0), val(1, -3)}},
			{Key: pack(hm.Key, int64(2), uint64(2)), Values: [][]byte{val(1, 1), val(0, 0)}},
		}
		f := NewFormatter()
		got, err := f.Decode(hm, entries)
		if err != nil {
			t.Fatal(err)
		}
		hists := map[int64]Hist{}
		for _, e := range got {
			hists[e.Key[0].(int64)] = e.Value.(Hist)
		}
		for key, sum := range map[int64]int64{1: 15, 2: 1} {
			h := hists[key]
			want := Hist{Sum: sum, HasSum: true}
			if !withSum {
				want = Hist{}
			}
			if h.Sum != want.Sum || h.HasSum != want.HasSum {
				t.Errorf("HistSum %v: key %d: Sum %d HasSum %v, want %d %v", withSum, key, h.Sum, h.HasSum, want.Sum, want.HasSum)
			}
		}
		var out strings.Builder
		if err := f.WriteMap(&out, hm, entries, MapOptions{}); err != nil {
			t.Fatal(err)
		}
		printed[withSum] = out.String()
	}
	if printed[true] != printed[false] || !strings.Contains(printed[true], "[4, 8)                 3 |") {
		t.Errorf("printed with the sum:\n%s\nwithout:\n%s", printed[true], printed[false])
	}
}
