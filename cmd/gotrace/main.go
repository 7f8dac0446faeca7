package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/runtime"
)

// version is the gotrace version, printed by --version.
const version = "gotrace v0.1.0"

func main() {
	childMain() // the stand-in for a -c command: never returns
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `USAGE:
    gotrace [options] filename [args...]
    gotrace [options] - [args...]
    gotrace [options] -e 'program' [args...]

OPTIONS:
    -e 'program'   execute this program
    -d, --dry-run  parse, check and load the program without attaching it
    --emit=asm     print the generated BPF instructions, tagged with script positions
    -q             keep messages quiet
    --repl         interactive mode (the default with no program on a terminal)
    -l [pattern]   list probes matching pattern, e.g. 'kprobe:vfs_*'
    -lv [pattern]  list probes with their arguments
    -h, --help     show this help message
    -V, --version  print the version
` + outputUsage + `
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
	list    bool // -l, -lv
	listV   bool // -lv
	repl    bool // --repl, or no program with a terminal on stdin
	out     outputFlags
}

func parseArgs(args []string, stderr io.Writer) (*config, int, bool) {
	fs := flag.NewFlagSet("gotrace", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	cfg := &config{}
	var help, showVersion bool
	fs.StringVar(&cfg.program, "e", "", "program")
	fs.BoolVar(&cfg.dryRun, "d", false, "dry run")
	fs.BoolVar(&cfg.dryRun, "dry-run", false, "dry run")
	fs.StringVar(&cfg.emit, "emit", "", "emit")
	fs.BoolVar(&cfg.quiet, "q", false, "quiet")
	fs.BoolVar(&cfg.repl, "repl", false, "interactive")
	// Headers are never needed (kernel types come from BTF): include
	// directories and forced includes are accepted for compatibility.
	fs.Func("I", "include directory", func(string) error { return nil })
	fs.Func("include", "include file", func(string) error { return nil })
	fs.BoolVar(&cfg.list, "l", false, "list")
	fs.BoolVar(&cfg.listV, "lv", false, "list verbose")
	fs.BoolVar(&help, "h", false, "help")
	fs.BoolVar(&help, "help", false, "help")
	fs.BoolVar(&showVersion, "V", false, "version")
	fs.BoolVar(&showVersion, "version", false, "version")
	addOutputFlags(fs, &cfg.out)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(stderr, usage)
			return nil, 0, true
		}
		fmt.Fprintf(stderr, "gotrace: %v\n%s", err, usage)
		return nil, 1, true
	}
	if help {
		io.WriteString(stderr, usage)
		return nil, 0, true
	}
	if showVersion {
		fmt.Fprintln(stderr, version)
		return nil, 0, true
	}
	rest := fs.Args()
	if cfg.list || cfg.listV {
		cfg.list, cfg.params = true, rest
		return cfg, 0, false
	}
	if cfg.program == "" && !cfg.repl && !cfg.list {
		if len(rest) == 0 {
			if isTerminal(os.Stdin) {
				cfg.repl = true
				return cfg, 0, false
			}
			io.WriteString(stderr, usage)
			return nil, 1, true
		}
		cfg.file, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	cfg.params = rest
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

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Catch SIGINT and SIGTERM from the start, not only once the probes
	// are attached: a signal while compiling or loading still ends the run
	// with END and the maps, and repeated signals during teardown do not
	// lose the output (runtime.StopOnSignals).
	sigCtx, release := runtime.StopOnSignals(ctx, stderr)
	defer release()
	cfg, code, done := parseArgs(args, stderr)
	if done {
		return code
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
	if cfg.list {
		release()
		return listProbes(stdout, stderr, cfg.params, cfg.listV)
	}
	ctx = sigCtx
	name, src, err := loadProgram(cfg, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}

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
	copts := compileOptions(cfg)
	copts.Unsafe, copts.Pid, copts.HelperWarnings = cfg.out.unsafe, cfg.out.pidN, cfg.out.warnings
	if sess.child != nil {
		copts.Cpid = sess.child.pid()
	}
	script, err := gotrace.Compile(name, src, copts)
	if err != nil {
		fmt.Fprint(stderr, gotrace.FormatError(err, src))
		return 1
	}
	if err := sess.openOutput(&cfg.out); err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	stdout = sess.stdout
	fmt.Fprint(stderr, script.Warnings())
	if cfg.emit == "asm" {
		printAsm(stdout, script.Program)
	}
	opts := gotrace.RunOptions{Stdout: stdout, Stderr: stderr, Quiet: cfg.quiet,
		Format: cfg.out.fmt, Attached: sess.attached, NoSignals: true}
	if cfg.out.verbose {
		opts.Verbose = stderr
	}
	if cfg.dryRun {
		if err := script.Load(opts); err != nil {
			reported = err
			fmt.Fprint(stderr, script.FormatError(err))
			return 1
		}
		return 0
	}
	if cfg.emit != "" {
		return 0
	}
	exitCode, err := script.Run(ctx, opts)
	if err != nil {
		reported = err
		fmt.Fprint(stderr, script.FormatError(err))
		return 1
	}
	return exitCode
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
	return gotrace.Options{Params: params, NamedParams: named, ConfigEnv: gotrace.ConfigFromEnviron(os.Environ()),
		Unsafe: cfg.out.unsafe}
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
