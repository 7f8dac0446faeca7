package gotrace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/internal/hostfs"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/runtime"
)

// Options configure Compile.
type Options struct {
	// Params are the positional parameters $1...$N.
	Params []string
	// MaxStrlen and MaxMapKeys override bpftrace's defaults (0 keeps them);
	// a config block in the script overrides these.
	MaxStrlen, MaxMapKeys int
	// ConfigEnv holds config settings by name, as BPFTRACE_* environment
	// variables give them (see ConfigFromEnviron); the script's config
	// block overrides them.
	ConfigEnv map[string]string
	// NamedParams are the named parameters read by getopt() (given as
	// --name=value or --flag after the script).
	NamedParams map[string]string
	// HelperWarnings reports failing probe reads and map updates at run
	// time (bpftrace -k).
	HelperWarnings bool
	// Unsafe allows functions that change the traced system (system(),
	// signal()), as bpftrace's --unsafe: the checker accepts them and the
	// script's Run carries them out.
	Unsafe bool
	// TraceableFunctions is bpftrace's --traceable-functions FILE: the
	// kernel functions that can be traced, in place of
	// available_filter_functions (check.Options).
	TraceableFunctions string
	// Cpid is the pid of the child command (-c), the value of the cpid
	// builtin; 0 means none (cpid is then an error). See StartChild.
	Cpid int
	// Pid restricts the script to one process (-p); 0 means none. See
	// check.Options.Pid for which probes are filtered.
	Pid int
	// DwarfPids are --dwarf-pid: more processes whose stacks dw_ustack
	// unwinds, besides Pid and Cpid.
	DwarfPids []int
	// IncludeDirs and Includes are bpftrace's -I and --include: where user
	// headers are searched, and headers included before the script (see
	// check.Options).
	IncludeDirs, Includes []string
	// DummyTSMap is bpftrace's BPFTRACE_DUMMY_TS_MAP test hook (see
	// check.Options.DummyTSMap).
	DummyTSMap string
	// NoFeatures are kernel features not to use although the kernel has
	// them, bpftrace's --no-feature (runtime.FeatureNames): kprobe_multi,
	// uprobe_multi, kprobe_session, fsession.
	NoFeatures []string
	// Env describes the machine; nil means the running kernel (NewKernelEnv).
	Env Env
	// HistSum keeps the sum of the values each hist() and lhist() records
	// beside its counts, for the _sum of a Prometheus histogram (package
	// metrics): output.Hist.Sum. It costs an add per event.
	HistSum bool
	// Features holds the kernel-dependent code generation choices; nil
	// means probe the running kernel for them, which is done only for
	// scripts with kernel-function probes.
	Features *Features
}

// Env is what Compile and Run need to know about the machine: the checker's
// view (check.Env), and what program loads share with it. *KernelEnv and
// *tracefs.Env implement it.
type Env interface {
	check.Env
	// BTFCache returns the kernel BTF cache shared between the checker and
	// program loads, or nil for a fresh one.
	BTFCache() *btf.Cache
	// TracefsDir returns the tracefs directory where tracepoint ids are
	// read, or "" to mount tracefs when a script needs it.
	TracefsDir() string
}

// Features are the kernel-dependent code generation choices, which Compile
// probes for when Options.Features is nil (declared in package provider).
type Features = provider.Features

// RunOptions configure Script.Run and Script.Load.
type RunOptions struct {
	// Stdout receives the script's output (printf, print, maps at exit);
	// Stderr the "Attached N probes" line, errorf/warnf and warnings.
	// Nil means os.Stdout and os.Stderr.
	Stdout, Stderr io.Writer
	// Quiet suppresses the "Attached N probes" line (bpftrace -q).
	Quiet bool
	// NoSignals leaves SIGINT and SIGTERM alone; the caller then stops Run
	// by cancelling ctx. By default the first SIGINT or SIGTERM stops the
	// script cleanly (END probes, maps), as in bpftrace.
	NoSignals bool
	// NoExitMaps disables printing the maps at exit (bpftrace's
	// print_maps_on_exit=0); the script's config block can set it too.
	NoExitMaps bool
	// Formatter renders values and maps (symbol resolution hooks etc.). Nil
	// means output.NewFormatter().
	Formatter *output.Formatter
	// Attached, when set, is called once every probe is attached.
	Attached func()
	// Opened, when set, is called with the run's session once it is
	// open, before the script is added: the caller can read its maps
	// while it runs.
	Opened func(*runtime.Session)
	// StackMode formats kstack and ustack: "bpftrace" (the default),
	// "perf" or "raw"; the script's config block can set it too.
	StackMode string
	// MaxCatBytes limits cat(); 0 means the default.
	MaxCatBytes int
	// LineBuffered writes each event's output as soon as the event is
	// read (bpftrace -B line, its default, and -B none).
	LineBuffered bool
	// Tests runs the script's test: probes (bpftrace --test): each
	// once, with a report of which passed, and no maps printed at exit;
	// without it a script of only test probes is refused.
	Tests bool
	// Verbose, when set, receives program and map information and the
	// verifier's statistics for each program (bpftrace -v).
	Verbose io.Writer
	// Format is the output format (bpftrace -f): "" or output.FormatText,
	// or output.FormatJSON.
	Format output.OutputFormat
	// Sink, when not nil, receives every event of the run or session
	// (printf output, maps printed, messages, lost events...) instead of
	// the sink of Format on Stdout and Stderr (runtime.Sink; a recorder
	// can embed runtime.TextSink or runtime.JSONSink to print as well).
	Sink runtime.Sink
	// ProbeStats enables the kernel's run-time statistics of BPF programs
	// while a Session is open, for Handle.Hits (runtime.Options.ProbeStats).
	ProbeStats bool
}

// Script is a compiled script, ready to run.
type Script struct {
	Name, Source string
	Checked      *check.Program
	Program      *object.Program
	env          Env
	unsafe       bool
	// noUprobeMulti: --no-feature uprobe_multi
	noUprobeMulti bool
	pid           int
	cpid          int       // the -c child, whose watchpoints are per thread
	file          *ast.File // as parsed, without a session's prelude
}

// Compile parses, checks and compiles a script. Errors in the script are
// returned as a syntax.ErrorList; render them with FormatError.
func Compile(name, src string, opts Options) (*Script, error) {
	return compile(name, src, opts, nil)
}

// compile is Compile, against the state of a session when st is not nil
// (its maps, and what earlier entries defined).
func compile(name, src string, opts Options, st *sessionState) (*Script, error) {
	env := opts.Env
	if env == nil {
		env = NewKernelEnv()
	}
	file, err := syntax.Parse(name, src)
	if err != nil {
		return nil, err
	}
	lopts := check.Options{Params: opts.Params, NamedParams: opts.NamedParams, MaxStrlen: opts.MaxStrlen, MaxMapKeys: opts.MaxMapKeys, ConfigEnv: opts.ConfigEnv, Unsafe: opts.Unsafe, TraceableFunctions: opts.TraceableFunctions, Cpid: opts.Cpid, Pid: opts.Pid, DwarfPids: opts.DwarfPids, IncludeDirs: opts.IncludeDirs, Includes: opts.Includes, DummyTSMap: opts.DummyTSMap, Host: hostfs.Host()}
	lopts.NCPUs, _ = ebpf.PossibleCPU()
	checkedFile := file
	if st != nil {
		checkedFile = st.withPrelude(file)
		lopts.Maps = st.mapTypes
	}
	checked, err := check.Check(checkedFile, env, lopts)
	if err != nil {
		return nil, err
	}
	var copts codegen.Options
	wantDispatch := runtime.WantSyscallDispatch(syscallPoints(checked))
	if f := opts.Features; f != nil {
		copts = codegen.Options{Features: *f}
	} else if needsKernelFeatures(checked) {
		spec, _ := env.BTF()
		copts = codegen.Options{BTF: spec, Features: runtime.Features(spec, env.BTFCache())}
		if slices.Contains(opts.NoFeatures, runtime.FeatureKprobeMulti) {
			copts.KprobeMulti, copts.FentryMultiThreshold = false, 0
		}
		if slices.Contains(opts.NoFeatures, runtime.FeatureKprobeSession) || !copts.KprobeMulti {
			copts.KprobeSession = false
		}
		if slices.Contains(opts.NoFeatures, runtime.FeatureFsession) {
			copts.Fsession = false
		}
	} else if wantDispatch && runtime.HaveSyscallRawTp() {
		// Only the syscall dispatchers depend on the kernel: probe that
		// alone, and, when they are used, read the one member offset
		// their compat check needs straight from the kernel's raw BTF
		// rather than decoding task_struct and all it refers to (a
		// custom Env's BTF is decoded).
		copts = codegen.Options{Features: provider.Features{SyscallRawTp: true}}
		if off, err := kernelThreadStatusOffset(env); err == nil {
			copts.ThreadStatusOffset = off
		} else {
			copts.BTF, _ = env.BTF()
		}
	}
	if opts.Features == nil && copts.SyscallRawTp && !wantDispatch {
		// The kernel has the dispatchers, but this program's few syscall
		// tracepoints are better served by perf events.
		copts.SyscallRawTp = false
	}
	if copts.BTF == nil && needsKernelFeatures(checked) {
		copts.BTF, _ = env.BTF()
	}
	copts.HelperWarnings = copts.HelperWarnings || opts.HelperWarnings
	copts.HistSum = opts.HistSum
	if st != nil {
		copts.Maps, copts.HashMaps = st.mapSpecs, true
	}
	if copts.RingbufSize, err = runtime.RingbufSize(checked.Config.PerfRBPages); err != nil {
		return nil, err
	}
	prog, err := codegen.Compile(checked, copts)
	if errors.Is(err, codegen.ErrJumpRange) && opts.Features == nil && !copts.LongJumps && runtime.HaveLongJumps() {
		// Only scripts with far jumps need the probe.
		copts.LongJumps = true
		prog, err = codegen.Compile(checked, copts)
	}
	var cerr *codegen.Error
	if errors.As(err, &cerr) {
		return nil, syntax.ErrorList{{Pos: cerr.Pos, Msg: cerr.Err.Error()}}
	}
	if err != nil {
		return nil, err
	}
	return &Script{Name: name, Source: src, Checked: checked, Program: prog, env: env, unsafe: opts.Unsafe, pid: opts.Pid, cpid: opts.Cpid, file: file,
		noUprobeMulti: slices.Contains(opts.NoFeatures, runtime.FeatureUprobeMulti)}, nil
}

// needsKernelFeatures reports whether a provider of the program compiles
// differently by kernel (provider.KernelFeatures).
func needsKernelFeatures(p *check.Program) bool {
	for _, pr := range p.Probes {
		if pr.Def().KernelFeatures {
			return true
		}
	}
	return false
}

// syscallPoints counts the program's syscall tracepoint attach points,
// which the syscall dispatchers may serve
// (provider.Features.SyscallRawTp, runtime.WantSyscallDispatch).
func syscallPoints(p *check.Program) int {
	n := 0
	for _, pr := range p.Probes {
		if provider.SyscallDirection(pr.Points) != "" {
			n += len(pr.Points)
		}
	}
	return n
}

// Parsed returns the script's syntax tree as parsed, before checking.
func (s *Script) Parsed() *ast.File { return s.file }

// Warnings renders the script's warnings (e.g. skipped missing probes),
// or "" when there are none.
func (s *Script) Warnings() string {
	return syntax.RenderWarnings(s.Checked.Warnings, s.Source)
}

// runtimeOptions builds the runtime's options from opts, the compile
// options (Unsafe), the environment (tracefs, the shared BTF cache) and
// the script's config block.
func (s *Script) runtimeOptions(opts RunOptions) runtime.Options {
	ro := runtime.Options{
		Stdout: opts.Stdout, Stderr: opts.Stderr, Quiet: opts.Quiet, Unsafe: s.unsafe, Pid: s.pid, Cpid: s.cpid, NoUprobeMulti: s.noUprobeMulti,
		NoSignals: opts.NoSignals, NoExitMaps: opts.NoExitMaps, Formatter: opts.Formatter,
		Attached: opts.Attached, Opened: opts.Opened, StackMode: opts.StackMode, MaxCatBytes: opts.MaxCatBytes,
		Verbose: opts.Verbose, Format: opts.Format, Sink: opts.Sink, ProbeStats: opts.ProbeStats, LineBuffered: opts.LineBuffered, Tests: opts.Tests,
		TracefsDir: s.env.TracefsDir(), BTFCache: s.env.BTFCache(),
	}
	cfg := s.Checked.Config
	if cfg.NoExitMaps || opts.Tests {
		// bpftrace prints no maps at the exit of a test run
		ro.NoExitMaps = true
	}
	if cfg.MaxCatBytes > 0 {
		ro.MaxCatBytes = cfg.MaxCatBytes
	}
	if cfg.MaxProbes > 0 {
		ro.MaxProbes = cfg.MaxProbes
	}
	ro.LogSize = int(cfg.LogSize)
	if cfg.StackMode != "" {
		ro.StackMode = cfg.StackMode
	}
	ro.NoDebugInfo = cfg.NoDebugInfo
	ro.NoCppDemangle = cfg.NoCppDemangle
	ro.NoSymbolCache = cfg.UserSymbolCache == "NONE"
	if cfg.StrTruncTrailer != nil {
		f := output.NewFormatter()
		if ro.Formatter != nil {
			c := *ro.Formatter
			f = &c
		}
		f.StrTruncTrailer = *cfg.StrTruncTrailer
		ro.Formatter = f
	}
	return ro
}

// Run loads, attaches and runs the script until it exits, ctx is
// cancelled, or a signal arrives (see RunOptions.NoSignals). It returns
// the script's exit code.
func (s *Script) Run(ctx context.Context, opts RunOptions) (int, error) {
	return runtime.Run(ctx, s.Program, s.runtimeOptions(opts))
}

// Load loads the script's programs into the kernel, so that the verifier
// checks them, and unloads them again without attaching anything.
func (s *Script) Load(opts RunOptions) error {
	return runtime.Load(s.Program, s.runtimeOptions(opts))
}

// FormatError renders an error from Compile, Run or Load for a terminal:
// positioned errors as bpftrace prints them, "file:line:col-endcol: ERROR:
// msg" with the source line and '~' under the span,
// verifier rejections at the script position that produced the failing
// instructions.
func (s *Script) FormatError(err error) string {
	if pe := codegen.VerifierPosition(err, s.Program); pe != nil {
		return syntax.Render(pe, s.Source) + verifierTail(err)
	}
	return FormatError(err, s.Source)
}

// FormatError renders an error from Compile for a terminal.
func FormatError(err error, src string) string {
	return syntax.Render(err, src)
}

// verifierTail returns the last lines of a verifier log, indented.
func verifierTail(err error) string {
	lines := strings.Split(strings.TrimSpace(fmt.Sprintf("%+v", err)), "\n")
	if len(lines) > 6 {
		lines = lines[len(lines)-6:]
	}
	return "  verifier: " + strings.Join(lines, "\n  verifier: ") + "\n"
}

// SplitParams separates the arguments after a script into positional
// parameters and named parameters (--name=value, --flag), as bpftrace does.
func SplitParams(args []string) (positional []string, named map[string]string) {
	named = map[string]string{}
	for _, a := range args {
		if len(a) > 2 && a[:2] == "--" {
			name, value, ok := strings.Cut(a[2:], "=")
			if !ok {
				value = "true"
			}
			named[name] = value
			continue
		}
		positional = append(positional, a)
	}
	return positional, named
}

// configNames are the config options that BPFTRACE_<NAME> environment
// variables set.
var configNames = []string{"max_strlen", "max_map_keys", "print_maps_on_exit", "missing_probes",
	"stack_mode", "str_trunc_trailer", "max_cat_bytes", "perf_rb_pages", "log_size",
	"max_bpf_progs", "max_probes", "on_stack_limit", "cpp_demangle", "lazy_symbolication",
	"cache_user_symbols", "use_blazesym", "show_debug_info", "license",
	"unstable_import_statement", "unstable_tseries", "unstable_typeinfo", "unstable_dw_ustack"}

// ConfigFromEnviron collects bpftrace's BPFTRACE_<CONFIG> environment
// variables (e.g. BPFTRACE_MAX_STRLEN) from environ ("NAME=value" lines).
func ConfigFromEnviron(environ []string) map[string]string {
	out := map[string]string{}
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(k, "BPFTRACE_") {
			continue
		}
		name := strings.ToLower(strings.TrimPrefix(k, "BPFTRACE_"))
		for _, c := range configNames {
			if c == name {
				out[name] = v
			}
		}
	}
	return out
}
