package output

import (
	"bytes"
	"errors"
	"testing"

	"github.com/gotrace/gotrace/internal/fuzzwatch"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// arg is a printf argument for tests: its type and encoded bytes.
type arg struct {
	t *types.Type
	b []byte
}

func iarg(v int64) arg              { return arg{types.Int64, i64(v)} }
func targ(t *types.Type, v any) arg { return arg{t, pack(t, v)} }
func sarg(s string, size int) arg {
	t := types.NewString(size)
	return arg{t, pack(t, s)}
}

// event lays args out after the event header, aligned, as codegen would.
func event(format string, args ...arg) (*object.Printf, []byte) {
	p := &object.Printf{Format: format}
	rec := make([]byte, object.EventHeaderSize)
	for _, a := range args {
		al := max(a.t.Align(), 1)
		for len(rec)%al != 0 {
			rec = append(rec, 0)
		}
		p.Args = append(p.Args, object.Arg{Type: a.t, Offset: len(rec)})
		rec = append(rec, a.b...)
	}
	p.Size = len(rec)
	return p, rec
}

func TestFormatPrintf(t *testing.T) {
	buf6 := &types.Type{Kind: types.Array, Size: 6, Len: 6, Elem: types.Uint8}
	hello := arg{buf6, []byte("Hello\x00")}
	// buf() of a run-time length: a uint32 length, then the bytes; the
	// length is clamped to the capacity.
	bufLen := func(n uint32, data string) arg {
		return arg{types.NewBuf(8), append([]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)}, data...)}
	}
	tup := types.NewTuple([]*types.Type{types.Int64, str4}, nil)
	rec := types.NewTuple([]*types.Type{types.Int64}, []string{"a"})
	big := iarg(0x12345678abcdef)
	tests := []struct {
		name   string
		format string
		args   []arg
		want   string
	}{
		// Captured from bpftrace 0.17 (testdata/bpftrace-0.17/printf.txt);
		// 0.26 prints the same.
		{"0.17 mix", "[%d|%5d|%-5d|%05d|%x|%X|%o|%u|%c|%s|%10s|%-10s|%%|%ld|%lu|%hhd|%hd|%lld|%llu|%zd]\n",
			[]arg{iarg(-5), iarg(42), iarg(42), iarg(42), iarg(255), iarg(255), iarg(8), iarg(-1), iarg(65),
				sarg("str", 64), sarg("abc", 64), sarg("abc", 64), iarg(-1), iarg(-1), iarg(300), iarg(70000),
				iarg(-7), iarg(7), iarg(-9)},
			"[-5|   42|42   |00042|ff|FF|10|4294967295|A|str|       abc|abc       |%|-1|18446744073709551615|44|4464|-7|7|-9]\n"},
		{"0.17 truncation", "[%d %x %lx %u %d]\n",
			[]arg{big, big, big, iarg(-1), targ(types.Uint32, uint64(4294967295))},
			"[2024525295 78abcdef 12345678abcdef 4294967295 -1]\n"},
		// bpftrace 0.26 runtime tests (tests/runtime/call).
		{"length modifiers", "%hhx %hx %x %jx\n", []arg{big, big, big, big}, "ef cdef 78abcdef 12345678abcdef\n"},
		{"width and zero", "%5s %04x", []arg{sarg("ba", 64), iarg(2)}, "   ba 0002"},
		{"rx", "%rx", []arg{hello}, `\x48\x65\x6c\x6c\x6f\x00`},
		{"rh", "%rh", []arg{hello}, "48 65 6c 6c 6f 00"},
		{"r", "%r", []arg{hello}, `Hello\x00`},
		{"r of a string", "%r", []arg{sarg("hi", 8)}, "hi"},
		{"run-time length", "[%r|%rx|%rh|%s]", []arg{bufLen(3, "a\x00b\x00\x00\x00\x00\x00"), bufLen(2, "ab\x00\x00\x00\x00\x00\x00"), bufLen(1, "\xff\x00\x00\x00\x00\x00\x00\x00"), bufLen(0, "xxxxxxxx")},
			`[a\x00b|\x61\x62|ff|]`},
		{"run-time length past the capacity", "[%r]", []arg{bufLen(1000, "abcdefgh")}, "[abcdefgh]"},
		{"fragments", "%dst: %sa; %dnd: %sb;;\n", []arg{iarg(1), sarg("a", 8), iarg(2), sarg("ab", 8)}, "1st: aa; 2nd: abb;;\n"},
		{"chars", "%c%c%c%c\n", []arg{iarg(0x41), iarg(0x42), iarg(0x43), iarg(0x44)}, "ABCD\n"},
		// C++ stream semantics of bpftrace >= 0.24.
		{"zero pad negative", "%05d", []arg{iarg(-5)}, "000-5"},
		{"zero pad left", "%-05d", []arg{iarg(42)}, "42000"},
		{"precision ignored", "%.3d|%.2s", []arg{iarg(5), sarg("abcdef", 16)}, "5|abcdef"},
		{"space ignored", "% d", []arg{iarg(5)}, "5"},
		{"plus", "%+d %+d %+d %+u %+x %+i", []arg{iarg(5), iarg(0), iarg(-5), iarg(5), iarg(5), iarg(7)}, "+5 +0 -5 5 5 +7"},
		{"alternate", "%#x %#X %#x %#o %#o", []arg{iarg(255), iarg(255), iarg(0), iarg(8), iarg(0)}, "0xff 0XFF 0 010 0"},
		{"alternate padded", "%#06x", []arg{iarg(2)}, "0000x2"},
		{"pointer", "%p %p %10p", []arg{targ(&types.Type{Kind: types.Pointer, Size: 8, Elem: types.Uint8}, uint64(0x1234)),
			iarg(0), iarg(0xff)}, "0x1234 0       0xff"},
		{"unsigned of negative", "%u %lu %hu %hhu %o", []arg{iarg(-1), iarg(-1), iarg(-1), iarg(-1), iarg(-1)},
			"4294967295 18446744073709551615 65535 255 37777777777"},
		{"signed of unsigned", "%d %ld %hhd", []arg{targ(types.Uint64, ^uint64(0)), targ(types.Uint64, ^uint64(0)), targ(types.Uint8, uint64(200))},
			"-1 -1 -56"},
		{"small ints", "%d %d %u %x", []arg{targ(types.Int8, -3), targ(types.Int16, -300), targ(types.Uint16, uint64(65535)), targ(types.Int32, -1)},
			"-3 -300 65535 ffffffff"},
		{"unknown length is int", "%Ld %hld", []arg{big, big}, "2024525295 2024525295"},
		{"char width", "%3c|%-3c|", []arg{iarg(65), iarg(66)}, "  A|B  |"},
		{"bool", "%d %s %s", []arg{targ(types.BoolT, true), targ(types.BoolT, true), targ(types.BoolT, false)}, "1 true false"},
		{"string of int", "%s %5s", []arg{iarg(-3), iarg(42)}, "-3    42"},
		{"string of tuple", "%s|%8s|%-8s|", []arg{arg{tup, pack(tup, 1, "ab")}, arg{tup, pack(tup, 1, "ab")}, arg{tup, pack(tup, 1, "ab")}},
			"(1, ab)|       (1, ab)|(       1, ab)|"},
		{"string of record", "%s", []arg{arg{rec, pack(rec, 3)}}, "{ .a = 3 }"},
		{"string stops at NUL", "[%s]", []arg{arg{str4, []byte("a\x00bc")}}, "[a]"},
		{"truncated string", "[%s]", []arg{arg{str4, []byte("abcd")}}, "[abcd..]"},
		{"left string", "[%-6s]", []arg{sarg("ab", 16)}, "[ab    ]"},
		{"invalid integer", "%d", []arg{sarg("abc", 8)}, "!{invalid integer conversion: abc}"},
		{"literal percent forms", "100%% %5% %0-5d %y %", nil, "100% % %0-5d %y %"},
		{"star width ignored", "[%*d]", []arg{iarg(7)}, "[7]"},
		{"no args", "hello\n", nil, "hello\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, rec := event(tc.format, tc.args...)
			got, err := FormatPrintf(p, rec)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("FormatPrintf(%q) = %q, want %q", tc.format, got, tc.want)
			}
		})
	}
}

func TestFormatPrintfErrors(t *testing.T) {
	p, rec := event("%d %d", iarg(1), iarg(2))
	if _, err := FormatPrintf(p, rec[:20]); !errors.Is(err, ErrBadRecord) {
		t.Errorf("short record: got %v", err)
	}
	p, rec = event("%d %d", iarg(1))
	if _, err := FormatPrintf(p, rec); !errors.Is(err, ErrBadRecord) {
		t.Errorf("argument count mismatch: got %v", err)
	}
	if _, err := FormatPrintf(nil, nil); !errors.Is(err, ErrBadRecord) {
		t.Errorf("nil printf: got %v", err)
	}
}

func TestParseFormat(t *testing.T) {
	f := ParseFormat("a%-+ #012.5llxb%%c%rhd%gr")
	if len(f.Specs) != 3 || len(f.Fragments) != 4 {
		t.Fatalf("got %d specs, %d fragments", len(f.Specs), len(f.Fragments))
	}
	want := Spec{Left: true, Plus: true, Space: true, Alt: true, Zero: true, Width: 12, Precision: 5, Length: "ll", Verb: "x"}
	if f.Specs[0] != want {
		t.Errorf("spec 0 = %+v, want %+v", f.Specs[0], want)
	}
	if f.Specs[1].Verb != "rh" || f.Specs[2].Verb != "gr" {
		t.Errorf("verbs %q %q", f.Specs[1].Verb, f.Specs[2].Verb)
	}
	if f.Fragments[0] != "a" || f.Fragments[1] != "b%c" || f.Fragments[2] != "d" || f.Fragments[3] != "" {
		t.Errorf("fragments %q", f.Fragments)
	}
}

func TestFormatPrintValue(t *testing.T) {
	p, rec := event("", sarg("hi", 8))
	got, err := NewFormatter().FormatPrintValue(p, rec)
	if err != nil || got != "hi\n" {
		t.Errorf("got %q, %v", got, err)
	}
}

// printfArgTypes are the argument types FuzzFormatPrintf chooses from.
var printfArgTypes = []*types.Type{
	types.Int64, types.Uint64, types.Int32, types.Uint8, types.Int8, types.Int16, types.BoolT,
	types.NewString(16), types.NewString(1),
	{Kind: types.Array, Size: 4, Len: 4, Elem: types.Uint8},
	types.NewTuple([]*types.Type{types.Int32, types.NewString(4)}, nil),
	{Kind: types.Errno, Size: 8, Signed: true}, {Kind: types.MacAddr, Size: 8},
	{Kind: types.Inet, Size: 24}, {Kind: types.Timestamp, Size: 8},
}

// FuzzFormatPrintf formats random records with random formats and argument
// types (one byte of kinds per conversion): formatting either succeeds or
// returns an error, never panics, and stays within the watchdog's time and
// memory.
func FuzzFormatPrintf(f *testing.F) {
	f.Add("%d %s %-05x %rh %", []byte("0123456789abcdef0123456789abcdef0123456789"), []byte{0, 7, 1, 9})
	f.Add("%-20s|%08.3d|%#o|%c|%p|%%|%lu|%hhd|%rx", bytes.Repeat([]byte{0xff, 0x41}, 80), []byte{7, 2, 3, 4, 5, 6, 9, 10, 11})
	f.Add("%*d %999999999d %-99999s", []byte("abc"), []byte{0, 1, 7})
	f.Fuzz(func(t *testing.T, format string, rec, kinds []byte) {
		fuzzwatch.Run(t, fuzzwatch.Default, len(format)+len(rec)+len(kinds), func() {
			pf := ParseFormat(format)
			p := &object.Printf{Format: format}
			off := object.EventHeaderSize
			for i := range pf.Specs {
				at := types.Int64
				if i < len(kinds) {
					at = printfArgTypes[int(kinds[i])%len(printfArgTypes)]
				}
				p.Args = append(p.Args, object.Arg{Type: at, Offset: off})
				off += (at.Size + 7) / 8 * 8
			}
			out, _ := FormatPrintf(p, rec)
			if len(out) > 64<<20 {
				t.Errorf("%d bytes of output from a %d-byte format", len(out), len(format))
			}
		})
	})
}
