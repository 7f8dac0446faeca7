package provider

import (
	"fmt"

	"github.com/gotrace/gotrace/object"
)

// FuncTarget is the target of a probe on a kernel function or event
// (kprobe, kretprobe, fentry, fexit, rawtracepoint, iter, and the raw
// tracepoints of the syscall dispatchers).
type FuncTarget struct {
	Func   string // the function or event, or the address of kprobe:ADDRESS in decimal
	Offset uint64 // kprobe: the offset into Func
	// Addr is the address kprobe:ADDRESS probes (ByAddr set).
	Addr   uint64
	ByAddr bool
}

// String is "FUNC" or "FUNC+OFFSET".
func (t FuncTarget) String() string {
	if t.Offset != 0 {
		return fmt.Sprintf("%s+%d", t.Func, t.Offset)
	}
	return t.Func
}

// TracepointTarget is the target of a tracepoint probe.
type TracepointTarget struct {
	Category, Event string
}

// String is "CATEGORY:EVENT".
func (t TracepointTarget) String() string { return t.Category + ":" + t.Event }

// BinaryTarget is the target of a uprobe or uretprobe: a function of a
// binary, an offset into it, or an address (Func "0x..." of
// uprobe:PATH:0xADDRESS, which the binary's symbols resolve at attach).
type BinaryTarget struct {
	File   string // the binary; "ARCHIVE!/ENTRY" for a library in an archive
	Func   string
	Offset uint64 // the offset into Func
}

// String is "FILE:FUNC" or "FILE:FUNC+OFFSET".
func (t BinaryTarget) String() string {
	s := t.File + ":" + t.Func
	if t.Offset != 0 {
		s += fmt.Sprintf("+%d", t.Offset)
	}
	return s
}

// USDTTarget is one location of a USDT probe in its binary.
type USDTTarget struct {
	File      string
	Offset    uint64 // the location's file offset
	Semaphore uint64 // the file offset of the probe's semaphore, 0 when it has none
	First     bool   // the probe's first location: the probe counts once
}

// String is "FILE:0xOFFSET:0xSEMAPHORE:FIRST" (FIRST 1 or 0).
func (t USDTTarget) String() string {
	first := 0
	if t.First {
		first = 1
	}
	return fmt.Sprintf("%s:0x%x:0x%x:%d", t.File, t.Offset, t.Semaphore, first)
}

// WatchTarget is the hardware breakpoint of a watchpoint probe.
type WatchTarget struct {
	Addr, Length uint64
	Mode         string // "r", "w", "x", in any combination
}

// String is "0xADDRESS:LENGTH:MODE".
func (t WatchTarget) String() string { return fmt.Sprintf("0x%x:%d:%s", t.Addr, t.Length, t.Mode) }

// TargetAs returns t, a target of p, as its provider's type T; a target of
// another type is an error of the compiler that made it.
func TargetAs[T object.Target](p *object.Probe, t object.Target) (T, error) {
	v, ok := t.(T)
	if !ok {
		return v, fmt.Errorf("attach %s: target %v is a %T, not a %T", p.Name, t, t, v)
	}
	return v, nil
}
