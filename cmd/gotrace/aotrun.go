package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/internal/debuginfo"
	"github.com/gotrace/gotrace/internal/earlysig"
	"github.com/gotrace/gotrace/runtime"
)

// readAOT returns the payload of the AOT binary at path, or nil when path
// is a plain gotrace. It reads the last trailerSize bytes, and the payload
// only when they are a trailer: four system calls for a plain binary, run
// by every gotrace at start. A file that cannot be read is taken for a
// plain gotrace.
func readAOT(path string) (*aotPayload, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Size < trailerSize {
		return nil, nil
	}
	t := make([]byte, trailerSize)
	if err := preadFull(fd, t, st.Size-trailerSize); err != nil {
		return nil, nil
	}
	n, sum, ok, err := parseTrailer(t, st.Size)
	if !ok || err != nil {
		return nil, err
	}
	payload := make([]byte, n)
	if err := preadFull(fd, payload, st.Size-trailerSize-int64(n)); err != nil {
		return nil, fmt.Errorf("read the AOT payload: %w", err)
	}
	if err := checkPayload(payload, sum); err != nil {
		return nil, err
	}
	return decodePayload(payload)
}

// preadFull reads len(b) bytes at off.
func preadFull(fd int, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := unix.Pread(fd, b, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return io.ErrUnexpectedEOF
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}

// aotUsage is an AOT binary's help; name is how it was run (argv[0]).
func aotUsage(name string) string {
	return "USAGE: " + name + ` [options] [-- --name[=value]...]

OPTIONS:
    -f FORMAT      output format ('text', 'json')
    -o FILE        redirect the program's output to FILE
    -q             keep messages quiet
    -v             verbose messages: program and map information, verifier statistics
    -d STAGE       debug info for stages of the run ('all', 'libbpf', 'verifier')
    -h, --help     show this help message
    -V, --version  print the version

The program's named parameters follow "--" ("-- --help" lists them).

`
}

// aotDebugStages are the -d stages an AOT binary accepts, as bpftrace's
// shim: the others are the compiler's, shown at generation.
var aotDebugStages = []string{"libbpf", "verifier"}

// parseAOTArgs reads an AOT binary's command line, as bpftrace's AOT shim
// does: its few options, then named parameters; positional parameters
// are refused (those given at generation are in the payload).
func parseAOTArgs(p *aotPayload, argv0 string, args []string, stdout, stderr io.Writer) (*config, int, bool) {
	cfg := &config{fromAOT: true, debug: map[string]bool{}}
	var help, showVersion bool
	flag := func(b *bool) func(string) error { return func(string) error { *b = true; return nil } }
	str := func(s *string) func(string) error { return func(v string) error { *s = v; return nil } }
	opts := []option{
		{short: 'd', hasArg: true, set: func(st string) error {
			switch {
			case st == "all":
				for _, s := range aotDebugStages {
					cfg.debug[s] = true
				}
			case st == "libbpf" || st == "verifier":
				cfg.debug[st] = true
			default:
				return fmt.Errorf("USAGE: invalid option for -d: %s", st)
			}
			return nil
		}},
		{short: 'f', hasArg: true, set: str(&cfg.out.format)},
		{short: 'o', hasArg: true, set: str(&cfg.out.file)},
		{short: 'q', set: flag(&cfg.quiet)},
		{short: 'v', set: flag(&cfg.out.verbose)},
		{short: 'h', long: "help", set: flag(&help)},
		{short: 'V', long: "version", set: flag(&showVersion)},
	}
	operands, err := getopt(args, opts)
	if err != nil {
		if ue, ok := err.(*usageError); ok {
			fmt.Fprintf(stderr, "%s: %v\n%s", argv0, ue, aotUsage(argv0))
		} else {
			fmt.Fprintf(stderr, "ERROR: %v\n", err)
		}
		return nil, 1, true
	}
	if help {
		io.WriteString(stdout, aotUsage(argv0))
		return nil, 0, true
	}
	if showVersion {
		fmt.Fprintln(stdout, versionLine)
		return nil, 0, true
	}
	for _, a := range operands {
		if !strings.HasPrefix(a, "--") {
			fmt.Fprintln(stderr, "ERROR: AOT does not support positional parameters")
			return nil, 1, true
		}
	}
	if err := cfg.out.check(); err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return nil, 1, true
	}
	cfg.params = append(append([]string(nil), p.Params...), operands...)
	cfg.out.unsafe = p.Unsafe
	cfg.includeDirs, cfg.includes = p.IncludeDirs, p.Includes
	cfg.configEnv, cfg.dummyTSMap = p.ConfigEnv, p.DummyTSMap
	cfg.probeFilter = p.ProbeFilter
	debuginfo.Dirs = append(debuginfo.Dirs, p.DebuginfoDirs...)
	cfg.env = newReplayEnv(p.Files)
	return cfg, 0, false
}

// runAOT runs the script of an AOT binary: `NAME [options] -- --name=value`
// runs as `gotrace [generation options] [options] SCRIPT -- --name=value`
// would, the script compiled now, for the running kernel (see aot.go).
func runAOT(ctx context.Context, p *aotPayload, argv0 string, args []string, stdout, stderr io.Writer) int {
	sigCtx, release := runtime.StopOnSignals(ctx, stderr)
	defer release()
	earlysig.Replay()
	cfg, code, done := parseAOTArgs(p, argv0, args, stdout, stderr)
	if done {
		return code
	}
	if err := checkPrivileges(); err != nil {
		fmt.Fprintf(stderr, "ERROR: %v\n", err)
		return 1
	}
	return execute(sigCtx, cfg, p.Name, p.Source, stdout, stderr)
}
