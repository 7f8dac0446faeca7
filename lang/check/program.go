package check

import (
	"errors"
	"slices"
	"sort"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/provider"
)

// DefaultMaxStrlen is the default string buffer size (max_strlen),
// bpftrace 0.26's. A probe that holds such a string passes the 512-byte
// BPF stack: its strings, tuples and keys move to a scratch map value,
// and its integers stay on the stack, where the verifier bounds its loops
// (codegen); a probe without strings is not affected.
const DefaultMaxStrlen = 1024

// MaxStrlenLimit is the largest max_strlen: strings past the 512-byte BPF
// stack live in a probe's scratch map value, which holds at most 64 KiB
// of a probe's values (codegen); what does not fit there is a positioned
// error of the code generator.
const MaxStrlenLimit = 32 << 10

// DefaultMaxMapKeys is bpftrace's default map size (max_map_keys).
const DefaultMaxMapKeys = 4096

// Options are the inputs of Check that do not come from the script.
type Options struct {
	// Params are the positional parameters $1...$N.
	Params []string
	// MaxStrlen is the size of string buffers; 0 means DefaultMaxStrlen.
	MaxStrlen int
	// MaxMapKeys is the size of maps; 0 means DefaultMaxMapKeys.
	MaxMapKeys int
	// NCPUs is the value of the ncpus builtin (possible CPUs).
	NCPUs int
	// ConfigEnv holds config settings from the environment, by config name
	// (BPFTRACE_MAX_STRLEN=100 gives "max_strlen": "100"); the script's
	// config block overrides them.
	ConfigEnv map[string]string
	// NamedParams are the named parameters (--name=value) read by getopt().
	NamedParams map[string]string
	// Unsafe allows functions that change the traced system (system,
	// signal), as bpftrace's --unsafe.
	Unsafe bool
	// TraceableFunctions is bpftrace's --traceable-functions FILE
	// (provider.Target).
	TraceableFunctions string
	// Cpid is the pid of the child command (bpftrace -c), the value of the
	// cpid builtin; 0 means there is none and cpid is an error.
	Cpid int
	// Pid, when non-zero, restricts the script to one process (bpftrace
	// -p): probes whose provider cannot filter by pid when attached
	// (provider.PidFilter: tracepoint, rawtracepoint, kprobe, kretprobe,
	// fentry, fexit) get an implicit `pid == Pid` test before their
	// predicate (see addPidFilter); profile, software and uprobes are
	// attached for the process only (runtime.Options.Pid).
	Pid int
	// DwarfPids are bpftrace's --dwarf-pid: processes whose user stacks
	// dw_ustack unwinds, besides Pid and Cpid.
	DwarfPids []int
	// IncludeDirs are the directories searched for user headers (bpftrace
	// -I), after the script's own directory for #include "name".
	IncludeDirs []string
	// Includes are headers included before the script's preamble (bpftrace
	// --include), searched as #include "name" from the current directory.
	Includes []string
	// DummyTSMap is bpftrace's BPFTRACE_DUMMY_TS_MAP test hook: the name of
	// a keyless integer map (e.g. "@ts") that tseries() reads as its clock
	// instead of the TAI time, so that tests control the intervals.
	DummyTSMap string
	// Maps are maps that exist before the script, by name ("@x"): the
	// live maps of a session (runtime.Session) that later programs
	// share. A use must agree with their types; a use that would change
	// their layout (a longer string, another integer width) is an error
	// at the use. The checked Program's Maps hold those the script uses.
	Maps map[string]*MapType
	// Host describes the tracer's own process (its PID namespace, its
	// clocks); the zero value is the initial PID namespace and no TAI
	// offset.
	Host builtin.Host
}

// Program is a checked script: every probe expanded, every expression typed,
// every map's key and value types fixed.
type Program struct {
	File      *ast.File
	Probes    []*Probe
	Maps      map[string]*MapType
	MaxStrlen int
	// NCPUs is Options.NCPUs: the possible CPUs, one scratch value each
	// for a probe whose values need more than 32 KiB (codegen).
	NCPUs int
	// DummyTSMap is Options.DummyTSMap, checked: tseries() reads its clock
	// from this map.
	DummyTSMap string
	// Host is Options.Host.
	Host       builtin.Host
	MaxMapKeys int
	Config     Config
	// VMA holds the offsets uaddr() of a position-independent file
	// reads through (set when a probe uses one).
	VMA VMALayout
	// StackLens is set when the script takes len() of a stack: every
	// kstack and ustack then records its number of frames, in the upper
	// 32 bits of the id word (kstack) or of the pid word (ustack).
	StackLens bool
	// DwarfPids are the processes whose stacks dw_ustack unwinds: Pid,
	// Cpid and Options.DwarfPids; a dw_ustack of another process is
	// empty, with a run-time warning.
	DwarfPids []int
	// Task holds task_struct member offsets for ppid and pcomm, set when a
	// probe uses them.
	Task builtin.TaskLayout
	// Returns holds the offsets to the uretprobe return instances, set
	// when a probe uses dw_ustack.
	Returns builtin.ReturnLayout
	// Kfuncs holds the kernel BTF IDs of the kfuncs the program calls, by
	// name (comm(pid)).
	Kfuncs map[string]btf.TypeID
	// Getopts are the named parameters the program reads with getopt(),
	// by name, with their descriptions ("" when none is given).
	Getopts map[string]string
	// Warnings are problems that do not stop the script (missing probes
	// with missing_probes = warn).
	Warnings syntax.ErrorList
	// Expansions holds, for a call copied out of a macro body, the spans
	// of the macro uses it was expanded from, innermost first; errorf()
	// and warnf() name them ("expanded from") as bpftrace does.
	Expansions map[*ast.Call][]srcpos.Span
}

// Config holds the config block settings that reach the runtime.
type Config struct {
	NoExitMaps      bool    // print_maps_on_exit = false
	MissingProbes   string  // "error" (default), "warn" or "ignore"
	StackMode       string  // stack_mode: "bpftrace" (default), "perf" or "raw"
	NoDebugInfo     bool    // show_debug_info = false: no file:line in ustack frames
	StrTruncTrailer *string // str_trunc_trailer, nil for the default
	MaxCatBytes     int     // max_cat_bytes, 0 for the default
	MaxProbes       int     // max_probes, 0 for the default
	MaxBPFProgs     int     // max_bpf_progs, 0 for the default (DefaultMaxBPFProgs)
	PerfRBPages     uint64  // perf_rb_pages, 0 for the default (see runtime.RingbufSize)
	LogSize         uint64  // log_size, 0 for the default (see runtime.Options.LogSize)
	NoCppDemangle   bool    // cpp_demangle = false: C++ symbols keep their mangled names
	UserSymbolCache string  // cache_user_symbols: "PER_PID", "PER_PROGRAM", "NONE"; "" for the default
	Other           []string
}

// MapNames returns the names of the program's maps in sorted order.
func (p *Program) MapNames() []string {
	names := make([]string, 0, len(p.Maps))
	for n := range p.Maps {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// MapType is the inferred type of a map.
type MapType struct {
	Name  string
	Keys  []*types.Type // nil for a map used without keys
	Value *types.Type
	Pos   srcpos.Pos // first use
	// Decl is the kind a map declaration gave (hash, lruhash, percpuhash,
	// percpulruhash) and MaxEntries its size; "" and 0 when undeclared.
	Decl       string
	MaxEntries int
	keysSet    bool
	// ownKeys are the key types bpftrace gives the map, before storage
	// widens them (int8 for @m[1]), for its errors.
	ownKeys []*types.Type
	// ownValue is the value type bpftrace gives the map before storage
	// widens it (int32 for @m = (int32)1, string[4] for @m = "abc"): what
	// sizeof and strcap report.
	ownValue *types.Type
}

// Probe is one instance of a probe: an AST probe together with the expanded
// attach points it serves and the types of its expressions. A probe whose body
// depends on the attach point (tracepoint args, the probe builtin) is split into
// one instance per attach point.
type Probe struct {
	AST    *ast.Probe
	Points []*provider.Point
	Info   *Info
	Index  int // position of the AST probe in the file
	// Shaped: the points share the instance by the shape of what the
	// body reads (provider.Provider.SharesByShape): args and retval are
	// typed by the first point's prototype, the same in every point.
	Shaped bool
	// Grouped: some instance of the AST probe has several functions
	// grouped by shape; in each, func is read at run time.
	Grouped bool
}

// Provider returns the provider shared by every attach point of the instance.
func (p *Probe) Provider() string { return p.Points[0].Provider }

// Def returns the definition of the instance's provider.
func (p *Probe) Def() *provider.Provider { return provider.Lookup(p.Provider()) }

// Info holds what the checker learned about one probe instance.
type Info struct {
	Types  map[ast.Expr]*types.Type
	Consts map[ast.Expr]builtin.Const // expressions with a compile-time value (positional params, literals)
	// Scratch variables are block scoped: every declaration gets an ID, and
	// every use of a variable is resolved to the ID of its declaration.
	VarIDs   map[*ast.Var]int
	VarTypes []*types.Type // by ID
	// VarOwnTypes holds, by ID, the type bpftrace gives the variable: its
	// assigned values' types unified before they are widened for storage
	// (int8 for $x = 1, string[3] for $s = "hi"); sizeof reads it.
	VarOwnTypes []*types.Type
	Calls       map[*ast.Call]*builtin.Func // resolved builtin functions
	Idents      map[*ast.Ident]*builtin.Var
	// Members holds the resolved member of every field access: its byte
	// offset from the struct's (or the args record's) start, bitfield
	// position, and type.
	Members map[*ast.Field]types.Field
	// ArgsType is the type of the args builtin (a Record of tracepoint fields), or nil.
	ArgsType *types.Type
	// ArgsErr says why args is unavailable when ArgsType is nil.
	ArgsErr string
	// ArgsUnplaced says, by parameter name, why a uprobe parameter found in
	// DWARF is not a field of args (it is not passed in one register).
	ArgsUnplaced map[string]string
	// UserArgs: pointers read from args live in user memory (syscall tracepoints).
	UserArgs bool
	// Records holds, by name, the builtins whose value is a record of
	// constants (config): the record literal the checker built and
	// checked for them, which codegen builds.
	Records map[string]*ast.Tuple
	// Uaddrs are the uaddr() calls on position-independent files, whose
	// address depends on where the traced process loaded the file (the
	// others are constants).
	Uaddrs map[*ast.Call]Uaddr
	// CastWidths holds, for an integer cast to a larger array ((int8[4])1,
	// (uint16[2])$x with $x = -1), the bytes of the integer's own type the
	// array starts with; the rest are zeros, as in bpftrace.
	CastWidths map[*ast.Cast]int
	// FlexVals holds the operands of binary operations that take the
	// other operand's sign, as bpftrace 0.27's sign-flexible types do:
	// non-negative integer literals, and reads of a variable or map which
	// only ever held such literals ($v = 49; (uint64)1 * $v is a uint64).
	FlexVals map[ast.Expr]bool
}

// Uaddr is a symbol of a position-independent file: its address in the
// file, and the file's inode number, which finds the file's mapping in the
// traced process (see VMALayout).
type Uaddr struct {
	Addr, Ino uint64
}

// VMALayout are the member offsets, from BTF, through which uaddr() finds
// where a process loaded a file: vm_area_struct's vm_start, vm_pgoff and
// vm_file, file's f_inode and inode's i_ino.
type VMALayout struct {
	VMStart, VMPgoff, VMFile, FInode, IIno int
}

// VarOf returns the ID and type of the declaration a variable use refers to.
func (in *Info) VarOf(v *ast.Var) (int, *types.Type) {
	id, ok := in.VarIDs[v]
	if !ok {
		return -1, nil
	}
	return id, in.VarTypes[id]
}

// TypeOf returns the checked type of e.
func (in *Info) TypeOf(e ast.Expr) *types.Type { return in.Types[e] }

// Comptime reports whether cond, the condition of an if, is written
// comptime(x) (bpftrace 0.26's `if comptime x`) and so was decided at
// compile time, and if so whether the then branch is the one taken: the
// other branch is neither checked nor compiled.
func (in *Info) Comptime(cond ast.Expr) (then, ok bool) {
	call, isCall := cond.(*ast.Call)
	if !isCall || in.Calls[call] == nil || !in.Calls[call].Decides {
		return false, false
	}
	cv, ok := in.Consts[call]
	if !ok {
		return false, false
	}
	return cv.Int != 0 || cv.IsStr && cv.Str != "", true
}

// SymbolResolver is an optional extension of Env: environments that can
// resolve kernel symbols to addresses (kaddr()) implement it.
type SymbolResolver interface {
	// KernelSymbol returns the address of a kernel symbol, or an error
	// wrapping ErrNoSymbol when the kernel has no such symbol.
	KernelSymbol(name string) (uint64, error)
}

// ErrNoSymbol is wrapped by SymbolResolver errors for a symbol that does
// not exist.
var ErrNoSymbol = errors.New("no such kernel symbol")

// dwarfPids lists the processes whose stacks dw_ustack unwinds: -p, -c
// and --dwarf-pid, each once.
func dwarfPids(opts Options) []int {
	var pids []int
	for _, p := range append([]int{opts.Pid, opts.Cpid}, opts.DwarfPids...) {
		if p > 0 && !slices.Contains(pids, p) {
			pids = append(pids, p)
		}
	}
	return pids
}
