package provider

import (
	"testing"

	"github.com/gotrace/gotrace/internal/usdt"
)

// TestUSDTArgNAt: argN of a usdt point is where its location's note says,
// and past the location's arguments there is none (argN reads 0).
func TestUSDTArgNAt(t *testing.T) {
	reg := usdt.Arg{Size: 8, Signed: true, Kind: usdt.ArgReg, Reg: "di"}
	pt := &Point{Data: &usdtPoint{Probe: usdt.Probe{Args: []usdt.Arg{reg}}}}
	if a, ok := usdtProvider.ArgNAt(pt, 0); !ok || a != reg {
		t.Errorf("arg0 = %+v, %v; want %+v, true", a, ok, reg)
	}
	if a, ok := usdtProvider.ArgNAt(pt, 1); ok {
		t.Errorf("arg1 = %+v, true; want none", a)
	}
	for _, p := range All() {
		if p.ArgNAt != nil && (!p.ArgN || p.Ctx != CtxPtRegs) {
			t.Errorf("%s: ArgNAt without argN in pt_regs", p.Name)
		}
	}
}
