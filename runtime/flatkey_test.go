package runtime

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
)

// TestFlatKey: a map with a record key reads field by field through
// flatKey; a histogram keeps its bucket field.
func TestFlatKey(t *testing.T) {
	rec := types.NewTuple([]*types.Type{types.NewString(8), types.Uint32}, []string{"comm", "pid"})
	for _, tc := range []struct {
		value *types.Type
		want  string
	}{
		{&types.Type{Kind: types.Count, Size: 8}, "[{[sh 42] 3}]"},
		{&types.Type{Kind: types.Hist, Size: 8}, "[{[sh 42] {[{1 1 false false 3 [1]}] 0 false}}]"},
	} {
		elems := []*types.Type{rec}
		if tc.value.Kind == types.Hist {
			elems = append(elems, types.Uint64)
		}
		m := &object.Map{Name: "@x", Keys: []*types.Type{rec}, Key: types.NewTuple(elems, nil), Value: tc.value, PerCPU: true}
		key := make([]byte, m.Key.Size)
		copy(key, "sh")
		binary.NativeEndian.PutUint32(key[8:], 42)
		if tc.value.Kind == types.Hist {
			binary.NativeEndian.PutUint64(key[m.Key.Fields[1].Offset:], 2) // the bucket of 1
		}
		val := make([]byte, 8)
		binary.NativeEndian.PutUint64(val, 3)
		es, err := output.NewFormatter().Decode(flatKey(m), []output.Entry{{Key: key, Values: [][]byte{val}}})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(es); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.value, got, tc.want)
		}
	}
	plain := &object.Map{Name: "@y", Keys: []*types.Type{types.Uint64}, Key: types.NewTuple([]*types.Type{types.Uint64}, nil)}
	if flatKey(plain) != plain {
		t.Errorf("flatKey changed a map without a tuple key")
	}
}
