package gotrace

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/codegen"
	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/output"
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
	// signal()), as bpftrace's --unsafe. Pass the same to runtime.Options.
	Unsafe bool
	// Cpid is the pid of the child command (-c), the value of the cpid
	// builtin; 0 means none (cpid is then an error). See StartChild.
	Cpid int
	// Pid restricts the script to one process (-p); 0 means none. See
	// lang.Options.Pid for which probes are filtered.
	Pid int
	// IncludeDirs and Includes are bpftrace's -I and --include: where user
	// headers are searched, and headers included before the script (see
	// lang.Options).
	IncludeDirs, Includes []string
	// Env describes the machine; nil means the running kernel (NewKernelEnv).
	Env lang.Env
	// Codegen holds the kernel-dependent code generation choices; nil means
	// probe the running kernel for them (runtime.Features), which is done
	// only for scripts with kernel-function probes.
	Codegen *codegen.Options
}

// Script is a compiled script, ready to run.
type Script struct {
	Name, Source string
	Checked      *lang.Program
	Program      *codegen.Program
	env          lang.Env
}

// Compile parses, checks and compiles a script. Errors in the script are
// returned as a lang.ErrorList; render them with FormatError.
func Compile(name, src string, opts Options) (*Script, error) {
	env := opts.Env
	if env == nil {
		env = NewKernelEnv()
	}
	file, err := lang.Parse(name, src)
	if err != nil {
		return nil, err
	}
	ncpus, _ := ebpf.PossibleCPU()
	checked, err := lang.Check(file, env, lang.Options{Params: opts.Params, NamedParams: opts.NamedParams, MaxStrlen: opts.MaxStrlen, MaxMapKeys: opts.MaxMapKeys, ConfigEnv: opts.ConfigEnv, Unsafe: opts.Unsafe, NCPUs: ncpus, Cpid: opts.Cpid, Pid: opts.Pid, IncludeDirs: opts.IncludeDirs, Includes: opts.Includes})
	if err != nil {
		return nil, err
	}
	var copts codegen.Options
	if opts.Codegen != nil {
		copts = *opts.Codegen
	} else if needsKernelFeatures(checked) {
		spec, _ := env.BTF()
		copts = runtime.Features(spec)
		copts.BTF = spec
	}
	if copts.BTF == nil && needsKernelFeatures(checked) {
		copts.BTF, _ = env.BTF()
	}
	copts.HelperWarnings = copts.HelperWarnings || opts.HelperWarnings
	prog, err := codegen.Compile(checked, copts)
	var cerr *codegen.Error
	if errors.As(err, &cerr) {
		return nil, lang.ErrorList{{Pos: cerr.Pos, Msg: cerr.Err.Error()}}
	}
	if err != nil {
		return nil, err
	}
	return &Script{Name: name, Source: src, Checked: checked, Program: prog, env: env}, nil
}

func needsKernelFeatures(p *lang.Program) bool {
	for _, pr := range p.Probes {
		switch pr.Provider() {
		case "kprobe", "kretprobe", "fentry", "fexit", "rawtracepoint":
			return true
		}
	}
	return false
}

// Warnings renders the script's warnings (e.g. skipped missing probes),
// or "" when there are none.
func (s *Script) Warnings() string {
	return lang.RenderWarnings(s.Checked.Warnings, s.Source)
}

// withEnv fills in the runtime options that come from the environment and
// the script's config block.
func (s *Script) withEnv(opts runtime.Options) runtime.Options {
	cfg := s.Checked.Config
	if cfg.NoExitMaps {
		opts.NoExitMaps = true
	}
	if cfg.MaxCatBytes > 0 {
		opts.MaxCatBytes = cfg.MaxCatBytes
	}
	if cfg.StackMode != "" {
		opts.StackMode = cfg.StackMode
	}
	if cfg.StrTruncTrailer != nil {
		f := output.NewFormatter()
		if opts.Formatter != nil {
			c := *opts.Formatter
			f = &c
		}
		f.StrTruncTrailer = *cfg.StrTruncTrailer
		opts.Formatter = f
	}
	if ke, ok := s.env.(*KernelEnv); ok {
		if opts.TracefsDir == "" {
			opts.TracefsDir = ke.TracefsDir()
		}
		if opts.BTFCache == nil {
			opts.BTFCache = ke.BTFCache()
		}
	}
	return opts
}

// Run loads, attaches and runs the script until it exits, ctx is
// cancelled, or a signal arrives (see runtime.Options). It returns the
// script's exit code.
func (s *Script) Run(ctx context.Context, opts runtime.Options) (int, error) {
	return runtime.Run(ctx, s.Program, s.withEnv(opts))
}

// Load loads the script's programs into the kernel, so that the verifier
// checks them, and unloads them again without attaching anything.
func (s *Script) Load(opts runtime.Options) error {
	return runtime.Load(s.Program, s.withEnv(opts))
}

// FormatError renders an error from Compile, Run or Load for a terminal:
// positioned errors as file:line:col with the source line and a caret,
// verifier rejections at the script position that produced the failing
// instructions.
func (s *Script) FormatError(err error) string {
	if pe := codegen.VerifierPosition(err, s.Program); pe != nil {
		return lang.Render(pe, s.Source) + verifierTail(err)
	}
	return FormatError(err, s.Source)
}

// FormatError renders an error from Compile for a terminal.
func FormatError(err error, src string) string {
	return lang.Render(err, src)
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
	"max_bpf_progs", "max_probes", "on_stack_limit", "cpp_demangle", "lazy_symbolication"}

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
