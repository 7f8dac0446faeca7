package gotrace

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/cilium/ebpf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/runtime"
)

// Session is a live tracing session: programs are added to it one at a
// time while it runs, each attaching its probes in the background, and
// detached again one at a time, while the maps they write live on in the
// session and can be read, printed, cleared or zeroed from any goroutine.
// Close ends it as a script run ends: END probes run, the maps are printed
// on RunOptions.Stdout (unless NoExitMaps), and every kernel object is
// closed.
//
// Each program added is compiled against the session's state: the maps
// earlier programs created (a use must agree with their types, or the
// program is rejected with a positioned error and nothing of it attaches),
// and the macros, config, C definitions and imports of earlier programs.
//
// A Session needs what Run needs (root, Linux 5.8 or later). It is safe for
// concurrent use.
type Session struct {
	opts  Options
	ropts RunOptions
	rt    *runtime.Session

	mu sync.Mutex // guards st and the session's compiles
	st sessionState
}

// Handle is one program added to a Session (Session.Add): Detach detaches
// its probes alone.
type Handle = runtime.Handle

// Map is one map of a Session (Session.Map): Read, Print, Clear, Zero and
// Delete are safe from any goroutine while the probes run.
type Map = runtime.Map

// MapInfo describes a map of a Session.
type MapInfo = runtime.MapInfo

// MapEntry is one decoded map entry (Map.Read).
type MapEntry = runtime.MapEntry

// sessionState is what a session's earlier programs left for later ones to
// be compiled against.
type sessionState struct {
	mapTypes map[string]*check.MapType // the maps' types, by name
	mapSpecs map[string]*ebpf.MapSpec  // the maps' kernel layouts, by name
	prelude  ast.File                  // earlier entries' C definitions, config, imports and macros
}

// Open starts a session. opts are the compile options of every program
// added (Options.Env is shared: kernel BTF is parsed once); ropts configure
// its output (Stdout, Stderr, Format, Quiet, NoExitMaps...). SIGINT and
// SIGTERM are left alone: the caller decides when to Close. Cancelling ctx
// stops reading events, as a signal stops a run; Close must still be
// called.
func Open(ctx context.Context, opts Options, ropts RunOptions) (*Session, error) {
	if opts.Env == nil {
		opts.Env = NewKernelEnv()
	}
	s := &Session{opts: opts, ropts: ropts, st: sessionState{mapTypes: map[string]*check.MapType{}, mapSpecs: map[string]*ebpf.MapSpec{}}}
	probe := &Script{env: opts.Env, unsafe: opts.Unsafe, pid: opts.Pid, Checked: &check.Program{}}
	ro := probe.runtimeOptions(ropts)
	ro.NoSignals = true
	rt, err := runtime.Open(ctx, ro)
	if err != nil {
		return nil, err
	}
	s.rt = rt
	return s, nil
}

// Compile compiles source against the session's state without adding it:
// the result can be shown (its instructions) or added with AddScript.
func (s *Session) Compile(name, source string) (*Script, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return compile(name, source, s.opts, &s.st)
}

// Add compiles source (named "stdin" in its errors) against the session's
// state and adds it: see AddScript. Errors in the source are a
// syntax.ErrorList; render them with FormatError.
func (s *Session) Add(source string) (*Handle, error) {
	script, err := s.Compile("stdin", source)
	if err != nil {
		return nil, err
	}
	return s.AddScript(script)
}

// AddScript loads a script compiled by the session's Compile, runs its
// BEGIN probes and attaches its other probes; its events are printed in
// the background. When it fails (render the error with
// script.FormatError), nothing of it stays attached and no map is created.
// Scripts must be added in the order they were compiled. A script without
// probes (only definitions: macros, config, C definitions, imports) loads
// nothing: its definitions join the session's state and the handle is nil.
func (s *Session) AddScript(script *Script) (*Handle, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(script.Program.Probes) == 0 {
		s.st.learn(script)
		return nil, nil
	}
	ro := script.runtimeOptions(s.ropts)
	h, err := s.rt.AddWithOptions(script.Program, ro)
	if err != nil {
		return nil, err
	}
	s.st.learn(script)
	return h, nil
}

// learn records what an added script leaves for later ones.
func (st *sessionState) learn(script *Script) {
	for name, mt := range script.Checked.Maps {
		if _, ok := st.mapTypes[name]; ok {
			continue
		}
		st.mapTypes[name] = mt
		for _, m := range script.Program.Maps {
			if m.Name == name {
				st.mapSpecs[name] = script.Program.Collection.Maps[m.BPFName].Copy()
			}
		}
	}
	f := script.file
	st.prelude.Preamble = append(st.prelude.Preamble, f.Preamble...)
	st.prelude.Imports = append(st.prelude.Imports, f.Imports...)
	st.prelude.Macros = append(st.prelude.Macros, f.Macros...)
	if f.Config != nil {
		if st.prelude.Config == nil {
			st.prelude.Config = &ast.Config{}
		}
		st.prelude.Config.Entries = mergeConfig(st.prelude.Config.Entries, f.Config.Entries)
	}
}

// mergeConfig returns the config entries of old overridden by those of
// newer.
func mergeConfig(old, newer []*ast.ConfigEntry) []*ast.ConfigEntry {
	set := map[string]bool{}
	for _, e := range newer {
		set[e.Key] = true
	}
	out := slices.DeleteFunc(slices.Clone(old), func(e *ast.ConfigEntry) bool { return set[e.Key] })
	return append(out, newer...)
}

// withPrelude returns file with what earlier entries defined before its
// own definitions.
func (st *sessionState) withPrelude(file *ast.File) *ast.File {
	p := &st.prelude
	if len(p.Preamble)+len(p.Imports)+len(p.Macros) == 0 && p.Config == nil {
		return file
	}
	f := *file
	f.Preamble = append(slices.Clone(p.Preamble), file.Preamble...)
	f.Imports = append(slices.Clone(p.Imports), file.Imports...)
	f.Macros = append(slices.Clone(p.Macros), file.Macros...)
	if p.Config != nil {
		var own []*ast.ConfigEntry
		if file.Config != nil {
			own = file.Config.Entries
		}
		f.Config = &ast.Config{Span: p.Config.Span, Entries: mergeConfig(p.Config.Entries, own)}
		if file.Config != nil {
			f.Config.Span = file.Config.Span
		}
	}
	return &f
}

// Maps describes the session's maps, sorted by name.
func (s *Session) Maps() []MapInfo { return s.rt.Maps() }

// Map returns the session's map name ("@x", or "x").
func (s *Session) Map(name string) (*Map, error) { return s.rt.Map(name) }

// MapNames returns the names of the session's maps, sorted.
func (s *Session) MapNames() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.st.mapTypes))
}

// Runtime returns the session's runtime.Session.
func (s *Session) Runtime() *runtime.Session { return s.rt }

// Close ends the session: see runtime.Session.Close.
func (s *Session) Close() error { return s.rt.Close() }
