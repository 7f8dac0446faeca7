package provider_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/testbtf"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
	"github.com/gotrace/gotrace/tracefs"
)

// symsEnv is a kernel with the pinned BTF, a symbol table and (unless nil)
// available_filter_functions.
type symsEnv struct {
	spec      *btf.Spec
	traceable map[string]bool
	syms      *tracefs.Symbols
}

func (e symsEnv) Tracepoints(string) ([]string, error)         { return nil, nil }
func (e symsEnv) BTF() (*btf.Spec, error)                      { return e.spec, nil }
func (e symsEnv) TraceableFunctions() (map[string]bool, error) { return e.traceable, nil }
func (e symsEnv) KernelSymbols() (*tracefs.Symbols, error)     { return e.syms, nil }
func (e symsEnv) expand(raw string) ([]*provider.Point, error) { return expandIn(e, raw) }
func expandIn(env provider.ExpandEnv, raw string) ([]*provider.Point, error) {
	parts := provider.SplitAttach(raw)
	return provider.Lookup(parts[0]).Expand(env, raw, parts[1:])
}

// fakeKernel: vfs_read and vfs_write are traceable; __x64_sys_getpid is
// another name of the traceable __ia32_sys_getpid; lookup_fast exists only
// renamed; copy_notrace has no ftrace location; two static dup_fn; a
// blacklisted function; a split-off fragment.
func fakeKernel(t *testing.T, withFtrace bool) symsEnv {
	text := []string{"vfs_read", "vfs_write", "vfs_statfs.part.0.isra.0", "vfs_open.isra.0", "__ia32_sys_getpid", "=__x64_sys_getpid",
		"lookup_fast.constprop.0", "lookup_fast.constprop.0.cold", "walk_component.isra.0", "walk_component.part.0",
		"copy_notrace", "dup_fn", "dup_fn", "kprobe_busy", "rcu_note", "zz_renamed.isra.0", "zz_mod_fn [zz_mod]"}
	ftrace := []string{"vfs_read", "vfs_write", "vfs_statfs.part.0.isra.0", "vfs_open.isra.0", "__ia32_sys_getpid",
		"lookup_fast.constprop.0", "walk_component.isra.0", "walk_component.part.0", "dup_fn", "rcu_note", "zz_renamed.isra.0"}
	env := symsEnv{spec: testbtf.Spec(t)}
	if withFtrace {
		env.traceable = map[string]bool{}
		for _, n := range ftrace {
			if n != "dup_fn" && n != "rcu_note" {
				env.traceable[n] = true
			}
		}
		env.syms = tracefs.NewSymbols(text, []string{"kprobe_busy"}, ftrace, true, map[string]string{"md_flush_request": "md_mod"})
	} else {
		env.syms = tracefs.NewSymbols(text, []string{"kprobe_busy"}, nil, true, nil)
	}
	return env
}

// TestKprobeExactNames: an exact kprobe is accepted when kallsyms lists the
// function once and it is not blacklisted, whatever
// available_filter_functions says; a missing one says why.
func TestKprobeExactNames(t *testing.T) {
	env := fakeKernel(t, true)
	for _, tc := range []struct {
		raw      string
		noFtrace bool
		proto    bool
	}{
		{"kprobe:vfs_read", false, true},
		{"kretprobe:vfs_read", false, true},
		{"kprobe:__x64_sys_getpid", false, false}, // an alias of a traceable function
		{"kprobe:copy_notrace", true, false},      // the kernel decides
		{"kretprobe:copy_notrace", true, false},
		{"kprobe:lookup_fast.constprop.0", false, false},
		{"kprobe:vfs_read+4", false, true},
		{"kprobe:zz_mod_fn", true, false}, // a loaded module's

	} {
		pts, err := env.expand(tc.raw)
		if err != nil {
			t.Errorf("%s: %v", tc.raw, err)
			continue
		}
		if len(pts) != 1 || pts[0].Name != tc.raw || pts[0].NoFtrace != tc.noFtrace || (pts[0].FuncProto() != nil) != tc.proto {
			t.Errorf("%s: got %+v, want NoFtrace %v, prototype %v", tc.raw, pts[0], tc.noFtrace, tc.proto)
		}
	}
	// A module wildcard matching vmlinux is the kernel's own function.
	for _, raw := range []string{"kprobe:vmlinu*:vfs_read", "fentry:vmlinu?:vfs_read"} {
		pts, err := env.expand(raw)
		if err != nil || len(pts) != 1 || pts[0].Func != "vfs_read" {
			t.Errorf("%s: %v, %v", raw, pts, err)
		}
	}
	for raw, want := range map[string]string{
		"kprobe:lookup_fast":                `^No matches for kprobe lookup_fast: the compiler renamed the function; did you mean kprobe:lookup_fast\.constprop\.0\?$`,
		"kretprobe:walk_component":          `did you mean kretprobe:walk_component\.isra\.0 or kretprobe:walk_component\.part\.0\?$`,
		"kprobe:lookup_fast+8":              `did you mean kprobe:lookup_fast\.constprop\.0\+8\?$`,
		"kprobe:md_flush_request":           `^No matches for kprobe md_flush_request: the function is in kernel module md_mod, which is not loaded\.$`,
		"kprobe:raid5_make_request":         `^No matches for kprobe raid5_make_request\.$`,
		"kprobe:vmlinux:raid5_make_request": `^No matches for kprobe vmlinux:raid5_make_request\.$`,
		"kprobe:dup_fn":                     `^kernel function dup_fn is ambiguous: /proc/kallsyms lists 2 functions of that name`,
		"kprobe:kprobe_busy":                `^kernel function kprobe_busy is on the kprobe blacklist`,
		"fentry:zz_renamed":                 `^kernel function zz_renamed not found in BTF: the compiler renamed it \(zz_renamed\.isra\.0\), and BTF describes no renamed function; kprobe:zz_renamed\.isra\.0 attaches to it$`,
		"fentry:copy_notrace":               `^No matches for fentry copy_notrace\.$`,
		"fentry:vmlinu*:copy_notrace":       `^No matches for fentry copy_notrace\.$`,
		"kprobe:vmlinu?:nosuch_fn_*":        `^no kernel functions match nosuch_fn_\*$`,
		"fentry:vmlinuz*:vfs_read":          `^No matches for fentry vmlinuz\*:vfs_read\.$`,
		"kprobe:nosuch_fn_*":                `^no kernel functions match nosuch_fn_\*$`,
		"kprobe:md_mod:md_flush_request":    `^specified module md_mod in probe kprobe:md_mod:md_flush_request is not loaded\.$`,
		"kprobe:zz_mod:zz_mod_fn":           `^kernel module functions are not supported yet \(zz_mod\)$`,
		"kprobe:lookup_fast.cold":           `^No matches for kprobe lookup_fast\.cold\.$`,
	} {
		_, err := env.expand(raw)
		if err == nil || !regexp.MustCompile(want).MatchString(err.Error()) {
			t.Errorf("%s: error %v, want %s", raw, err, want)
		}
	}
	// A kernel that loads no modules does not suggest one; a function
	// kallsyms lacks is bpftrace's "not traceable".
	plain := symsEnv{spec: env.spec, syms: tracefs.NewSymbols([]string{"vfs_read"}, nil, nil, false, nil)}
	_, err := plain.expand("kprobe:md_flush_request")
	var nt *provider.NotTraceable
	if !errors.As(err, &nt) || nt.Error() != "No matches for kprobe md_flush_request." ||
		nt.Warning() != `md_flush_request is not traceable (either non-existing, inlined, or marked as "notrace"); attaching to it will likely fail` {
		t.Errorf("kprobe:md_flush_request without modules: %v", err)
	}
}

// TestKprobeWildcardNames: kprobe wildcards match the names of
// available_filter_functions, compiler suffixes included, fragments
// (.part.N) only when the pattern says so; without the list, kallsyms
// names whose function (or base name) is in BTF.
func TestKprobeWildcardNames(t *testing.T) {
	names := func(env provider.ExpandEnv, raw string) string {
		pts, err := expandIn(env, raw)
		if err != nil {
			return "error: " + err.Error()
		}
		var s []string
		for _, p := range pts {
			s = append(s, p.Name)
			if strings.Contains(p.Func, ".") && p.FuncProto() != nil {
				t.Errorf("%s: renamed %s has a BTF prototype", raw, p.Func)
			}
		}
		return strings.Join(s, " ")
	}
	env := fakeKernel(t, true)
	for raw, want := range map[string]string{
		"kprobe:lookup_fast.constprop.*": "kprobe:lookup_fast.constprop.0",
		"kprobe:lookup_fast*":            "kprobe:lookup_fast.constprop.0",
		"kprobe:vfs_*":                   "kprobe:vfs_open.isra.0 kprobe:vfs_read kprobe:vfs_write",
		"kretprobe:vfs_*":                "kretprobe:vfs_open.isra.0 kretprobe:vfs_read kretprobe:vfs_write",
		"kprobe:*.part.*":                "kprobe:vfs_statfs.part.0.isra.0 kprobe:walk_component.part.0",
		"kprobe:walk_component*":         "kprobe:walk_component.isra.0",
		"fentry:vfs_*":                   "fentry:vfs_read fentry:vfs_write",
	} {
		if got := names(env, raw); got != want {
			t.Errorf("%s: %s, want %s", raw, got, want)
		}
	}
	// No available_filter_functions: kallsyms names with a BTF name,
	// without duplicates, blacklisted functions and fragments.
	noFtrace := fakeKernel(t, false)
	for raw, want := range map[string]string{
		"kprobe:vfs_*":         "kprobe:vfs_open.isra.0 kprobe:vfs_read kprobe:vfs_write",
		"kprobe:lookup_fast*":  "kprobe:lookup_fast.constprop.0",
		"kprobe:*.part.*":      "kprobe:walk_component.part.0", // vfs_statfs is not in this BTF
		"kprobe:zz_renamed*":   "error: no kernel functions match zz_renamed*",
		"kprobe:copy_notrace*": "error: no kernel functions match copy_notrace*",
	} {
		if got := names(noFtrace, raw); got != want {
			t.Errorf("without available_filter_functions: %s: %s, want %s", raw, got, want)
		}
	}
}

// TestKprobeMultiNeedsFtrace: kprobe_multi attaches through ftrace, so a
// probe with a function outside it takes one kprobe per function.
func TestKprobeMultiNeedsFtrace(t *testing.T) {
	env := fakeKernel(t, true)
	def := provider.Lookup("kprobe")
	var all []*provider.Point
	for _, raw := range []string{"kprobe:vfs_*", "kprobe:copy_notrace"} {
		pts, err := env.expand(raw)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, pts...)
	}
	f := provider.Features{KprobeMulti: true}
	if prog := def.Compile(all[:3], f, &object.Probe{}); prog.AttachType.String() != "TraceKprobeMulti" {
		t.Errorf("vfs_*: attach type %v, want kprobe_multi", prog.AttachType)
	}
	if prog := def.Compile(all, f, &object.Probe{}); prog.AttachType.String() == "TraceKprobeMulti" {
		t.Errorf("vfs_* and copy_notrace: attach type %v, want kprobes", prog.AttachType)
	}
}

// TestKprobeAddress: kprobe:ADDRESS needs --unsafe, as in bpftrace, and is
// named by the address in decimal; a missing function with --unsafe is
// left for the kernel to refuse.
func TestKprobeAddress(t *testing.T) {
	env := fakeKernel(t, true)
	if _, err := env.expand("kprobe:0x12345678"); err == nil || err.Error() != "Probing by address requires --unsafe" {
		t.Errorf("kprobe:0x12345678 without --unsafe: %v", err)
	}
	unsafe := provider.WithTarget(env, provider.Target{Unsafe: true})
	for raw, want := range map[string]string{
		"kprobe:0x12345678":   "kprobe:305419896",
		"kretprobe:305419896": "kretprobe:305419896",
	} {
		pts, err := expandIn(unsafe, raw)
		if err != nil || len(pts) != 1 || pts[0].Name != want {
			t.Errorf("%s with --unsafe: %v, %v; want %s", raw, pts, err, want)
		}
	}
	// The point keeps the module the script wrote: bpftrace names it so
	// when the kernel refuses it.
	wantNotTraceable(t, unsafe, "kprobe:vmlinux:nosuch", "No matches for kprobe vmlinux:nosuch.", "kprobe:vmlinux:nosuch")
	wantNotTraceable(t, unsafe, "kretprobe:nosuch", "No matches for kretprobe nosuch.", "kretprobe:nosuch")
}

// wantNotTraceable expands raw in env and wants a NotTraceable error with
// msg, carrying the point named point (--unsafe) or none ("").
func wantNotTraceable(t *testing.T, env provider.ExpandEnv, raw, msg, point string) {
	t.Helper()
	_, err := expandIn(env, raw)
	var nt *provider.NotTraceable
	if !errors.As(err, &nt) || nt.Error() != msg || (point == "") != (nt.Points == nil) || point != "" && nt.Points[0].Name != point {
		t.Errorf("%s: %v (%+v), want %q with point %q", raw, err, nt, msg, point)
	}
}

// TestTraceableFunctionsFile: --traceable-functions decides which
// functions are traceable: a kprobe on another is not traceable (attached
// all the same with --unsafe), and wildcards match only the listed ones.
func TestTraceableFunctionsFile(t *testing.T) {
	env := fakeKernel(t, true)
	list := filepath.Join(t.TempDir(), "funcs")
	if err := os.WriteFile(list, []byte("vfs_write\nmod_fn [mod]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	given := provider.WithTarget(env, provider.Target{TraceableFunctions: list})
	wantNotTraceable(t, given, "kprobe:vfs_read", "No matches for kprobe vfs_read.", "")
	wantNotTraceable(t, provider.WithTarget(env, provider.Target{TraceableFunctions: list, Unsafe: true}), "kprobe:vfs_read", "No matches for kprobe vfs_read.", "kprobe:vfs_read")
	pts, err := expandIn(given, "kprobe:vfs_*")
	if err != nil || len(pts) != 1 || pts[0].Name != "kprobe:vfs_write" {
		t.Errorf("kprobe:vfs_*: %v, %v; want kprobe:vfs_write alone", pts, err)
	}
	if _, err := expandIn(provider.WithTarget(env, provider.Target{TraceableFunctions: list + ".missing"}), "kprobe:vfs_write"); err == nil {
		t.Error("a missing --traceable-functions file is no error")
	}
}
