package builtin

import (
	"sort"
	"strings"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
)

// Const is a compile-time value: an integer or a string.
type Const struct {
	IsStr bool
	Str   string
	Int   uint64
}

// TaskLayout are the task_struct member offsets the task builtins (ppid,
// pcomm, leader_comm) read through, from BTF.
type TaskLayout struct {
	RealParent, Tgid, GroupLeader, Comm int
}

// ReturnLayout are the kernel offsets dw_ustack follows to the
// uretprobe return instances of the current task (task_struct.utask,
// uprobe_task.return_instances, return_instance.stack, .orig_ret_vaddr
// and .next): a uretprobe replaces the return address on the stack with
// its trampoline's, and the instance keeps the real one. OK is false
// where the kernel's BTF lacks them; returns are then not recovered.
type ReturnLayout struct {
	Utask, ReturnInstances, Stack, OrigRetVaddr, Next int
	OK                                                bool
}

// Host is what builtins compiled for the machine need to know about the
// tracer's own process.
type Host struct {
	// PidNS is the tracer's PID namespace, zero in the initial one: pid and
	// tid (and pid(curr_ns), tid(curr_ns)) are then read in it, as
	// bpftrace does.
	PidNS PidNS
	// TAIOffset is CLOCK_TAI minus CLOCK_BOOTTIME in nanoseconds, added to
	// the boot clock by nsecs(sw_tai).
	TAIOffset int64
}

// PidNS names a PID namespace by the device and inode number of its
// /proc/PID/ns/pid file; the zero value is the initial namespace.
type PidNS struct {
	Dev, Ino uint64
}

// EvalArg is the value of an argument of Func.Eval: an integer as a 64-bit
// register holds it (Bits), or a string (Str, IsStr), with the size of its
// type (a string's buffer).
type EvalArg struct {
	Bits  uint64
	Str   string
	IsStr bool
	Size  int
}

// Func is a builtin function.
type Func struct {
	Name string
	// Agg marks an aggregation: only valid as `@m = f(...)`; its value is
	// emitted by the map assignment, not by Emit.
	Agg bool
	// Unsafe functions change the traced system and need --unsafe.
	Unsafe bool
	// MapNeedsHash: the map named by the first argument must be a hash
	// map (zero, delete, len, has_key walk or remove its keys).
	MapNeedsHash bool
	// Ends: a statement calling the function leaves the probe (exit).
	Ends bool
	// Decides: as the condition of an if, the call's compile-time value
	// decides which branch is checked and compiled (comptime).
	Decides bool
	// FormatArgs: the first argument is a format and the others are
	// evaluated at run time into the event (printf), never folded into
	// constants of one attach point.
	FormatArgs bool

	// Check validates a call (arity and arguments) and returns its result
	// type, or nil after reporting an error.
	Check func(c Checker, e *ast.Call) *types.Type
	// Emit evaluates the call, leaving an integer result in R0. Nil for
	// buffer-valued functions, whose Buffer is used.
	Emit func(g Emitter, e *ast.Call)
	// Buffer evaluates a buffer-valued call into a stack buffer and
	// returns its offset.
	Buffer func(g Emitter, e *ast.Call) int16
	// Into, when set, evaluates a buffer-valued call straight into the
	// size-byte slot at dst (a map key, an event record), zero-filled past
	// the value, and reports true; false leaves it to Buffer and a copy.
	Into func(g Emitter, e *ast.Call, dst int16, size int) bool

	// Result is the kind of the value (types.Void when there is none): it
	// routes how output decodes and prints it.
	Result types.Kind
	// Eval computes the call from the values of its arguments, as its
	// emitted code does, for the Go evaluator of checked expressions
	// (lang/eval) that the differential tests compare with the kernel:
	// size is the size of the call's type; ok is false for arguments it
	// does not compute on. nil when the evaluator does not run the
	// function.
	Eval func(args []EvalArg, size int) (v uint64, ok bool)
	// Example is a script that uses the function; the table test checks
	// and compiles it, and runs it when its probe exists on the host.
	Example string
	// Doc documents the function for editors, in its definition; the
	// functions without one are documented in docs.go.
	Doc Doc
}

// UnsafeError is the error for a call of an Unsafe function without
// --unsafe, worded as bpftrace words it: system() is a builtin of its
// compiler, the others are macros of its standard library.
func (f *Func) UnsafeError() string {
	if f.Name == "system" {
		return "system() is an unsafe function being used in safe mode"
	}
	return f.Name + "() is unsafe. To use you need the --unsafe flag"
}

// PointDep says how a builtin variable differs between the expanded attach
// points of one probe.
type PointDep uint8

// Dependencies on the attach point.
const (
	SamePoint PointDep = iota // the same in every point
	PointName                 // the value is the point's name (probe); one program serves several points only where it is read at run time
	PointType                 // the type is the point's own (args): points cannot share a program
)

// Var is a builtin variable.
type Var struct {
	Name string
	// PerPoint says whether the variable differs between the points of a
	// probe, which then get a program each.
	PerPoint PointDep
	// Fields: the variable is a record whose fields are read in place
	// (args), from the context or kernel memory at the offsets the
	// checker resolved, unless the whole record is copied into a value.
	Fields bool
	// ByProto: where the value is, or its type, depends on the
	// function's prototype (retval): trampolines share a program only
	// between functions where it has one type (lang/check/shape.go).
	ByProto bool
	// IsCtx: the value is the program's context itself (ctx), whose shape
	// is the mechanism's that runs the program.
	IsCtx bool
	// Type returns the variable's type in the probe being checked, or a
	// message saying why the probe does not provide it; a message with a
	// type is a warning.
	Type func(c Checker) (*types.Type, string)
	// Check, when set, types a use of the variable in place of Type, with
	// its position for the errors and warnings it reports (nil: after an
	// error).
	Check func(c Checker, e *ast.Ident) *types.Type
	// Const returns the variable's value when it is known at compile time
	// (nil: never).
	Const func(c Checker, t *types.Type) (Const, bool)
	// Emit loads an integer value into R0 (nil for buffers and for
	// variables that are only constants or only field bases).
	Emit func(g Emitter, e *ast.Ident)
	// Buffer evaluates a buffer-valued variable into a stack buffer and
	// returns its offset.
	Buffer func(g Emitter, e *ast.Ident) int16

	// Result is the kind of the value, as Func.Result.
	Result types.Kind
	// Example is a script that uses the variable, as Func.Example.
	Example string
}

// Checker is what the checker (package lang/check) offers a definition's Check
// and Type hooks. Methods named Check* are the checks of builtins still
// written in lang; new definitions use the primitives.
type Checker interface {
	// Errorf reports an error at a position or under a node's span.
	Errorf(at srcpos.Spanned, format string, args ...any)
	// Warnf reports a warning (the script still runs) about a span.
	Warnf(at srcpos.Spanned, format string, args ...any)
	// Expr checks and types an expression (nil after an error).
	Expr(e ast.Expr) *types.Type
	// OwnType is the type bpftrace gives the checked expression e of type
	// t before storage widens it (int8 for 1, string[4] for a variable
	// assigned "abc"): what sizeof and strcap report.
	OwnType(e ast.Expr, t *types.Type) *types.Type
	// TypeOf returns the type of a checked expression.
	TypeOf(e ast.Expr) *types.Type
	// ConstOf returns the compile-time value of a checked expression.
	ConstOf(e ast.Expr) (Const, bool)
	// SetConst records the compile-time value of an expression.
	SetConst(e ast.Expr, v Const)
	// WantArgs checks that a call has lo to hi (-1: any number) arguments.
	WantArgs(e *ast.Call, lo, hi int) bool
	// IntArg checks that argument i is an integer.
	IntArg(e *ast.Call, i int) *types.Type
	// ConstInt checks that argument i is a constant integer.
	ConstInt(e *ast.Call, i int) (int64, bool)

	// Provider is the definition of the probe being checked.
	Provider() *provider.Provider
	// Points are the probe's expanded attach points.
	Points() []*provider.Point
	// FuncsGrouped reports whether the probe's functions are grouped
	// into instances (several functions in one program): func is then
	// read at run time in each instance, so that all agree on its type.
	FuncsGrouped() bool
	// Cpid is the pid of the child command (-c), 0 without one.
	Cpid() int
	// DwarfPids are the processes whose stacks dw_ustack unwinds: -p, -c
	// and --dwarf-pid.
	DwarfPids() []int
	// UseReturnLayout looks up the ReturnLayout for the code generator.
	UseReturnLayout()
	// NCPUs is the number of possible CPUs.
	NCPUs() int
	// MaxStrlen is the size of string buffers.
	MaxStrlen() int
	// Unstable reports whether the script may use an unstable feature,
	// which the config option enables ("enable"), refuses ("error") or
	// allows with a warning ("warn"), def when the script does not set
	// it; a refusal is reported at the span.
	Unstable(at srcpos.Spanned, feature, option, def string) bool
	// StackMode is the config's stack_mode ("" when unset).
	StackMode() string
	// BTF is the kernel's BTF.
	BTF() (*btf.Spec, error)
	// Kfunc resolves the kfunc name in kernel BTF for Emitter.Kfunc.
	Kfunc(name string) error
	// Imported reports whether the script imports the standard library
	// file path (import "stdlib/test" or "stdlib/test/test.bpf.c").
	Imported(path string) bool
	// Config types the config builtin: the record of the script's
	// configuration, which Emitter.Record("config") builds.
	Config() *types.Type
	// TypeOperand types an operand that may be a type (typeinfo's): the
	// type an ast.TypeArg names, else the expression's own type (int8
	// for 1, as OwnType).
	TypeOperand(x ast.Expr) *types.Type
	// ConstRecord checks the record of constants named names with the
	// values at, and keeps it under key for Emitter.Record to build.
	ConstRecord(key string, at srcpos.Spanned, names []string, values []ast.Expr) *types.Type

	// ArgsType types the args builtin of the probe.
	ArgsType() (*types.Type, string)
	// CurtaskType types curtask (a task_struct pointer with BTF).
	CurtaskType() *types.Type
	// CtxType types ctx when the provider says what it points to
	// (provider.CtxStruct), else nil.
	CtxType() *types.Type
	// RetvalType types retval in the probe.
	RetvalType() (*types.Type, string)
	// TaskLayoutErr says why task_struct offsets are unavailable.
	TaskLayoutErr() error

	CheckPrintf(e *ast.Call) *types.Type
	CheckStr(e *ast.Call) *types.Type
	CheckMapFunc(e *ast.Call) *types.Type
	CheckPrint(e *ast.Call) *types.Type
	CheckDelete(e *ast.Call) *types.Type
	CheckHasKey(e *ast.Call) *types.Type
	CheckGetopt(e *ast.Call) *types.Type
	CheckKaddr(e *ast.Call) *types.Type
	CheckLen(e *ast.Call) *types.Type
	CheckFind(e *ast.Call) *types.Type
	CheckCgroupid(e *ast.Call) *types.Type
	CheckPath(e *ast.Call) *types.Type
	CheckUaddr(e *ast.Call) *types.Type
}

// Emitter is what the code generator (package codegen) offers a
// definition's Emit and Buffer hooks. Methods after the primitives emit
// builtins whose code is still written in codegen.
type Emitter interface {
	// Emit appends instructions (the first carries the pending labels).
	Emit(ins ...asm.Instruction)
	// Base is the register addressing the frame slot at off: R10 on the
	// stack, and in a probe whose frame is in a scratch map value R10 for
	// the scalar slots kept on the real stack and R9 for the others.
	Base(off int16) asm.Register
	// Alloc reserves size bytes (rounded to 8) in the frame, for a value
	// of any kind; AllocScalar reserves 8 bytes for an integer (kept on
	// the real stack when the frame is in a scratch value, where the
	// verifier tracks what it holds).
	Alloc(size int, pos srcpos.Pos) int16
	AllocScalar(pos srcpos.Pos) int16
	// Zero clears size bytes at off.
	Zero(off int16, size int)
	// NewLabel returns a fresh label; Mark places one on the next
	// instruction.
	NewLabel(prefix string) string
	Mark(label string)
	// Tag labels the next instruction with n's position and text, so that
	// a verifier error about the instructions from there on names n.
	Tag(n ast.Node)
	// Fail records a code generation error.
	Fail(pos srcpos.Pos, err error)
	// Scalar evaluates an integer, bool or pointer expression into R0;
	// Buffer evaluates a buffer expression into the stack.
	Scalar(e ast.Expr)
	Buffer(e ast.Expr) int16
	// Addr leaves in R0 the kernel address of a struct value in kernel
	// memory (a member reached through a pointer, *p).
	Addr(e ast.Expr)
	// LoadImm puts a 64-bit constant in reg with the shortest encoding.
	LoadImm(reg asm.Register, v int64)
	// TypeOf and ConstOf answer what the checker found.
	TypeOf(e ast.Expr) *types.Type
	ConstOf(e ast.Expr) (Const, bool)

	// Task is the task_struct layout the checker looked up.
	Task() TaskLayout
	// PidNS is the tracer's PID namespace (zero: the initial one), in
	// which pid and tid are read.
	PidNS() PidNS
	// TAIOffset is CLOCK_TAI minus CLOCK_BOOTTIME at compile time, in
	// nanoseconds (nsecs(sw_tai)).
	TAIOffset() int64
	// ReadKernel copies size bytes from the kernel address in R0 to the
	// stack at dst.
	ReadKernel(dst int16, size int)
	// Kfunc calls the kernel function name, a kfunc the checker resolved
	// (Checker.Kfunc), with its arguments in R1-R5 and its result in R0;
	// it fails unless the program is BPF_PROG_TYPE_TRACING.
	Kfunc(name string, pos srcpos.Pos)
	// Record builds on the stack the record of constants the checker made
	// for the builtin name (Checker.Config) and returns its offset.
	Record(name string, pos srcpos.Pos) int16
	// Pcap registers a pcap file for skboutput and returns the id its
	// packets carry (object.Packet.ID) and the name of the perf event
	// array they are sent through.
	Pcap(file string, offset int) (id int, perfMap string)
	// Exit sends the exit event with the value of code, or the fixed code
	// when code is nil, and ends the probe.
	Exit(code ast.Expr, fixed int64, pos srcpos.Pos)
	// ValueEvent sends a header-only event of kind whose ID is the
	// value of the integer x.
	ValueEvent(kind object.EventKind, x ast.Expr, pos srcpos.Pos)
	// Message sends a printf-style event of kind with the format and the
	// checked arguments; errorf and warnf events point at the span.
	Message(kind object.EventKind, format string, args []ast.Expr, at srcpos.Spanned)

	Print(e *ast.Call)
	MapEvent(kind object.EventKind, e *ast.Call)
	Time(e *ast.Call)
	Delete(e *ast.Call)
	HasKey(e *ast.Call)
	Str(e *ast.Call) int16
	StrInto(e *ast.Call, dst int16, size int) bool
	LoadReg(name string, pos srcpos.Pos)
	Strlen(e *ast.Call)
	Strncmp(e *ast.Call)
	Strstr(e *ast.Call, contains bool)
	Kstack(e ast.Expr)
	Ustack(e ast.Expr) int16
	// DwUstack copies the registers and the user stack dw_ustack unwinds
	// into a sample and builds the value naming it ({id, pid}).
	DwUstack(e ast.Expr) int16
	// Uaddr loads the address uaddr() resolved.
	Uaddr(e *ast.Call)
	Join(e *ast.Call)
	Macaddr(e *ast.Call)
	MapLen(e *ast.Call)
	Find(e *ast.Call)
	Ntop(e *ast.Call) int16
	Buf(e *ast.Call) int16
	StrConcat(e *ast.Call) int16
	Elapsed(e *ast.Ident)
	Retval(e *ast.Ident)
	ArgN(i int, pos srcpos.Pos)
	Ppid(e *ast.Ident)
	Comm(off int16)
}

// Ctx is the register holding the probe's context in a program.
const Ctx = asm.R6

var (
	funcs = map[string]*Func{}
	vars  = map[string]*Var{}
)

// register adds definitions to the table; a name defined twice is a bug.
func register[T any](m map[string]*T, name string, d *T) {
	if _, dup := m[name]; dup {
		panic("builtin: " + name + " defined twice")
	}
	m[name] = d
}

func defFuncs(list ...*Func) {
	for _, f := range list {
		register(funcs, f.Name, f)
	}
}

func defVars(list ...*Var) {
	for _, v := range list {
		register(vars, v.Name, v)
	}
}

// LookupFunc returns the builtin function name, or nil.
func LookupFunc(name string) *Func { return funcs[name] }

// LookupVar returns the builtin variable name, or nil.
func LookupVar(name string) *Var { return vars[name] }

// VarOf returns the builtin variable that the identifier x names, or nil.
func VarOf(x ast.Node) *Var {
	if id, ok := x.(*ast.Ident); ok {
		return vars[id.Name]
	}
	return nil
}

// IsFields reports whether x names a builtin variable whose fields are
// read in place (Var.Fields: args).
func IsFields(x ast.Expr) bool {
	v := VarOf(x)
	return v != nil && v.Fields
}

// Funcs returns every builtin function, sorted by name.
func Funcs() []*Func {
	out := make([]*Func, 0, len(funcs))
	for _, f := range funcs {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Vars returns every builtin variable, sorted by name.
func Vars() []*Var {
	out := make([]*Var, 0, len(vars))
	for _, v := range vars {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// stImm stores a 64-bit immediate at dst+off.
func stImm(dst asm.Register, off int16, v int64) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(asm.DWord), Dst: dst, Offset: off, Constant: v}
}

// Prefix is bpftrace's internal spelling of builtins: its standard library
// defines cpu() as a macro over __builtin_cpu, and scripts may use either.
const Prefix = "__builtin_"

// Canonical returns the name of the builtin that name spells: name without
// Prefix when the rest names a builtin variable or function, else name.
func Canonical(name string) string {
	rest, ok := strings.CutPrefix(name, Prefix)
	if ok && (vars[rest] != nil || funcs[rest] != nil) {
		return rest
	}
	return name
}
