package output

import (
	"strconv"
	"testing"
	"time"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/types"
)

func TestFormatValue(t *testing.T) {
	tup := types.NewTuple([]*types.Type{types.Int64, str4, types.Int8}, nil)
	nested := types.NewTuple([]*types.Type{types.Int64, tup}, nil)
	rec := types.NewTuple([]*types.Type{types.Int64, types.NewTuple([]*types.Type{types.Int64, str4}, nil)}, []string{"a", "b"})
	arr := &types.Type{Kind: types.Array, Size: 12, Len: 3, Elem: types.Int32}
	bitT := &types.Type{Kind: types.Struct, Name: "struct s", Size: 8, Fields: []types.Field{
		{Name: "x", Type: types.Int32, Offset: 0},
		{Name: "lo", Type: types.Uint32, Offset: 4, BitOffset: 0, BitSize: 4},
		{Name: "hi", Type: types.Int32, Offset: 4, BitOffset: 4, BitSize: 3},
	}}
	ptr := &types.Type{Kind: types.Pointer, Size: 8, Elem: types.Uint8}
	// union { int i; float f; } in a struct: the float member has no value
	withNone := &types.Type{Kind: types.Struct, Name: "struct Foo", Size: 8, Fields: []types.Field{
		{Name: "m", Type: types.Int32, Offset: 0},
		{Name: "n", Offset: 4, Type: &types.Type{Kind: types.Struct, Name: "union N", Size: 4, Fields: []types.Field{
			{Name: "i", Type: types.Int32, Offset: 0},
			{Name: "f", Type: &types.Type{Kind: types.Void, Size: 4, Name: "float"}, Offset: 0},
		}}},
	}}
	en := &btf.Enum{Name: "e", Size: 4, Values: []btf.EnumValue{{Name: "A", Value: 1}, {Name: "NEG", Value: 0xffffffff}}}
	tests := []struct {
		name string
		t    *types.Type
		b    []byte
		want string
	}{
		{"int64", types.Int64, i64(-5), "-5"},
		{"uint64", types.Uint64, u64(^uint64(0)), "18446744073709551615"},
		{"int32", types.Int32, []byte{0xff, 0xff, 0xff, 0xff}, "-1"},
		{"uint8", types.Uint8, []byte{200}, "200"},
		{"enum", types.NewEnum(en, 8), u64(1), "A"},
		{"enum unknown value", types.NewEnum(en, 8), u64(7), "7"},
		{"enum 4 bytes", types.NewEnum(en, 4), []byte{0xff, 0xff, 0xff, 0xff}, "NEG"},
		{"bool", types.BoolT, []byte{1}, "true"},
		{"string", types.NewString(8), []byte("abc\x00\x00\x00\x00\x00"), "abc"},
		{"full string", str4, []byte("abcd"), "abcd.."},
		{"empty string", str4, []byte{0, 'x', 0, 0}, ""},
		{"tuple", tup, pack(tup, 1, "ab", -2), "(1, ab, -2)"},
		{"nested tuple", nested, pack(nested, 5, pack(tup, 1, "", 0)), "(5, (1, , 0))"},
		{"record", rec, pack(rec, 1, pack(rec.Fields[1].Type, 2, "hi")), "{ .a = 1, .b = (2, hi) }"},
		{"empty struct", &types.Type{Kind: types.Struct, Size: 0}, nil, "{}"},
		{"array", arr, []byte{1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 3, 0, 0, 0}, "[1,-2,3]"},
		// lo = 0xb (4 bits), hi = 0b101 sign-extended from 3 bits = -3.
		{"bitfields", bitT, []byte{7, 0, 0, 0, 0x5b, 0, 0, 0}, "{ .x = 7, .lo = 11, .hi = -3 }"},
		{"member without a value", withNone, []byte{2, 0, 0, 0, 5, 0, 0, 0}, "{ .m = 2, .n = { .i = 5, .f = null } }"},
		{"pointer", ptr, u64(0xffff8880deadbeef), "0xffff8880deadbeef"},
		{"null pointer", ptr, u64(0), "0x0"},
		{"ksym without resolver", &types.Type{Kind: types.Ksym, Size: 8}, u64(0x1234), "0x1234"},
		{"short buffer reads zero", types.Int64, []byte{1}, "1"},
		{"buf", &types.Type{Kind: types.Array, Size: 3, Len: 3, Elem: types.Uint8, Name: types.BufferName}, []byte("a\x01c"), `a\x01c`},
		{"buf of a run-time length", types.NewBuf(4), []byte{2, 0, 0, 0, 'a', 0xfe, 'z', 'z'}, `a\xfe`},
		{"buf of a run-time length past the capacity", types.NewBuf(4), []byte{0xff, 0xff, 0xff, 0xff, 'a', 'b', 'c', 'd'}, "abcd"},
		{"buf of a run-time length in a tuple", types.NewTuple([]*types.Type{types.Int8, types.NewBuf(4)}, nil), []byte{7, 0, 0, 0, 1, 0, 0, 0, 'q', 0, 0, 0}, "(7, q)"},
		{"nil type", nil, nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatValue(tc.t, tc.b); got != tc.want {
				t.Errorf("FormatValue = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFormatterHooks(t *testing.T) {
	f := &Formatter{
		Ksym:      func(a uint64) string { return "sym" + strconv.FormatUint(a, 10) },
		Usym:      func(a, pid uint64) string { return "usym" },
		Stack:     func(_ *types.Type, id, pid uint64) string { return "\n\tframe\n" },
		Timestamp: func(_ *types.Type, ns uint64) string { return "ts" },
	}
	tup := types.NewTuple([]*types.Type{
		{Kind: types.Ksym, Size: 8}, {Kind: types.Usym, Size: 8},
		{Kind: types.Timestamp, Size: 8}, {Kind: types.Stack, Size: 8}, str4,
	}, nil)
	got := f.Value(tup, pack(tup, 7, 0, 0, 0, "abcd"))
	// A Formatter without StrTruncTrailer adds no trailer.
	if want := "(sym7, usym, ts, \n\tframe\n, abcd)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFormatTime(t *testing.T) {
	gmt := time.FixedZone("GMT", 0)
	for _, tc := range glibcStrftimeCases {
		if got := FormatTime(tc.format, time.Unix(tc.unix, 0).In(gmt)); got != tc.want {
			t.Errorf("FormatTime(%q) at %d = %q, want %q", tc.format, tc.unix, got, tc.want)
		}
	}
	// glibc with TZ=America/New_York at 1710000000: "-0500 EST 11".
	est := time.FixedZone("EST", -5*3600)
	if got := FormatTime("%z %Z %H", time.Unix(1710000000, 0).In(est)); got != "-0500 EST 11" {
		t.Errorf("zone: got %q", got)
	}
	if got := FormatTime(DefaultTimeFormat, time.Date(2024, 1, 2, 3, 4, 5, 0, gmt)); got != "03:04:05\n" {
		t.Errorf("default format: got %q", got)
	}
	if got := FormatTime("trailing %", time.Unix(0, 0)); got != "trailing %" {
		t.Errorf("trailing percent: got %q", got)
	}
}

func TestFormatTimestamp(t *testing.T) {
	gmt := time.FixedZone("GMT", 0)
	ts := time.Date(2024, 3, 9, 16, 0, 1, 123456789, gmt)
	tests := []struct{ format, want string }{
		{"%H:%M:%S.%f", "16:00:01.123456"},
		{"%k|%l", "123456789|123"},
		{"%Y-%m-%dT%H:%M:%S", "2024-03-09T16:00:01"},
		{"", "(?)"},
	}
	for _, tc := range tests {
		if got := FormatTimestamp(tc.format, ts); got != tc.want {
			t.Errorf("FormatTimestamp(%q) = %q, want %q", tc.format, got, tc.want)
		}
	}
	if got := FormatTimestamp("%H", time.Unix(0, 5)); got != "(?)" {
		t.Errorf("epoch: got %q", got)
	}
}
