package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/internal/debuginfo"
	"github.com/gotrace/gotrace/internal/earlysig"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/output"
	"github.com/gotrace/gotrace/runtime"
)

// version is the gotrace version.
const version = "gotrace v0.1.0"

// compatibleWith is the bpftrace release whose language, output and runtime
// tests gotrace follows.
const compatibleWith = "bpftrace v0.27.1"

// versionLine is what --version prints: the bpftrace release first, so that
// scripts gating features on `bpftrace --version` (matching
// `^bpftrace v(\d+)\.(\d+)`) read the version gotrace follows, then gotrace's
// own version, saying it is gotrace and only compatible.
const versionLine = compatibleWith + " compatible (" + version + ")"

func main() {
	childMain() // the stand-in for a -c command: never returns
	if len(os.Args) > 1 && os.Args[1] == "lsp" {
		os.Exit(lspMain(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	// An AOT binary (--aot) is gotrace with a script appended.
	p, err := readAOT(selfExe)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ERROR: %s: %v\n", os.Args[0], err)
		os.Exit(1)
	}
	if p != nil {
		os.Exit(runAOT(context.Background(), p, os.Args[0], os.Args[1:], os.Stdout, os.Stderr))
	}
	var stderr io.Writer = os.Stderr
	if colorize(os.Stdout, os.Stderr) {
		stderr = &colorWriter{w: os.Stderr}
	}
	code := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, stderr)
	if cw, ok := stderr.(*colorWriter); ok {
		cw.Flush()
	}
	os.Exit(code)
}

const usage = `USAGE:
    gotrace [options] filename [args...]
    gotrace [options] - [args...]
    gotrace [options] -e 'program' [args...]
    use -- after filename/-e 'program' for named script parameters

OPTIONS:
    -e 'program'   execute this program
    -l, --list [search|filename]
                   list kernel probes or probes in a program
    -v, --verbose  print program and map information and verifier statistics;
                   with -l, also show probe arguments
    -q, --quiet    keep messages quiet
    -I DIR         search DIR for headers (their #defines become constants)
    --include FILE include FILE before the program
    --repl         interactive mode (the default with no program on a terminal)
    -h, --help     show this help message
    -V, --version  print the version
    --info         print information about the kernel's BPF support
    --fmt          format the program and print it (with -o, write it to FILE)
    --probe-filter REGEX
                   only attach the probes whose name matches REGEX
                   (BEGIN and END always run)
    --aot FILE     write FILE, an executable that runs the program later
                   (its options: FILE --help)
` + outputUsage + metricsUsage + `
TROUBLESHOOTING OPTIONS:
    --dry-run      parse, check and load the program without attaching it
    --traceable-functions FILE
                   the kernel functions that can be traced, one a line
                   (default: the kernel's available_filter_functions)
    --mode MODE    run (the default), bench: time the bench: probes, or
                   test: run the test: probes
    --test         run the test: probes (--mode test)
    --no-feature FEATURE[,FEATURE]
                   do not use these kernel features: kprobe_multi,
                   kprobe_session, uprobe_multi, fsession
    --dwarf-pid PID
                   a process whose user stacks dw_ustack unwinds with DWARF
                   CFI, besides -p's and -c's (repeatable)
    -d, --debug STAGE
                   debug info for stages of the run ('all', 'ast', 'types',
                   'codegen', 'codegen-opt', 'dis', 'libbpf', 'verifier'):
                   ast prints the checked tree, the codegen stages the BPF
                   instructions, verifier the verifier statistics
    --emit=asm     print the generated BPF instructions, tagged with script positions

EXAMPLES:
gotrace -e 'tracepoint:syscalls:sys_enter_openat { printf("%s %s\n", comm, str(args.filename)); }'
    trace the files processes open
gotrace -e 'tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }'
    count syscalls by process name
`

// config is the parsed command line.
type config struct {
	program string // -e
	file    string // script file, "-" for stdin
	params  []string
	dryRun  bool
	emit    string
	quiet   bool
	list    bool   // -l
	listV   bool   // -l with -v
	search  string // -l's pattern
	repl    bool   // --repl, or no program with a terminal on stdin
	info    bool   // --info
	fmtMode bool   // --fmt
	tests   bool   // --test, --mode test
	// noFeatures are --no-feature's kernel features (runtime.FeatureNames).
	noFeatures  []string
	probeFilter string // --probe-filter
	traceable   string // --traceable-functions
	dwarfPids   []int  // --dwarf-pid
	debug       map[string]bool
	out         outputFlags
	metrics     metricsFlags // --metrics

	// includeDirs and includes are -I and --include, in order.
	includeDirs, includes []string

	// aot is --aot's file: write an AOT binary rather than run.
	aot string
	// fromAOT: this is an AOT binary's run. Its compile's environment
	// (env: the recorded script files), config (configEnv, dummyTSMap:
	// those of the generating environment) come from the payload, and its
	// compile warnings were shown at generation.
	fromAOT    bool
	env        gotrace.Env
	configEnv  map[string]string
	dummyTSMap string
}

// parseNoFeature adds --no-feature's comma-separated features to
// cfg.noFeatures.
func (cfg *config) parseNoFeature(arg string) error {
	for _, f := range strings.Split(arg, ",") {
		if !slices.Contains(runtime.FeatureNames, f) {
			names := slices.Sorted(slices.Values(runtime.FeatureNames))
			return fmt.Errorf("USAGE: --no-feature can only have values '%s'.", strings.Join(names, ","))
		}
		cfg.noFeatures = append(cfg.noFeatures, f)
	}
	return nil
}

// debugStages are the stages -d accepts, bpftrace's names.
var debugStages = []string{"ast", "codegen", "codegen-opt", "dis", "libbpf", "parse", "types", "verifier"}

// parseDebug adds -d's comma-separated stages to cfg.debug.
func (cfg *config) parseDebug(arg string) error {
	if cfg.debug == nil {
		cfg.debug = map[string]bool{}
	}
	for _, st := range strings.Split(arg, ",") {
		switch {
		case st == "":
		case st == "all":
			for _, s := range debugStages {
				cfg.debug[s] = true
			}
		case slices.Contains(debugStages, st):
			cfg.debug[st] = true
		default:
			return fmt.Errorf("USAGE: invalid option for -d: %s", st)
		}
	}
	return nil
}

// options returns the command line's options, which set cfg and the
// flags that end the parse early.
func (cfg *config) options(help, showVersion *bool) []option {
	flag := func(p *bool) func(string) error { return func(string) error { *p = true; return nil } }
	str := func(p *string) func(string) error { return func(v string) error { *p = v; return nil } }
	ignore := func(string) error { return nil }
	opts := []option{
		{short: 'e', hasArg: true, set: str(&cfg.program)},
		{short: 'd', long: "debug", hasArg: true, set: cfg.parseDebug},
		{long: "dry-run", set: flag(&cfg.dryRun)},
		// --mode bench runs the bench: probes (provider.Bench); --mode
		// test (--test) runs the test: probes (provider.Test), which are
		// not run otherwise; "run" is the default.
		{long: "mode", hasArg: true, set: func(m string) error {
			switch m {
			case "run", "bench":
			case "test":
				cfg.tests = true
			default:
				return fmt.Errorf("invalid mode %q: run, bench or test", m)
			}
			return nil
		}},
		{long: "test", set: flag(&cfg.tests)},
		{long: "bench", set: ignore},
		{long: "no-feature", hasArg: true, set: cfg.parseNoFeature},
		// --dwarf-pid adds a process whose stacks dw_ustack unwinds,
		// besides -p's and -c's.
		{long: "dwarf-pid", hasArg: true, set: func(v string) error {
			n, err := strconv.ParseUint(v, 10, 31)
			if err != nil {
				return fmt.Errorf("Failed to parse pid: invalid integer: %s", v)
			}
			cfg.dwarfPids = append(cfg.dwarfPids, int(n))
			return nil
		}},
		{long: "emit", hasArg: true, set: str(&cfg.emit)},
		{short: 'q', long: "quiet", set: flag(&cfg.quiet)},
		{long: "repl", set: flag(&cfg.repl)},
		{short: 'l', long: "list", set: flag(&cfg.list)},
		{short: 'h', long: "help", set: flag(help)},
		{short: 'V', long: "version", set: flag(showVersion)},
		{long: "info", set: flag(&cfg.info)},
		{long: "fmt", set: flag(&cfg.fmtMode)},
		{long: "probe-filter", hasArg: true, set: str(&cfg.probeFilter)},
		{long: "traceable-functions", hasArg: true, set: str(&cfg.traceable)},
		// Kernel types come from BTF; user headers found through -I and
		// --include give their #defines (check.Options). -b is accepted
		// for compatibility; --debuginfo adds directories searched for
		// the separate debug files of uprobe targets.
		{short: 'I', hasArg: true, set: func(s string) error { cfg.includeDirs = append(cfg.includeDirs, s); return nil }},
		{long: "include", hasArg: true, set: func(s string) error { cfg.includes = append(cfg.includes, s); return nil }},
		{short: 'b', long: "btf", set: ignore},
		{long: "debuginfo", hasArg: true, set: func(s string) error { debuginfo.Dirs = append(debuginfo.Dirs, s); return nil }},
		{long: "usdt-file-activation", set: ignore},
		{long: "aot", hasArg: true, set: str(&cfg.aot)},
	}
	opts = append(opts, metricsOptions(&cfg.metrics)...)
	return append(opts, outputOptions(&cfg.out)...)
}

// parseArgs reads the command line as bpftrace does (see getopt): the
// options, then the program (-e or the first operand), then its
// parameters: positional ones, and named ones (--name[=value], which only
// reach the program after "--").
func parseArgs(args []string, stdout, stderr io.Writer) (*config, int, bool) {
	cfg := &config{}
	var help, showVersion bool
	operands, err := getopt(args, cfg.options(&help, &showVersion))
	if err != nil {
		if ue, ok := err.(*usageError); ok {
			fmt.Fprintf(stderr, "gotrace: %v\n%s", ue, usage)
		} else {
			fmt.Fprintf(stderr, "ERROR: %v\n", err)
		}
		return nil, 1, true
	}
	if help {
		io.WriteString(stdout, usage)
		return nil, 0, true
	}
	if showVersion {
		fmt.Fprintln(stdout, versionLine)
		return nil, 0, true
	}
	if cfg.info {
		return cfg, 0, false
	}
	if cfg.out.cmd != "" && cfg.out.pid != "" {
		fmt.Fprintf(stderr, "ERROR: USAGE: Cannot use both -c and -p.\n%s", usage)
		return nil, 1, true
	}
	if err := cfg.checkAOT(); err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return nil, 1, true
	}
	if cfg.list {
		cfg.listV = cfg.out.verbose
		switch len(operands) {
		case 0:
		case 1:
			if cfg.program == "" && fileExists(operands[0]) {
				cfg.file = operands[0]
			} else {
				cfg.search = operands[0]
				if cfg.program == "" && strings.HasSuffix(cfg.search, ".bt") {
					fmt.Fprintf(stderr, "WARNING: It appears that '%s' is a filename but the file does not exist. Treating '%s' as a search pattern.\n", cfg.search, cfg.search)
				}
			}
		default:
			io.WriteString(stderr, usage)
			return nil, 1, true
		}
		if err := cfg.out.check(); err != nil {
			fmt.Fprintf(stderr, "ERROR: %v\n", err)
			return nil, 1, true
		}
		return cfg, 0, false
	}
	if cfg.program == "" && !cfg.repl {
		if len(operands) == 0 {
			if cfg.aot == "" && isTerminal(os.Stdin) {
				cfg.repl = true
				return cfg, 0, false
			}
			if len(args) == 0 {
				io.WriteString(stderr, usage)
			} else {
				io.WriteString(stderr, "ERROR: USAGE: filename or -e 'program' required.\n")
			}
			return nil, 1, true
		}
		cfg.file, operands = operands[0], operands[1:]
	}
	cfg.params = operands
	if cfg.emit != "" && cfg.emit != "asm" {
		fmt.Fprintf(stderr, "gotrace: unknown --emit value %q (want asm)\n", cfg.emit)
		return nil, 1, true
	}
	if err := cfg.out.check(); err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return nil, 1, true
	}
	return cfg, 0, false
}

// fileExists reports whether a file (or anything) is at path.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Catch SIGINT and SIGTERM from the start, not only once the probes
	// are attached: a signal while compiling or loading still ends the run
	// with END and the maps, and repeated signals during teardown do not
	// lose the output (runtime.StopOnSignals).
	sigCtx, release := runtime.StopOnSignals(ctx, stderr)
	defer release()
	earlysig.Replay()
	cfg, code, done := parseArgs(args, stdout, stderr)
	if done {
		return code
	}
	if cfg.fmtMode {
		release()
		return formatProgram(cfg, stdin, stdout, stderr)
	}
	if cfg.info {
		release()
		// The feature probes load programs: without privileges every
		// answer would be "no".
		if err := checkPrivileges(); err != nil {
			fmt.Fprintf(stderr, "ERROR: %v\n", err)
			return 1
		}
		return printInfo(stdout)
	}
	if cfg.repl {
		release() // the REPL runs each script with Run's own handling
		return repl(ctx, cfg, stdout, stderr)
	}
	// Everything but printing the instructions of a script needs the
	// kernel: say once, up front, when the privileges are missing.
	if cfg.emit == "" || cfg.dryRun || cfg.list {
		if err := checkPrivileges(); err != nil {
			fmt.Fprintf(stderr, "ERROR: %v\n", err)
			return 1
		}
	}
	if cfg.out.noWarnings {
		stderr = &noWarnings{w: stderr}
	}
	if cfg.list && cfg.program == "" && cfg.file == "" {
		release()
		return listSearch(stdout, stderr, cfg.search, cfg.listV, cfg.out.pidN, cfg.traceable)
	}
	type loaded struct {
		name, src string
		err       error
	}
	l, ok := interruptible(sigCtx, func() loaded {
		name, src, err := loadProgram(cfg, stdin) // a FIFO may block
		return loaded{name, src, err}
	})
	if !ok {
		return stoppedEarly(cfg, stdout)
	}
	name, src, err := l.name, l.src, l.err
	if err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	if cfg.list {
		release()
		return listProgram(stdout, stderr, cfg, name, src)
	}
	if cfg.aot != "" {
		release()
		return generateAOT(cfg, name, src, stdout, stderr)
	}
	return execute(sigCtx, cfg, name, src, stdout, stderr)
}

// execute compiles and runs (or loads, for --dry-run) the program src of
// cfg, named name in its errors, until it ends or ctx is done.
func execute(ctx context.Context, cfg *config, name, src string, stdout, stderr io.Writer) int {
	ctx, sess, err := cfg.out.open(ctx, stdout)
	if err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	var reported error // an error already printed
	defer func() {
		if err := sess.close(); err != nil && !alreadyReported(err, reported) {
			fmt.Fprintf(stderr, "ERROR: write output: %v\n", err)
		}
	}()
	cpid := 0
	if sess.child != nil {
		cpid = sess.child.pid()
	}
	script, ok := interruptible(ctx, func() *gotrace.Script {
		script, _ := compileScript(cfg, name, src, cpid, stderr)
		return script
	})
	if !ok {
		return stoppedEarly(cfg, stdout)
	}
	if script == nil {
		return 1
	}
	if err := sess.openOutput(&cfg.out); err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	stdout = sess.stdout
	if code, done := showCompiled(cfg, script, stdout, stderr); done {
		return code
	}
	opts := gotrace.RunOptions{Stdout: stdout, Stderr: stderr, Quiet: cfg.quiet,
		Format: cfg.out.fmt, Attached: sess.attached, NoSignals: true,
		LineBuffered: cfg.out.buffer != "full", Tests: cfg.tests}
	if cfg.out.verbose || cfg.debug["verifier"] {
		opts.Verbose = stderr
	}
	if cfg.dryRun {
		err := script.Load(opts)
		if errors.Is(err, runtime.ErrCannotAttach) {
			// The script is valid: only this kernel cannot run it.
			fmt.Fprintf(stderr, "dry run: the script is valid, but this kernel cannot attach it: %v\n", err)
			return 0
		}
		if err != nil {
			reported = err
			fmt.Fprint(stderr, script.FormatError(err))
			return 1
		}
		return 0
	}
	if cfg.emit != "" {
		return 0
	}
	srv, msrc, err := startMetrics(&cfg.metrics, script.Program, stderr, cfg.out.noWarnings)
	if err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	if srv != nil {
		defer srv.Close()
		opts.Opened = msrc.Set
	}
	exitCode, err := script.Run(ctx, opts)
	if errors.Is(err, runtime.ErrNoProbes) && !cfg.quiet {
		fmt.Fprintln(stdout, err) // bpftrace says so on stdout
		return 1
	}
	if err != nil {
		reported = err
		fmt.Fprint(stderr, script.FormatError(err))
		return 1
	}
	return exitCode
}

// interruptible returns f's result, or false as soon as ctx is done (a
// signal): f may block (reading a FIFO) or take long (compiling a huge
// script), and gotrace ends without waiting for it.
func interruptible[T any](ctx context.Context, f func() T) (T, bool) {
	var zero T
	if ctx.Err() != nil {
		return zero, false
	}
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v, true
	case <-ctx.Done():
		return zero, false
	}
}

// stoppedEarly ends a run stopped before its program was compiled: as a
// run stopped before BEGIN (runtime.Run), nothing runs and the output ends
// as a run without events ends.
func stoppedEarly(cfg *config, stdout io.Writer) int {
	var format output.OutputFormat
	if cfg != nil {
		format = cfg.out.fmt
	}
	_ = runtime.NewSink(format, stdout, io.Discard).Exit()
	return 0
}

// compileScript compiles the program src of cfg, as every run and --aot
// do, and checks the named parameters against its getopt() calls; it
// prints the errors, and returns false, when the run must stop. cpid is
// the -c child's pid, or 0.
func compileScript(cfg *config, name, src string, cpid int, stderr io.Writer) (*gotrace.Script, bool) {
	copts := compileOptions(cfg)
	copts.Pid, copts.HelperWarnings, copts.Cpid = cfg.out.pidN, cfg.out.warnings, cpid
	script, err := gotrace.Compile(name, src, copts)
	if err != nil {
		fmt.Fprint(stderr, gotrace.FormatError(err, src))
		return nil, false
	}
	if !checkNamedParams(stderr, cfg.params, script.Checked.Getopts) {
		return nil, false
	}
	return script, true
}

// showCompiled prints what comes of the compile, before loading: the
// warnings (shown by --aot, not again by the AOT binary), -d ast's tree and
// the instructions (--emit asm, -d codegen), and applies --probe-filter. It
// returns the exit code and true when the run must stop.
func showCompiled(cfg *config, script *gotrace.Script, stdout, stderr io.Writer) (int, bool) {
	if !cfg.out.noWarnings && !cfg.fromAOT {
		fmt.Fprint(stderr, script.Warnings())
	}
	if cfg.debug["ast"] || cfg.debug["parse"] {
		// The checked tree: macros expanded, -p's filters added.
		fmt.Fprintf(stderr, "AST\n-------------------\n%s\n", ast.Dump(script.Checked.File))
	}
	if cfg.probeFilter != "" {
		err := filterProbes(script.Program, cfg.probeFilter)
		if errors.Is(err, errNoProbes) {
			// bpftrace says so on stdout, unless quiet.
			if !cfg.quiet {
				fmt.Fprintln(stdout, err)
			}
			return 1, true
		}
		if err != nil {
			fmt.Fprintf(stderr, "ERROR: %v\n", err)
			return 1, true
		}
	}
	if cfg.emit == "asm" || cfg.debug["codegen"] || cfg.debug["codegen-opt"] || cfg.debug["dis"] {
		printAsm(stdout, script.Program)
	}
	return 0, false
}

// alreadyReported reports whether every error joined in err is in the
// chain of reported: a failed write to the output is returned both by Run
// and by the final flush, and is printed once.
func alreadyReported(err, reported error) bool {
	if reported == nil {
		return false
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		if !errors.Is(reported, e) {
			return false
		}
	}
	return true
}

func printAsm(w io.Writer, prog *object.Program) {
	for _, p := range prog.Probes {
		spec := prog.Collection.Programs[p.Program]
		fmt.Fprintf(w, "; probe %s (program %s, %s)\n", p.Name, p.Program, spec.Type)
		fmt.Fprintf(w, "%v\n", spec.Instructions)
	}
}

// compileOptions builds the compile options (parameters, --unsafe) from
// the command line and bpftrace's environment variables (a config block in
// the script wins).
func compileOptions(cfg *config) gotrace.Options {
	params, named := gotrace.SplitParams(cfg.params)
	configEnv, dummyTSMap := cfg.configEnv, cfg.dummyTSMap
	if !cfg.fromAOT {
		configEnv, dummyTSMap = gotrace.ConfigFromEnviron(os.Environ()), os.Getenv("BPFTRACE_DUMMY_TS_MAP")
	}
	return gotrace.Options{Params: params, NamedParams: named, ConfigEnv: configEnv,
		Unsafe: cfg.out.unsafe, TraceableFunctions: cfg.traceable, IncludeDirs: cfg.includeDirs, Includes: cfg.includes,
		DummyTSMap: dummyTSMap, Env: cfg.env, NoFeatures: cfg.noFeatures, HistSum: cfg.metrics.addr != "", DwarfPids: cfg.dwarfPids}
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
