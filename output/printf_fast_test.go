package output

import (
	"testing"

	"github.com/gotrace/gotrace/lang/types"
)

// TestAppendPrintfNoAllocs checks that the event loop's hot path, a printf
// of integers and strings appended to a reused buffer, does not allocate.
func TestAppendPrintfNoAllocs(t *testing.T) {
	f := NewFormatter()
	p, rec := event("%d %s %-8x|%5u %s\n", iarg(123456789), sarg("gotrace", 16), iarg(255), iarg(7), sarg("0123456789abcdef", 16))
	buf := make([]byte, 0, 256)
	want := "123456789 gotrace ff      |    7 0123456789abcdef..\n"
	var err error
	allocs := testing.AllocsPerRun(1000, func() {
		buf, err = f.AppendPrintf(buf[:0], p, rec)
	})
	if err != nil || string(buf) != want {
		t.Fatalf("AppendPrintf = %q, %v; want %q", buf, err, want)
	}
	if allocs != 0 {
		t.Errorf("AppendPrintf allocates %v times per event, want 0", allocs)
	}
}

// TestAppendSpecAgrees checks that the conversions appendSpec formats in
// place print what the general path (applySpec) prints, for every flag,
// width and verb, on integers of each size and signedness and on strings.
func TestAppendSpecAgrees(t *testing.T) {
	f := NewFormatter()
	values := []arg{
		iarg(-42), iarg(0), iarg(1 << 40), targ(types.Uint8, uint64(200)), targ(types.Int16, int64(-3)),
		targ(types.Uint32, uint64(0xdeadbeef)), sarg("", 8), sarg("abc", 8), sarg("12345678", 8),
	}
	for _, flags := range []string{"", "-", "+", "#", "0", "-0", "+0", "#0", "-+ #0", " "} {
		for _, width := range []string{"", "1", "6", "20"} {
			for _, length := range []string{"", "hh", "h", "l"} {
				for _, verb := range []string{"d", "i", "u", "o", "x", "X", "c", "p", "s"} {
					sp := ParseFormat("%" + flags + width + length + verb).Specs[0]
					for _, v := range values {
						if v.t.Kind == types.String && verb != "s" {
							continue
						}
						got := string(f.appendSpec([]byte("prefix"), sp, v.t, v.b))
						want := "prefix" + f.applySpec(sp, v.t, v.b)
						if got != want {
							t.Errorf("%%%s%s%s%s of %v %x: got %q, want %q", flags, width, length, verb, v.t, v.b, got, want)
						}
					}
				}
			}
		}
	}
}
