package object

import (
	"sort"
	"sync/atomic"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/format"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

// Program is a compiled script: the BPF collection plus everything the runtime
// needs to attach it and to decode what it sends back.
type Program struct {
	Collection *ebpf.CollectionSpec
	Probes     []*Probe
	Maps       []*Map    // user maps, sorted by Name
	Printfs    []*Printf // indexed by Event.ID for EventPrintf / EventErrorf / EventWarnf / EventSystem / EventCat
	Times      []string  // strftime formats, indexed by Event.ID for EventTime
	EventsMap  string    // name of the BPF_MAP_TYPE_RINGBUF map in Collection.Maps carrying events
	GlobalsMap string    // name of a one-element array holding Globals; "" when unused
	DroppedMap string    // name of a one-element array of uint64 (per-CPU in older objects) counting events lost because EventsMap was full; "" when unused
	StackMap   string    // name of the BPF_MAP_TYPE_STACK_TRACE map that kstack ids index; "" when unused
	// BuildIDStackMap is the stack trace map (BPF_F_STACK_BUILD_ID) that
	// the ids of ustack(build_id) index: frames of struct
	// bpf_stack_build_id; "" when unused.
	BuildIDStackMap string
	// DwarfSampleMap is the LRU hash of dw_ustack's samples, keyed by the
	// id word of its values (a DwarfSample each); "" when unused.
	DwarfSampleMap string
	FullMap        string // name of a per-CPU uint64 array indexed like Maps: updates dropped because the map was full; "" when unused
	Globals        GlobalsLayout
	// PacketMap is the BPF_MAP_TYPE_PERF_EVENT_ARRAY that skboutput()
	// sends packets through (bpf_skb_output needs one), "" when unused;
	// each sample is a Packet header and the packet's bytes. Pcaps are
	// the files they go to, indexed by Packet.ID.
	PacketMap string
	Pcaps     []Pcap
	// MissingProbes is the config missing_probes: what a probe the kernel
	// refuses to attach does. "" or "error": the script fails; "warn": it
	// is skipped with a warning; "ignore": skipped quietly.
	MissingProbes string
	// HelperSites are the helper calls whose failures are reported with
	// -k (Options.HelperWarnings), indexed by EventHelperError's ID.
	HelperSites []HelperSite
	// Source is the script's text, for messages that show its lines at
	// run time (the "expanded from" notes of errorf and warnf).
	Source string
	// RuntimeErrors are the places that report a run-time error such as a
	// division by zero, indexed by EventRuntimeError's ID.
	RuntimeErrors []RuntimeError
}

// BuildIDFrameSize is the size of a frame in BuildIDStackMap: struct
// bpf_stack_build_id {s32 status; u8 build_id[20]; u64 offset or ip},
// status 1 for a build id and offset, 2 for an address only, 0 past the
// last frame.
const BuildIDFrameSize = 32

// GlobalsLayout is the layout of the single value of GlobalsMap, which the
// runtime fills in before attaching.
type GlobalsLayout struct {
	Size            int
	StartNsOffset   int // uint64 bpf_ktime_get_ns() at startup (for elapsed); -1 if unused
	StartBootOffset int // uint64 bpf_ktime_get_boot_ns() at startup; -1 if unused
}

// Probe is one BPF program and the attach points it serves.
type Probe struct {
	// Provider is the name of the provider (package provider) that
	// attaches the probe: "begin", "tracepoint", "kprobe", ... An fentry
	// wildcard served by kprobe_multi says "kprobe".
	Provider string
	Name     string // the probe as written after expansion, e.g. "tracepoint:syscalls:sys_enter_openat"
	Program  string // program name in Program.Collection.Programs
	// Function is the name bpftrace 0.26 gives the probe's program, which
	// its load errors name: the probe's name with every character but
	// letters, digits and '_' made '_', then '_' and the probe's 1-based
	// position in the script ("begin_1").
	Function string
	Targets  []Target // what to attach to, one value of its provider's target type each
	Period   uint64   // interval/profile/software: sample period (ns for cpu-clock, events otherwise)
	Freq     uint64   // profile:hz: sample frequency
	Config   uint64   // software: PERF_COUNT_SW_* value
	Pin      string   // iter: the path the iterator is pinned at instead of run ("": run it)
	Order    int      // order of appearance among the probes of its provider (BEGIN and END run in it)
	// Via says, for the user, when a probe is served by another mechanism
	// than its name suggests (e.g. an fentry wildcard through kprobe_multi).
	Via string
	// Dispatch is, for a block on syscall tracepoints run by tail calls
	// from a dispatcher on the raw tracepoint sys_enter or sys_exit, the
	// BPF_MAP_TYPE_PROG_ARRAY in Collection.Maps that its program is
	// placed in, at the syscall numbers of its Targets; "" otherwise.
	Dispatch string
	// Dispatcher: the program runs the blocks of other probes (the syscall
	// dispatcher on the raw tracepoint Targets[0]); it counts for no
	// attach point.
	Dispatcher bool
	// Group is the set of targets this probe was expanded with; probes
	// that share a Group pointer come from the same probe of the script.
	// nil for probes the runtime makes up itself.
	Group *Group
}

// Target is one thing a probe attaches to: a kernel function, a
// tracepoint, a location in a binary... Its provider's Compile makes it, as
// a value of the provider's own type (package provider), and its Attach
// reads it back, so that nothing parses it again. String names it in
// messages and in the targets the kernel refused, as bpftrace does:
// "vfs_read", "do_sys_open+16", "syscalls:sys_enter_openat",
// "/bin/bash:readline".
type Target interface {
	String() string
}

// Group is one probe of the script after expansion: the attach points as
// written, and how many targets they expanded to. A trampoline wildcard
// becomes one Probe (and one program) per target, all sharing one Group; a
// kprobe wildcard is one Probe with many Targets.
type Group struct {
	// Written is the attach points as the script wrote them, e.g.
	// "fentry:vfs_*" or "kprobe:vfs_read, kprobe:vfs_write".
	Written string
	// Size is the number of targets of the group, over all its probes.
	Size int
}

// Wildcard reports whether the group has more than one target: the kernel
// refusing one of them then skips that target instead of failing the
// script. A nil group is not a wildcard.
func (g *Group) Wildcard() bool { return g != nil && g.Size > 1 }

// Map describes a user map (@name) for printing.
type Map struct {
	Name    string        // "@", "@start"
	BPFName string        // name in Program.Collection.Maps
	Keys    []*types.Type // the key components as the user wrote them (integers widened to 8 bytes); nil for a map without keys
	Key     *types.Type   // layout of the BPF key: a Tuple of Keys, plus a trailing uint64 bucket for Hist and Lhist; uint64 0 when Keys is nil and not a histogram
	Value   *types.Type   // value type, or an aggregation kind (types.Count, types.Hist, ...)
	PerCPU  bool          // values are per-CPU (aggregations)
	// HistSum: each bucket of a hist() or lhist() holds {count uint64;
	// sum int64}, the sum of the values it recorded beside their number
	// (codegen.Options.HistSum), rather than the count alone.
	HistSum bool
}

// EventKind is the first uint64 of every ringbuf record.
type EventKind uint64

// Event kinds. Every record starts with Event (16 bytes).
const (
	EventPrintf      EventKind = iota + 1 // ID indexes Printfs; args follow
	EventExit                             // ID is the exit code
	EventPrint                            // ID indexes Maps: print the map now
	EventClear                            // ID indexes Maps: delete every entry
	EventZero                             // ID indexes Maps: zero every value
	EventTime                             // ID indexes Times
	EventErrorf                           // like EventPrintf, printed as an error on stderr
	EventWarnf                            // like EventPrintf, printed as a warning on stderr
	EventPrintValue                       // ID indexes Printfs: one argument printed with print(v)
	EventSystem                           // like EventPrintf, the result is run as a shell command (--unsafe)
	EventCat                              // like EventPrintf, the result is a file name whose contents are printed
	EventDropped                          // ID indexes Maps: an update was dropped because the map was full
	EventJoin                             // ID indexes Printfs: a uint64 count at offset 16, then Args strings; Format is the separator
	EventHelperError                      // ID indexes HelperSites; an int64 error code follows the header (-k)
)

// EventHeaderSize is the size of the common event header {kind uint64; id uint64}.
const EventHeaderSize = 16

// Printf is a format string and the layout of its arguments in an event.
type Printf struct {
	Format string
	Args   []Arg
	Size   int // total record size, including the header
	// Pos and End delimit the errorf()/warnf() call (End exclusive), which
	// the text output names as file:line:col-endcol and -f json as
	// filename, line and col; zero for other events.
	Pos, End srcpos.Pos
	// Expanded are the macro uses an errorf()/warnf() call was expanded
	// from, innermost first; the text output adds an "expanded from" note
	// with the source line (Program.Source) for each.
	Expanded []srcpos.Span

	parsed atomic.Pointer[parsedFormat] // Parsed's cache
}

// parsedFormat is Format parsed, with the text it was parsed from.
type parsedFormat struct {
	src string
	f   *format.Format
}

// Parsed returns Format parsed by format.Parse. The result is computed
// once and cached (again if Format changes), so that printing an event
// does not parse its format; it must not be modified. Parsed is safe for
// concurrent use.
func (p *Printf) Parsed() *format.Format {
	if c := p.parsed.Load(); c != nil && c.src == p.Format {
		return c.f
	}
	c := &parsedFormat{src: p.Format, f: format.Parse(p.Format)}
	p.parsed.Store(c)
	return c.f
}

// Arg is one printf argument: its type and its offset from the start of the record.
type Arg struct {
	Type   *types.Type
	Offset int
}

// Pcap is a pcap file that a skboutput() call writes packets to: Offset
// bytes at the start of each packet are left out (an Ethernet header).
type Pcap struct {
	File   string
	Offset int
}

// Packet is the header of a PacketMap sample: the Pcaps index, the time
// (bpf_ktime_get_boot_ns) and the number of packet bytes that follow.
type Packet struct {
	ID, BootNs, Len uint64
}

// PacketHeaderSize is the size of Packet in a sample.
const PacketHeaderSize = 24

// HelperSite is a BPF helper call checked for errors at run time.
type HelperSite struct {
	Helper string // "probe_read_kernel", "map_update_elem", ...
	// Pos and End span the script expression whose helper call failed, as
	// bpftrace 0.26 reports it: the member access, the dereference, the
	// call, or else the statement (End may be invalid).
	Pos, End srcpos.Pos
}

// EventRuntimeError's ID indexes RuntimeErrors: print its warning.
const EventRuntimeError = EventHelperError + 1

// EventUnwatch's ID is an address: detach the watchpoint probes on it
// (unwatch()). An address no watchpoint probe watches is ignored.
const EventUnwatch = EventRuntimeError + 1

// RuntimeError is a run-time error the program reports as a warning, as
// bpftrace's "Divide or modulo by 0 detected" does.
type RuntimeError struct {
	Msg string     // the warning, without "WARNING: "
	Pos srcpos.Pos // script position
	// End, when valid, ends the script span the warning is about: the
	// warning then names the span and shows its source line, as bpftrace
	// 0.26 shows the lines of helper errors.
	End srcpos.Pos
	// Helper, when set, makes the warning a helper error that returned 0
	// (a map lookup that found nothing), which -f json reports as such.
	Helper string
}

// ProgramNames returns the program names of p in a stable order.
func (p *Program) ProgramNames() []string {
	names := make([]string, 0, len(p.Collection.Programs))
	for n := range p.Collection.Programs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// A DwarfSample is what a dw_ustack copies for the runtime to unwind:
// {u64 seq; u64 ip; u64 sp; u64 bp; u64 size; u64 nret; struct {u64
// stack; u64 ret;} rets[DwarfSampleReturns]; u8 stack[]}: the registers
// of the user at the event, the task's first nret uretprobe return
// instances (the stack address of each replaced return address and the
// real one), and size bytes of its stack from sp.
const (
	DwarfSampleIP      = 8
	DwarfSampleSP      = 16
	DwarfSampleBP      = 24
	DwarfSampleSize    = 32
	DwarfSampleNRet    = 40
	DwarfSampleRets    = 48
	DwarfSampleReturns = 8
	DwarfSampleHeader  = DwarfSampleRets + 16*DwarfSampleReturns
)
