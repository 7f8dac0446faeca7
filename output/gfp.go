package output

import (
	"strconv"
	"strings"
)

// The kernel's GFP (get free pages) flag bits, by position, as
// include/linux/gfp_types.h numbers them.
const (
	gfpDMA = 1 << iota
	gfpHighmem
	gfpDMA32
	gfpMovable
	gfpReclaimable
	gfpHigh
	gfpIO
	gfpFS
	gfpZero
	_ // unused
	gfpDirectReclaim
	gfpKswapdReclaim
	gfpWrite
	gfpNowarn
	gfpRetryMayfail
	gfpNofail
	gfpNoretry
	gfpMemalloc
	gfpComp
	gfpNomemalloc
	gfpHardwall
	gfpThisnode
	gfpAccount
	gfpZerotags
	gfpSkipZero
	gfpSkipKasan
	gfpNoObjExt
)

// The compound GFP masks.
const (
	gfpReclaim         = gfpDirectReclaim | gfpKswapdReclaim
	gfpAtomic          = gfpHigh | gfpKswapdReclaim
	gfpKernel          = gfpReclaim | gfpIO | gfpFS
	gfpKernelAccount   = gfpKernel | gfpAccount
	gfpNowait          = gfpKswapdReclaim | gfpNowarn
	gfpNoio            = gfpReclaim
	gfpNofs            = gfpReclaim | gfpIO
	gfpUser            = gfpReclaim | gfpIO | gfpFS | gfpHardwall
	gfpHighuser        = gfpUser | gfpHighmem
	gfpHighuserMovable = gfpHighuser | gfpMovable | gfpSkipKasan
	gfpTranshugeLight  = (gfpHighuserMovable | gfpComp | gfpNomemalloc | gfpNowarn) &^ gfpReclaim
	gfpTranshuge       = gfpTranshugeLight | gfpDirectReclaim
)

// gfpNames are the names %gr prints, compound masks first, in the order of
// the kernel's __def_gfpflag_names (include/trace/events/mmflags.h): the
// first mask that matches takes its bits.
var gfpNames = []struct {
	mask uint64
	name string
}{
	{gfpTranshuge, "GFP_TRANSHUGE"},
	{gfpTranshugeLight, "GFP_TRANSHUGE_LIGHT"},
	{gfpHighuserMovable, "GFP_HIGHUSER_MOVABLE"},
	{gfpHighuser, "GFP_HIGHUSER"},
	{gfpUser, "GFP_USER"},
	{gfpKernelAccount, "GFP_KERNEL_ACCOUNT"},
	{gfpKernel, "GFP_KERNEL"},
	{gfpNofs, "GFP_NOFS"},
	{gfpAtomic, "GFP_ATOMIC"},
	{gfpNoio, "GFP_NOIO"},
	{gfpNowait, "GFP_NOWAIT"},
	{gfpDMA, "GFP_DMA"},
	{gfpHighmem, "__GFP_HIGHMEM"},
	{gfpDMA32, "GFP_DMA32"},
	{gfpHigh, "__GFP_HIGH"},
	{gfpIO, "__GFP_IO"},
	{gfpFS, "__GFP_FS"},
	{gfpZero, "__GFP_ZERO"},
	{gfpDirectReclaim, "__GFP_DIRECT_RECLAIM"},
	{gfpKswapdReclaim, "__GFP_KSWAPD_RECLAIM"},
	{gfpWrite, "__GFP_WRITE"},
	{gfpNowarn, "__GFP_NOWARN"},
	{gfpRetryMayfail, "__GFP_RETRY_MAYFAIL"},
	{gfpNofail, "__GFP_NOFAIL"},
	{gfpNoretry, "__GFP_NORETRY"},
	{gfpMemalloc, "__GFP_MEMALLOC"},
	{gfpComp, "__GFP_COMP"},
	{gfpNomemalloc, "__GFP_NOMEMALLOC"},
	{gfpHardwall, "__GFP_HARDWALL"},
	{gfpThisnode, "__GFP_THISNODE"},
	{gfpAccount, "__GFP_ACCOUNT"},
	{gfpZerotags, "__GFP_ZEROTAGS"},
	{gfpSkipZero, "__GFP_SKIP_ZERO"},
	{gfpSkipKasan, "__GFP_SKIP_KASAN"},
	{gfpNoObjExt, "__GFP_NO_OBJ_EXT"},
}

// gfpFlags renders GFP flags as %gr does: the names of the masks that
// match, joined by |, then any bits left over in hex; 0 is "0".
func gfpFlags(v uint64) string {
	if v == 0 {
		return "0"
	}
	var parts []string
	for _, n := range gfpNames {
		if v&n.mask == n.mask {
			parts = append(parts, n.name)
			v &^= n.mask
		}
	}
	if v != 0 {
		parts = append(parts, "0x"+strconv.FormatUint(v, 16))
	}
	return strings.Join(parts, "|")
}
