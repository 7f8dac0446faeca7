package output

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// The expected lines below are bpftrace's tests/runtime/json-output cases
// (and the tests/runtime/outputs/*.json files they compare against, which
// are pretty-printed there), written in the exact byte layout of bpftrace's
// src/output/json.cpp: ", " between object members, "," between array
// elements, ": " after keys, one object per line.

// histCounts builds a scalar histogram's entries from the values recorded.
func histValues(m *object.Map, vals ...int64) []Entry {
	counts := map[uint64]uint64{}
	for _, v := range vals {
		if m.Value.Kind == types.Hist {
			counts[HistBucket(v, m.Value.Bits)]++
		} else {
			counts[LhistBucket(v, m.Value.LMin, m.Value.LMax, m.Value.LStep)]++
		}
	}
	return histEntries(m, counts)
}

// keyedHist builds a keyed histogram entry per recorded value.
func keyedHist(m *object.Map, key []any, vals ...int64) []Entry {
	var es []Entry
	for _, v := range vals {
		var b uint64
		if m.Value.Kind == types.Hist {
			b = HistBucket(v, m.Value.Bits)
		} else {
			b = LhistBucket(v, m.Value.LMin, m.Value.LMax, m.Value.LStep)
		}
		es = append(es, Entry{Key: pack(m.Key, append(append([]any(nil), key...), b)...), Values: oneCPU(u64(1))})
	}
	return es
}

func TestWriteMapJSON(t *testing.T) {
	strT := types.NewString(64)
	scalar := newMap("@scalar", types.Int64)
	scalarStr := newMap("@scalar_str", strT)
	complexM := newMap("@complex", types.Int64, str16, types.Int64)
	mp := newMap("@map", types.Int64, str16)
	hist := newMap("@hist", histT(0))
	hmulti := newMap("@", histT(0), str16)
	hmk := newMap("@", histT(0), str16, types.Int64)
	h3 := newMap("@", histT(3))
	lh := newMap("@h", lhistT(0, 100, 10))
	lmulti := newMap("@stats", lhistT(0, 100, 10), str16)
	st := newMap("@stats", statsT)
	stk := newMap("@stats", statsT, str16)
	avgk := newMap("@", avgT, str16)
	hint := newMap("@", histT(0), types.Int64)
	cnt := newMap("@c", countT, types.Int64)
	big := newMap("@big", types.Uint64)
	neg := newMap("@neg", types.Int64, types.Int64)
	mn := newMap("@mn", minT)
	spaces := newMap("@s", countT, str16)

	inner := types.NewTuple([]*types.Type{types.Int64, types.Int64}, nil)
	tupT := types.NewTuple([]*types.Type{types.Int64, types.Int64, types.NewString(8), inner}, nil)
	tup := newMap("@", tupT)
	tupB := pack(tupT, 1, 2, "string", nil)
	copy(tupB[tupT.Fields[3].Offset:], pack(inner, 4, 5))
	escT := types.NewTuple([]*types.Type{types.Int64, types.Int64, types.NewString(24)}, nil)
	esc := newMap("@", escT)

	xyT := types.NewTuple([]*types.Type{types.Int64, types.Int64}, []string{"x", "y"})
	recT := types.NewTuple([]*types.Type{types.Int64, types.Int64, types.NewString(4), inner, xyT}, []string{"a", "b", "c", "d", "e"})
	rec := newMap("@a", recT)
	recB := pack(recT, 0, 1, "str", nil, nil)
	copy(recB[recT.Fields[3].Offset:], pack(inner, 5, 6))
	copy(recB[recT.Fields[4].Offset:], pack(xyT, 1, 2))

	ptrT := &types.Type{Kind: types.Pointer, Size: 8, Elem: types.NewInt(2, true)}
	ptr := newMap("@", ptrT)

	var fine []int64
	for i := int64(0); i < 1024; i++ {
		fine = append(fine, i)
	}
	var fineWant []string
	for i := 0; i < 16; i++ {
		fineWant = append(fineWant, `{"min": `+itoa(i)+`, "max": `+itoa(i)+`, "count": 1}`)
	}
	for lo, step := 16, 2; lo < 1024; step *= 2 {
		for j := 0; j < 8; j++ {
			fineWant = append(fineWant, `{"min": `+itoa(lo)+`, "max": `+itoa(lo+step-1)+`, "count": `+itoa(step)+`}`)
			lo += step
		}
	}

	tests := []struct {
		name    string
		m       *object.Map
		entries []Entry
		opt     MapOptions
		want    string
	}{
		{"scalar", scalar, []Entry{{Key: zeroKey, Values: oneCPU(i64(5))}}, MapOptions{},
			`{"type": "map", "data": {"@scalar": 5}}`},
		{"scalar_str", scalarStr, []Entry{{Key: zeroKey, Values: oneCPU(pack(strT, "a b \n d e"))}}, MapOptions{},
			`{"type": "map", "data": {"@scalar_str": "a b \n d e"}}`},
		{"complex", complexM, []Entry{{Key: pack(complexM.Key, "bpftrace", 2), Values: oneCPU(i64(5))}}, MapOptions{},
			`{"type": "map", "data": {"@complex": {"bpftrace,2": 5}}}`},
		{"map", mp, []Entry{
			{Key: pack(mp.Key, "key2"), Values: oneCPU(i64(3))},
			{Key: pack(mp.Key, "key1"), Values: oneCPU(i64(2))},
		}, MapOptions{}, `{"type": "map", "data": {"@map": {"key1": 2, "key2": 3}}}`},
		{"histogram", hist, histValues(hist, 2, 1025), MapOptions{},
			`{"type": "hist", "data": {"@hist": [{"min": 2, "max": 3, "count": 1},{"min": 4, "max": 7, "count": 0},` +
				`{"min": 8, "max": 15, "count": 0},{"min": 16, "max": 31, "count": 0},{"min": 32, "max": 63, "count": 0},` +
				`{"min": 64, "max": 127, "count": 0},{"min": 128, "max": 255, "count": 0},{"min": 256, "max": 511, "count": 0},` +
				`{"min": 512, "max": 1023, "count": 0},{"min": 1024, "max": 2047, "count": 1}]}}`},
		{"histogram zero", hist, histEntries(hist, map[uint64]uint64{3: 0}), MapOptions{},
			`{"type": "hist", "data": {"@hist": []}}`},
		{"multiple histograms", hmulti, append(keyedHist(hmulti, []any{"bpftrace"}, 2),
			keyedHist(hmulti, []any{"curl"}, -1, 0, 511, 1024, 1025)...), MapOptions{},
			`{"type": "hist", "data": {"@": {"bpftrace": [{"min": 2, "max": 3, "count": 1}], "curl": [{"max": -1, "count": 1},` +
				`{"min": 0, "max": 0, "count": 1},{"min": 1, "max": 1, "count": 0},{"min": 2, "max": 3, "count": 0},` +
				`{"min": 4, "max": 7, "count": 0},{"min": 8, "max": 15, "count": 0},{"min": 16, "max": 31, "count": 0},` +
				`{"min": 32, "max": 63, "count": 0},{"min": 64, "max": 127, "count": 0},{"min": 128, "max": 255, "count": 0},` +
				`{"min": 256, "max": 511, "count": 1},{"min": 512, "max": 1023, "count": 0},{"min": 1024, "max": 2047, "count": 2}]}}}`},
		{"multiple histograms multiple keys", hmk, append(keyedHist(hmk, []any{"bpftrace", 2}, 2),
			keyedHist(hmk, []any{"curl", 3}, 511, 1024)...), MapOptions{},
			`{"type": "hist", "data": {"@": {"bpftrace,2": [{"min": 2, "max": 3, "count": 1}], "curl,3": [{"min": 256, "max": 511, "count": 1},` +
				`{"min": 512, "max": 1023, "count": 0},{"min": 1024, "max": 2047, "count": 1}]}}}`},
		{"histogram-finegrain", h3, histValues(h3, fine...), MapOptions{},
			`{"type": "hist", "data": {"@": [` + strings.Join(fineWant, ",") + `]}}`},
		{"linear histogram", lh, histValues(lh, 2, 50, 1000), MapOptions{},
			`{"type": "hist", "data": {"@h": [{"min": 0, "max": 9, "count": 1},{"min": 10, "max": 19, "count": 0},` +
				`{"min": 20, "max": 29, "count": 0},{"min": 30, "max": 39, "count": 0},{"min": 40, "max": 49, "count": 0},` +
				`{"min": 50, "max": 59, "count": 1},{"min": 60, "max": 69, "count": 0},{"min": 70, "max": 79, "count": 0},` +
				`{"min": 80, "max": 89, "count": 0},{"min": 90, "max": 99, "count": 0},{"min": 100, "count": 1}]}}`},
		{"linear histogram zero", lh, histEntries(lh, map[uint64]uint64{1: 0}), MapOptions{},
			`{"type": "hist", "data": {"@h": []}}`},
		{"multiple linear histograms", lmulti, append(keyedHist(lmulti, []any{"bpftrace"}, 2, 1000),
			keyedHist(lmulti, []any{"curl"}, 50)...), MapOptions{},
			`{"type": "hist", "data": {"@stats": {"curl": [{"min": 50, "max": 59, "count": 1}], "bpftrace": [{"min": 0, "max": 9, "count": 1},` +
				`{"min": 10, "max": 19, "count": 0},{"min": 20, "max": 29, "count": 0},{"min": 30, "max": 39, "count": 0},` +
				`{"min": 40, "max": 49, "count": 0},{"min": 50, "max": 59, "count": 0},{"min": 60, "max": 69, "count": 0},` +
				`{"min": 70, "max": 79, "count": 0},{"min": 80, "max": 89, "count": 0},{"min": 90, "max": 99, "count": 0},{"min": 100, "count": 1}]}}}`},
		{"stats", st, []Entry{{Key: zeroKey, Values: twoCPUs(pair(2, 1), pair(10, 1))}}, MapOptions{},
			`{"type": "stats", "data": {"@stats": {"count": 2, "average": 6, "total": 12}}}`},
		{"multiple stats", stk, []Entry{
			{Key: pack(stk.Key, "zsh"), Values: oneCPU(pair(10, 1))},
			{Key: pack(stk.Key, "curl"), Values: oneCPU(pair(2, 1))},
		}, MapOptions{}, `{"type": "stats", "data": {"@stats": {"curl": {"count": 1, "average": 2, "total": 2}, "zsh": {"count": 1, "average": 10, "total": 10}}}}`},
		{"tuple", tup, []Entry{{Key: zeroKey, Values: oneCPU(tupB)}}, MapOptions{},
			`{"type": "map", "data": {"@": [1,2,"string",[4,5]]}}`},
		{"tuple_with_escaped_string", esc, []Entry{{Key: zeroKey, Values: oneCPU(pack(escT, 1, 2, `string with "quotes"`))}}, MapOptions{},
			`{"type": "map", "data": {"@": [1,2,"string with \"quotes\""]}}`},
		{"record", rec, []Entry{{Key: zeroKey, Values: oneCPU(recB)}}, MapOptions{},
			`{"type": "map", "data": {"@a": {"a": 0, "b": 1, "c": "str", "d": [5,6], "e": {"x": 1, "y": 2}}}}`},
		{"print_avg_map_args", avgk, []Entry{
			{Key: pack(avgk.Key, "a"), Values: oneCPU(pair(10, 1))},
			{Key: pack(avgk.Key, "b"), Values: oneCPU(pair(20, 1))},
			{Key: pack(avgk.Key, "c"), Values: oneCPU(pair(30, 1))},
			{Key: pack(avgk.Key, "d"), Values: oneCPU(pair(40, 1))},
		}, MapOptions{Top: 2, Div: 10}, `{"type": "stats", "data": {"@": {"c": 3, "d": 4}}}`},
		{"print_avg_map_with_large_top", avgk, []Entry{
			{Key: pack(avgk.Key, "d"), Values: oneCPU(pair(40, 1))},
			{Key: pack(avgk.Key, "b"), Values: oneCPU(pair(20, 1))},
			{Key: pack(avgk.Key, "a"), Values: oneCPU(pair(10, 1))},
			{Key: pack(avgk.Key, "c"), Values: oneCPU(pair(30, 1))},
		}, MapOptions{Top: 10, Div: 10}, `{"type": "stats", "data": {"@": {"a": 1, "b": 2, "c": 3, "d": 4}}}`},
		{"print_hist_with_top_arg", hint, append(append(keyedHist(hint, []any{3}, 30), keyedHist(hint, []any{1}, 10)...),
			keyedHist(hint, []any{2}, 20)...), MapOptions{Top: 2},
			`{"type": "hist", "data": {"@": {"2": [{"min": 16, "max": 31, "count": 1}], "3": [{"min": 16, "max": 31, "count": 1}]}}}`},
		{"print_hist_with_large_top_arg", hint, append(append(keyedHist(hint, []any{3}, 30), keyedHist(hint, []any{1}, 10)...),
			keyedHist(hint, []any{2}, 20)...), MapOptions{Top: 10},
			`{"type": "hist", "data": {"@": {"1": [{"min": 8, "max": 15, "count": 1}], "2": [{"min": 16, "max": 31, "count": 1}], "3": [{"min": 16, "max": 31, "count": 1}]}}}`},
		{"print_hex_values", ptr, []Entry{{Key: zeroKey, Values: oneCPU(u64(0x32))}}, MapOptions{},
			`{"type": "map", "data": {"@": 50}}`},
		// Not from bpftrace's tests: per-CPU counts, sorting by value,
		// integers a float64 cannot hold, signed keys, min, keys with spaces.
		{"count", cnt, []Entry{
			{Key: pack(cnt.Key, 7), Values: twoCPUs(u64(2), u64(3))},
			{Key: pack(cnt.Key, -1), Values: twoCPUs(u64(1), u64(0))},
		}, MapOptions{}, `{"type": "map", "data": {"@c": {"-1": 1, "7": 5}}}`},
		{"big", big, []Entry{{Key: zeroKey, Values: oneCPU(u64(1<<64 - 1))}}, MapOptions{},
			`{"type": "map", "data": {"@big": "18446744073709551615"}}`},
		{"big 2^60 fits", big, []Entry{{Key: zeroKey, Values: oneCPU(u64(1 << 60))}}, MapOptions{},
			`{"type": "map", "data": {"@big": 1152921504606846976}}`},
		{"neg", neg, []Entry{{Key: pack(neg.Key, -3), Values: oneCPU(i64(-9007199254740993))}}, MapOptions{},
			`{"type": "map", "data": {"@neg": {"-3": "-9007199254740993"}}}`},
		{"min", mn, []Entry{{Key: zeroKey, Values: twoCPUs(pair(-4, 1), pair(-9, 1))}}, MapOptions{},
			`{"type": "map", "data": {"@mn": -9}}`},
		{"key spaces removed", spaces, []Entry{{Key: pack(spaces.Key, "a b"), Values: oneCPU(u64(1))}}, MapOptions{},
			`{"type": "map", "data": {"@s": {"ab": 1}}}`},
		{"empty keyed map", mp, nil, MapOptions{}, ``},
		{"empty hist map", hmulti, nil, MapOptions{}, ``},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sb strings.Builder
			if err := NewFormatter().WriteMapJSON(&sb, tc.m, tc.entries, tc.opt); err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want != "" {
				want += "\n"
				if !json.Valid([]byte(tc.want)) {
					t.Errorf("the expected line is not valid JSON")
				}
			}
			if got := sb.String(); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

func itoa(i int) string { return jsonInt64(int64(i)) }

func TestMultipleMapsJSON(t *testing.T) {
	// bpftrace prints one line per map ("multiple maps" case).
	m1, m2 := newMap("@map1", types.Int64, str16), newMap("@map2", types.Int64, str16)
	var sb strings.Builder
	f := NewFormatter()
	if err := f.WriteMapJSON(&sb, m1, []Entry{{Key: pack(m1.Key, "key1"), Values: oneCPU(i64(2))}}, MapOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteMapJSON(&sb, m2, []Entry{{Key: pack(m2.Key, "key2"), Values: oneCPU(i64(3))}}, MapOptions{}); err != nil {
		t.Fatal(err)
	}
	want := `{"type": "map", "data": {"@map1": {"key1": 2}}}` + "\n" + `{"type": "map", "data": {"@map2": {"key2": 3}}}` + "\n"
	if sb.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", sb.String(), want)
	}
}

func TestJSONEvents(t *testing.T) {
	tupT := types.NewTuple([]*types.Type{types.Int64, types.Int64, types.NewString(8)}, nil)
	boolT := types.NewTuple([]*types.Type{types.BoolT, types.BoolT}, nil)
	// struct Foo { int m; union N { int i; float f; } n; }: the float
	// member has no value
	withNone := &types.Type{Kind: types.Struct, Name: "struct Foo", Size: 8, Fields: []types.Field{
		{Name: "m", Type: types.Int32, Offset: 0},
		{Name: "n", Offset: 4, Type: &types.Type{Kind: types.Struct, Name: "union N", Size: 4, Fields: []types.Field{
			{Name: "i", Type: types.Int32, Offset: 0},
			{Name: "f", Type: &types.Type{Kind: types.Void, Size: 4, Name: "float"}, Offset: 0},
		}}},
	}}
	pv := func(t *types.Type, b []byte) string {
		p := &object.Printf{Args: []object.Arg{{Type: t, Offset: object.EventHeaderSize}}}
		s, err := NewFormatter().FormatPrintValueJSON(p, append(make([]byte, object.EventHeaderSize), b...))
		if err != nil {
			return err.Error()
		}
		return s
	}
	tests := []struct{ got, want string }{
		{JSONPrintf("test 5"), `{"type": "printf", "data": "test 5"}`},
		{JSONPrintf("test \r \n \t \\ \" bar"), `{"type": "printf", "data": "test \r \n \t \\ \" bar"}`},
		{JSONTime("12:34:56\n"), `{"type": "time", "data": "12:34:56\n"}`},
		{JSONSyscall("a b c\n"), `{"type": "syscall", "data": "a b c\n"}`},
		{JSONCat("1.5 2.5\n"), `{"type": "cat", "data": "1.5 2.5\n"}`},
		{JSONAttachedProbes(1), `{"type": "attached_probes", "count": 1, "data": {"probes": 1}}`},
		{JSONLostEvents(3), `{"type": "lost_events", "count": 3, "data": {"events": 3}}`},
		{JSONMessage(true, "bad \"x\"", srcpos.Pos{Filename: "-e", Line: 1, Column: 87}),
			`{"type": "errorf", "msg": "bad \"x\"", "filename": "stdin", "line": 1, "col": 87}`},
		{JSONMessage(false, "w", srcpos.Pos{Filename: "a.bt", Line: 3, Column: 5}),
			`{"type": "warnf", "msg": "w", "filename": "a.bt", "line": 3, "col": 5}`},
		{pv(types.Int64, i64(5)), `{"type": "value", "data": 5}`},
		{pv(types.NewString(16), pack(types.NewString(16), "bpftrace")), `{"type": "value", "data": "bpftrace"}`},
		{pv(tupT, pack(tupT, 1, 2, "string")), `{"type": "value", "data": [1,2,"string"]}`},
		{pv(boolT, []byte{1, 0}), `{"type": "value", "data": [true,false]}`},
		{pv(withNone, []byte{2, 0, 0, 0, 5, 0, 0, 0}), `{"type": "value", "data": {"m": 2, "n": {"i": 5, "f": null}}}`},
		{pv(types.NewBuf(4), []byte{3, 0, 0, 0, 'a', '\n', 0, 'z'}), `{"type": "value", "data": [97,10,0]}`},
		{pv(types.NewBuf(4), []byte{2, 0, 0, 0, 0xff, 0x80, 0, 0}), `{"type": "value", "data": [-1,-128]}`},
		{pv(&types.Type{Kind: types.Array, Name: types.BufferName, Len: 3, Size: 3, Elem: types.Uint8}, []byte{'a', 0xff, 0}), `{"type": "value", "data": [97,-1,0]}`},
		{JSONString("\x01\x1f"), `"\u0001\u001f"`},
		{JSONString("é"), `"é"`},
	}
	for _, tc := range tests {
		want := tc.want
		if strings.HasPrefix(want, "{") {
			want += "\n"
		}
		if tc.got != want {
			t.Errorf("got  %q\nwant %q", tc.got, want)
		}
	}
}

// TestJSONStringValid: every string, valid UTF-8 or not, becomes valid
// JSON that decodes to the same text, each byte outside valid UTF-8 as the
// code point of its value.
func TestJSONStringValid(t *testing.T) {
	for in, want := range map[string]string{
		"\x80":              `"\u0080"`,
		"\xff\xfe":          `"\u00ff\u00fe"`,
		"a\xc3":             `"a\u00c3"`,            // truncated sequence
		"\xc3\xa9\xe2\x82":  `"é\u00e2\u0082"`,      // valid, then truncated
		"\xed\xa0\x80":      `"\u00ed\u00a0\u0080"`, // a surrogate: not UTF-8
		"\U0001F600 \u2028": "\"\U0001F600 \u2028\"",
	} {
		got := JSONString(in)
		if got != want {
			t.Errorf("JSONString(%q) = %s, want %s", in, got, want)
		}
		var dec string
		if err := json.Unmarshal([]byte(got), &dec); err != nil {
			t.Errorf("JSONString(%q) = %s: not valid JSON: %v", in, got, err)
			continue
		}
		var latin1 []rune
		for i := 0; i < len(in); {
			r, n := utf8.DecodeRuneInString(in[i:])
			if r == utf8.RuneError && n <= 1 {
				r = rune(in[i]) // a byte outside valid UTF-8
			}
			latin1 = append(latin1, r)
			i += n
		}
		if dec != string(latin1) {
			t.Errorf("JSONString(%q) decodes to %q", in, dec)
		}
	}
}

func TestParseOutputFormat(t *testing.T) {
	for in, want := range map[string]OutputFormat{"": FormatText, "text": FormatText, "json": FormatJSON} {
		if got, err := ParseOutputFormat(in); err != nil || got != want {
			t.Errorf("ParseOutputFormat(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseOutputFormat("jsonx"); err == nil || !strings.HasPrefix(err.Error(), `Invalid output format "jsonx"`) {
		t.Errorf("ParseOutputFormat(jsonx): %v", err)
	}
}
