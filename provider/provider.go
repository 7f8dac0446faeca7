package provider

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/usdt"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// ArgsBuilder builds the args records that providers' ArgsType hooks
// pick from; the checker implements it. Each returns the record, or nil
// and why args is not available.
type ArgsBuilder interface {
	// TracepointArgs: the fields of the tracepoint's format file.
	TracepointArgs(pt *Point) (*types.Type, string)
	// ProtoArgs: the parameters of the point's BTF prototype, in the
	// argument slots of a trampoline's context (fentry, fexit, BTF raw
	// tracepoints).
	ProtoArgs(pt *Point) (*types.Type, string)
	// RegisterArgs: the parameters of the point's BTF prototype, in the
	// registers of its pt_regs (kprobe).
	RegisterArgs(pt *Point) (*types.Type, string)
	// DWARFArgs: the parameters the DWARF of the user binary gives the
	// function.
	DWARFArgs(pt *Point) (*types.Type, string)
}

// CtxKind says what the program's context (R1, the ctx builtin) points to.
type CtxKind uint8

// Contexts.
const (
	CtxNone             CtxKind = iota // no context (BEGIN, END): ctx is not available
	CtxTracepointRecord                // the tracepoint's record
	CtxPtRegs                          // struct pt_regs: arguments in registers
	CtxBTFArgs                         // an array of u64 arguments (trampolines, BTF raw tracepoints)
	CtxPerfSample                      // struct bpf_perf_event_data
	CtxSyscall                         // raw tracepoint sys_enter/sys_exit: {struct pt_regs *regs; long id or ret} (syscalls.go)
	CtxIter                            // an iterator's struct bpf_iter__OBJECT (iter.go)
)

// What a context says to the code generator, which asks these rather than
// comparing kinds: a program's context is the one its provider's Compile
// returns (Program.Ctx), which may differ from the provider's own.

// Available reports whether the program has a context (not BEGIN, END or
// the other programs run by the runtime itself).
func (k CtxKind) Available() bool { return k != CtxNone }

// ArgsInRegs reports whether the arguments are in the registers of the
// context, a struct pt_regs (arg0 in its first argument register, retval
// in its return register).
func (k CtxKind) ArgsInRegs() bool { return k == CtxPtRegs }

// HasRegs reports whether the context holds the registers of the
// interrupted code: a struct pt_regs, or a perf sample, which starts with
// one.
func (k CtxKind) HasRegs() bool { return k == CtxPtRegs || k == CtxPerfSample }

// ArgsInSlots reports whether the context is an array of u64 argument
// slots whose pointers the verifier knows by BTF (trampolines, BTF raw
// tracepoints), so members reached through them may be loaded directly.
func (k CtxKind) ArgsInSlots() bool { return k == CtxBTFArgs }

// SyscallRegs reports whether the program is a syscall dispatcher's block:
// its context is the raw tracepoint's {struct pt_regs *regs; long id or
// ret}, and a syscall tracepoint's fields are read from the syscall's
// registers (syscalls.go).
func (k CtxKind) SyscallRegs() bool { return k == CtxSyscall }

// EndsWithEmptyRun reports whether the program runs once more after the
// last object with none (its pointer after the meta one is NULL), a run
// that does nothing (iterators).
func (k CtxKind) EndsWithEmptyRun() bool { return k == CtxIter }

// Typer is what a provider's typing hooks ask of the checker.
type Typer interface {
	// KernelType converts a type of the kernel's BTF; nil when it has no
	// value type.
	KernelType(t btf.Type) *types.Type
}

// Phase says when the runtime runs a provider's programs.
type Phase uint8

// Phases.
const (
	Attached Phase = iota // attached to events for the whole run
	Begin                 // run once before the others attach (BPF_PROG_TEST_RUN)
	End                   // run once at exit
	Bench                 // run repeatedly and timed, between BEGIN and END (bench.go)
	Test                  // run once each with --test, between BEGIN and END (bench.go)
)

// Attaches reports whether the provider's programs are attached to events
// for the whole run (they count in the probe statistics and are the ones
// --probe-filter selects), rather than run by the runtime at one phase.
func (p *Provider) Attaches() bool { return p.Phase == Attached }

// WildcardIsOneProbe reports whether a wildcard of the provider attaches
// through one multi link, as one probe that bpftrace names after the
// wildcard, where the kernel has kprobe_multi or not.
func (p *Provider) WildcardIsOneProbe(kprobeMulti bool) bool {
	switch p.MultiLink {
	case KprobeMultiLink:
		return kprobeMulti
	case UprobeMultiLink:
		return true
	}
	return false
}

// MultiLink is a link that attaches one program to many functions.
type MultiLink uint8

// The multi links.
const (
	NoMultiLink MultiLink = iota
	KprobeMultiLink
	UprobeMultiLink
)

// Provider is one probe kind.
type Provider struct {
	Name    string
	Aliases []string
	// Bare is how a script writes the provider's one attach point when it
	// takes no parts (BEGIN, END); "" for the providers written
	// "name:...".
	Bare string
	// Needs says what a provider that gotrace does not support yet would
	// need; such a provider has no hooks and is refused when expanded.
	Needs string

	// Expand turns an attach point, split on ':' outside quotes (parts
	// after the provider), into expanded points, wildcards included.
	// raw is the attach point as written.
	Expand func(env ExpandEnv, raw string, parts []string) ([]*Point, error)

	// Typing of the builtins.
	// ArgsType types the args builtin of a probe with one attach point,
	// when the probe uses it; nil when the provider has no args.
	ArgsType func(b ArgsBuilder, pt *Point) (*types.Type, string)
	// ArgsInCtx: the args record is the program's context (a tracepoint's
	// record), whose fields are read at their offsets in it.
	ArgsInCtx bool
	ArgsErr   string // why args is unavailable when ArgsType is nil, or when DWARFArgs finds no DWARF ("" for the generic message)
	Ctx       CtxKind
	// RetvalType types the retval builtin at the points of one probe
	// (pts, at least one), or says why it is not available; nil when no
	// point of the provider has a return value.
	RetvalType func(ty Typer, pts []*Point) (*types.Type, string)
	ArgN       bool // arg0...argN exist
	// ArgNMax is how many argN there are (6, arg0...arg5, when 0; at
	// most MaxArgN); ArgNSigned: they are int64, not uint64.
	ArgNMax    int
	ArgNSigned bool
	// ArgNAt says where argN (i) of a point is, for a provider whose
	// arguments are not the context's argument i (usdt: where the
	// location's note says, a constant, a register or user memory);
	// false: the point has fewer arguments, and argN is 0. nil: argument
	// i of the context (its register or its slot).
	ArgNAt   func(pt *Point, i int) (usdt.Arg, bool)
	Func     bool              // func exists
	UserArgs func(*Point) bool // pointers read from args (or argN) are user memory
	// CtxStruct names the kernel BTF struct the ctx builtin points to for
	// an attach point (nil: ctx is an untyped pointer).
	CtxStruct func(*Point) string
	// ProbeType is the value of the probetype builtin.
	ProbeType string
	// Override: override() works (bpf_override_return on a kprobe).
	Override bool
	// DPath: path() works (bpf_d_path in trampolines).
	DPath bool
	// Kfuncs: the programs are BPF_PROG_TYPE_TRACING, which may call the
	// kernel's generic kfuncs (bpf_task_from_pid for comm(pid)).
	Kfuncs bool
	// UserBinary: the point's Module is a user binary (uaddr, ustack
	// symbols).
	UserBinary bool
	// Binaries lists the user binaries a compiled probe's targets are in,
	// where the runtime looks up the addresses of processes that have
	// exited; nil: none.
	Binaries func(p *object.Probe) []string

	// ProgramPerMatch says whether bpftrace gives each match of an attach
	// point (parts after the provider; pid is -p's, 0 for none) a BPF
	// program of its own, which its max_bpf_progs counts; nil: never.
	ProgramPerMatch func(parts []string, pid int) bool

	// MultiLink says which multi link a wildcard of this provider attaches
	// through as one probe (kprobe_multi, uprobe_multi), which bpftrace
	// names after the wildcard; NoMultiLink: each match is a probe.
	MultiLink MultiLink
	// VmlinuxInName: bpftrace names a probe of a function in the kernel
	// proper with the module vmlinux (fentry:vmlinux:f).
	VmlinuxInName bool

	// SharesProgram: attach points of this provider in one probe of the
	// script can share one instance (one program or one set of checked
	// instructions).
	SharesProgram bool
	// SharesByShape: attach points of this provider in one probe whose
	// body reads args only by field, or retval, share one instance when
	// what it reads has the same shape in each (the slot and type of
	// each field, retval's type): lang/check/shape.go.
	SharesByShape bool
	// PidFilter: -p needs an implicit `pid == PID` test in the program,
	// because the attachment cannot be restricted to a process.
	PidFilter bool
	// KernelFeatures: compiling needs the kernel's BTF and features
	// (kprobe_multi, direct BTF loads).
	KernelFeatures bool

	// Dispatch says which syscall dispatcher (SysEnter, SysExit) can
	// serve the points of one instance with Features.SyscallRawTp, ""
	// for none (syscalls.go); nil: none.
	Dispatch func(pts []*Point) string

	// Compile fills in the attach part of a compiled probe (targets,
	// periods) for the expanded points of one instance and says which
	// program to emit.
	Compile func(pts []*Point, f Features, probe *object.Probe) Program
	// Phase says when the programs run.
	Phase Phase
	// RunsOnce: attaching runs the programs to completion (iterators), so
	// a script whose other probes are only BEGIN and END ends once their
	// events are printed.
	RunsOnce bool
	// Require checks, before anything is loaded, that the kernel has what
	// the provider needs, and returns a one-line refusal naming it.
	Require func(a Attacher, p *object.Probe) error
	// Attach attaches a loaded program to the probe's targets and returns
	// how many attach points it counts for; what it attaches is pushed on
	// the Attacher, which detaches it.
	Attach func(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error)
	// Count says how many attach points a compiled probe counts for in
	// "Attached N probes"; nil: one per target (at least one).
	Count func(p *object.Probe) int
	// List writes the probes matching pattern (the part after the
	// provider) the way bpftrace -l does, with arguments when verbose.
	// nil when there is nothing to list (BEGIN, END).
	List func(w io.Writer, env ListEnv, pattern string, verbose bool) error
	// Listing is the name -l with a program prints for one of its expanded
	// points, and false for a point it leaves out (BEGIN, END); nil: the
	// point's Name.
	Listing func(pt *Point) (string, bool)
	// ListAll: -l without a provider (or with a wildcard one) lists it
	// (bpftrace's kernel probe types).
	ListAll bool
	// ListUser: a user-space kind that -l with a wildcard provider lists
	// only when the search is scoped to a process (-p) or an existing file
	// (uprobe:FILE:...), as bpftrace does.
	ListUser bool
	// AttachReverse: the kernel runs the handlers of one event in reverse
	// attach order for this kind, so its probes are attached last to
	// first, and several probes on one event run in script order.
	AttachReverse bool
}

// Program is what the code generator emits for an instance.
type Program struct {
	Type       ebpf.ProgramType
	AttachType ebpf.AttachType
	// Ctx is the context the program gets; it differs from the provider's
	// when another mechanism serves it (an fentry wildcard served by
	// kprobe_multi gets pt_regs).
	Ctx CtxKind
}

// Features are the kernel-dependent code generation choices: the runtime
// probes the kernel for them (runtime.Features), the code generator and
// the providers' Compile hooks are given them (codegen.Options), and a
// caller may fix them (gotrace.Options.Features). They are declared here
// once.
type Features struct {
	// KprobeMulti: the kernel has kprobe_multi links (Linux 5.18 with
	// CONFIG_FPROBE); kprobe wildcards then compile to one program
	// attached through one link instead of one kprobe per function.
	KprobeMulti bool
	// FentryMultiThreshold: an fentry wildcard of at least this many
	// functions is served by one kprobe_multi program (arguments read from
	// pt_regs) instead of one trampoline per function; 0 disables it.
	// Needs KprobeMulti.
	FentryMultiThreshold int
	// KprobeSession: the kernel has kprobe session links (attach type
	// BPF_TRACE_KPROBE_SESSION, Linux 6.10): a kprobe and a kretprobe on
	// the same functions become one program on one kprobe_multi link,
	// which runs the kretprobe's block where bpf_session_is_return() says
	// the function returns. Needs KprobeMulti.
	KprobeSession bool
	// TracingMulti: the kernel has tracing_multi links (fentry and fexit
	// programs attached to many functions through one link, Linux 7.3):
	// an fentry or fexit probe of several functions whose body reads the
	// same shape in each (lang/check/shape.go) compiles to one program of
	// attach type AttachTraceFentryMulti or AttachTraceFexitMulti.
	TracingMulti bool
	// Fsession: the kernel has fentry/fexit sessions over tracing_multi
	// links (attach type AttachTraceFsessionMulti, Linux 7.3): an fentry
	// and an fexit on the same functions become one program on one link,
	// which runs the fexit's block where bpf_session_is_return(ctx) says
	// the function returns. Needs TracingMulti.
	Fsession bool
	// TracingMultiMax: an fentry probe of more functions than this goes
	// to kprobe_multi instead of tracing_multi where the kernel has both
	// (0: no limit). A tracing_multi link builds a trampoline per
	// function: attaching every traceable function (42,000) took 96 s
	// on 7.3 under emulation, against 6.7 s for kprobe_multi; 1,000 took
	// 1.0-1.5 s against 0.5-0.8 s.
	TracingMultiMax int
	// DirectBTFLoads: in trampoline (fentry/fexit) and BTF raw tracepoint
	// programs, members reached through BTF-typed pointers (args and the
	// pointers loaded from them) are read with plain loads, which the
	// verifier checks against BTF, instead of bpf_probe_read_kernel
	// (Linux 5.5).
	DirectBTFLoads bool
	// LongJumps: the kernel has gotol, the jump with a 32-bit distance
	// (BPF_JMP32 | BPF_JA, Linux 6.4); jumps over more than 32,767
	// instructions use it. Without it they are an error
	// (codegen.ErrJumpRange).
	LongJumps bool
	// SyscallRawTp: syscall tracepoints are served by dispatchers on the
	// raw tracepoints sys_enter and sys_exit (syscalls.go) instead of one
	// perf event each. Needs raw tracepoints (Linux 4.17) on x86-64.
	SyscallRawTp bool
}

// wildAt reports whether any of the parts at the indexes holds a wildcard.
func wildAt(parts []string, idx ...int) bool {
	for _, i := range idx {
		if i < len(parts) && strings.ContainsAny(parts[i], "*?[") {
			return true
		}
	}
	return false
}

// wildTarget is ProgramPerMatch for providers whose matches of a wildcard
// in either of their two parts are programs of their own.
func wildTarget(parts []string, _ int) bool { return wildAt(parts, 0, 1) }

// MaxArgN is the most argN builtins a provider can have (usdt: 12, as
// libbpf's USDT support).
const MaxArgN = 12

// ArgNCount returns how many argN builtins the provider has.
func (p *Provider) ArgNCount() int {
	if p.ArgNMax == 0 {
		return 6
	}
	return p.ArgNMax
}

// AttachPoints returns how many attach points a compiled probe of the
// provider counts for.
func (p *Provider) AttachPoints(probe *object.Probe) int {
	if p != nil && p.Count != nil {
		return p.Count(probe)
	}
	return max(len(probe.Targets), 1)
}

// BinariesOf returns the user binaries the compiled probe p of the
// provider attaches in.
func (p *Provider) BinariesOf(probe *object.Probe) []string {
	if p == nil || p.Binaries == nil {
		return nil
	}
	return p.Binaries(probe)
}

// Dispatcher returns the syscall dispatcher (SysEnter, SysExit) that can
// serve the points pts of the provider, "" for none.
func (p *Provider) Dispatcher(pts []*Point) string {
	if p == nil || p.Dispatch == nil {
		return ""
	}
	return p.Dispatch(pts)
}

// ListingName returns the name -l with a program prints for the expanded
// point pt of the provider, and false when it leaves the point out.
func (p *Provider) ListingName(pt *Point) (string, bool) {
	if p != nil && p.Listing != nil {
		return p.Listing(pt)
	}
	return pt.Name, true
}

// withoutPeriod is the Listing of timers and perf events: the name
// without the period or rate ("interval:ms:"), as bpftrace lists them.
func withoutPeriod(pt *Point) (string, bool) {
	if i := strings.LastIndexByte(pt.Name, ':'); i >= 0 {
		return pt.Name[:i+1], true
	}
	return pt.Name, true
}

// Supported reports whether gotrace implements the provider.
func (p *Provider) Supported() bool { return p.Needs == "" }

// Refusal is the error for a provider gotrace does not support.
func (p *Provider) Refusal() error {
	return fmt.Errorf("%s probes are not supported yet (they need %s)", p.Name, p.Needs)
}

// table is every provider; the kernel ones come first in the order a bare
// -l lists them.
var table = []*Provider{
	beginProvider, endProvider,
	kprobeProvider, kretprobeProvider,
	fentryProvider, fexitProvider,
	rawTracepointProvider,
	tracepointProvider,
	intervalProvider, profileProvider,
	softwareProvider,
	uprobeProvider, uretprobeProvider,
	usdtProvider, hardwareProvider, watchpointProvider, asyncWatchpointProvider, iterProvider,
	selfProvider, benchProvider, testProvider,
}

// All returns every provider, supported or not, in listing order.
func All() []*Provider { return table }

// Lookup returns the provider with the name or alias, or nil.
func Lookup(name string) *Provider {
	for _, p := range table {
		if p.Name == name {
			return p
		}
		for _, a := range p.Aliases {
			if a == name {
				return p
			}
		}
	}
	return nil
}

// Names returns the names of the providers p selects, joined for a
// message: "kprobe, uprobe and rawtracepoint".
func Names(sel func(*Provider) bool) string {
	var names []string
	for _, p := range table {
		if p.Supported() && sel(p) {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// SplitAttach splits an attach point on ':' outside double quotes and
// removes the quotes; inside them, \" and \\ stand for " and \.
func SplitAttach(raw string) []string {
	var parts []string
	var cur strings.Builder
	inQuote, escaped := false, false
	for i, r := range raw {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case inQuote && r == '\\' && i+1 < len(raw) && (raw[i+1] == '"' || raw[i+1] == '\\'):
			escaped = true // the next character is literal
		case r == '"':
			inQuote = !inQuote
		case r == ':' && !inQuote:
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(parts, cur.String())
}

func never(*Point) bool  { return false }
func always(*Point) bool { return true }
