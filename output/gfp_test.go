package output

import "testing"

func TestGFPFlags(t *testing.T) {
	for v, want := range map[uint64]string{
		0:                     "0",
		0x1:                   "GFP_DMA",
		0xcc0:                 "GFP_KERNEL",
		0xcc0 | 0x400000:      "GFP_KERNEL_ACCOUNT",
		0xcc0 | 0x100:         "GFP_KERNEL|__GFP_ZERO",
		0x820:                 "GFP_ATOMIC",
		0x2800:                "GFP_NOWAIT",
		0x2140cca:             "GFP_HIGHUSER_MOVABLE|__GFP_COMP",
		0x140cca:              "GFP_HIGHUSER|__GFP_COMP|0x8",
		0x200:                 "0x200",
		0x8 | 0x10 | 1<<40:    "0x10000000018",
		0xcc0 | 1<<27 | 0x200: "GFP_KERNEL|0x8000200",
	} {
		if got := gfpFlags(v); got != want {
			t.Errorf("gfpFlags(%#x) = %q, want %q", v, got, want)
		}
	}
}
