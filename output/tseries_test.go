package output

import (
	"encoding/binary"
	"regexp"
	"strings"
	"testing"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

func tsEntry(bucket uint64, slots ...[3]uint64) Entry {
	key := make([]byte, 8)
	binary.NativeEndian.PutUint64(key, bucket)
	e := Entry{Key: key}
	for _, s := range slots {
		v := make([]byte, 24)
		binary.NativeEndian.PutUint64(v, s[0])
		binary.NativeEndian.PutUint64(v[8:], s[1])
		binary.NativeEndian.PutUint64(v[16:], s[2])
		e.Values = append(e.Values, v)
	}
	return e
}

// TestTseriesChart checks the reduction of per-CPU slots and bpftrace's
// chart layout (times depend on the clock, so they are matched loosely).
func TestTseriesChart(t *testing.T) {
	vt := &types.Type{Kind: types.Tseries, Size: 24, Signed: true, LStep: 100e6, Len: 4, Agg: types.Sum}
	m := &object.Map{Name: "@", Key: types.Uint64, Value: vt, PerCPU: true}
	epoch := uint64(17000000000) // 100 ms intervals
	entries := []Entry{
		// bucket epoch%4, two CPUs: same epoch sums, an older epoch is ignored
		tsEntry((epoch)%4, [3]uint64{2, 0, epoch}, [3]uint64{3, 0, epoch}),
		tsEntry((epoch+1)%4, [3]uint64{9, 0, epoch + 1}, [3]uint64{100, 0, epoch - 3}),
		// epoch+2 has no data
		tsEntry((epoch+3)%4, [3]uint64{1, 0, epoch + 3}),
	}
	var sb strings.Builder
	if err := NewFormatter().WriteMap(&sb, m, entries, MapOptions{}); err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^@:
             1                                                   9
hh:mm:ss\.ms  \|_{51}\|
\d\d:\d\d:\d\d\.\d00 \| {25}\* {25}\| 5
\d\d:\d\d:\d\d\.\d00 \| {51}\* 9
\d\d:\d\d:\d\d\.\d00 \| {51}\| -
\d\d:\d\d:\d\d\.\d00 \* {51}\| 1
             v_{51}v
             1                                                   9

$`)
	if !want.MatchString(sb.String()) {
		t.Errorf("chart:\n%s", sb.String())
	}
}
