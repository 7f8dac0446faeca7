package provider

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/internal/usdt"
	"github.com/gotrace/gotrace/object"
)

// usdtProvider is usdt:BINARY:[NAMESPACE:]PROBE: a uprobe at each location
// of the USDT probe, arguments read as the probe's note specifies. Each
// location is its own instance (its arguments live in different places);
// a probe counts as one attach point however many locations it has, as in
// bpftrace. Semaphores are counted by the kernel (the uprobe's reference
// counter), so --usdt-file-activation has nothing to do.
var usdtProvider = &Provider{
	AttachReverse: true,
	Name:          "usdt",
	// usdt probes without a full target, or with -p, are one program per
	// match.
	ProgramPerMatch: func(parts []string, pid int) bool {
		return wildAt(parts, 0, 1, 2) || len(parts) < 3 || pid != 0
	},
	Aliases: []string{"U"},
	Expand:  expandUSDT,
	ArgsErr: "args is not available in usdt probes: use arg0...argN",
	Ctx:     CtxPtRegs,
	ArgN:    true,
	// argN are longs, up to 12, as bpftrace reads them with libbpf.
	ArgNMax:    MaxArgN,
	ArgNSigned: true,
	UserArgs:   always,
	ProbeType:  "usdt",
	// The binary's symbols serve ustack and uaddr as for uprobes.
	UserBinary: true,
	Compile: func(pts []*Point, _ Features, probe *object.Probe) Program {
		probe.Provider = "usdt"
		for _, pp := range pts {
			loc := pp.Data.(*usdtPoint)
			probe.Targets = append(probe.Targets, USDTTarget{File: pp.Module, Offset: loc.Offset, Semaphore: loc.SemaphoreOffset, First: loc.First})
		}
		return Program{Type: ebpf.Kprobe, AttachType: ebpf.AttachNone, Ctx: CtxPtRegs}
	},
	// argN are where the location's note says.
	ArgNAt: func(pt *Point, i int) (usdt.Arg, bool) {
		args := pt.Data.(*usdtPoint).Args
		if i >= len(args) {
			return usdt.Arg{}, false
		}
		return args[i], true
	},
	Attach: attachUSDT,
	// A probe counts once, however many locations it has.
	Count: func(p *object.Probe) int {
		n := 0
		for _, t := range p.Targets {
			if t, ok := t.(USDTTarget); ok && t.First {
				n++
			}
		}
		return n
	},
	List:    listUSDT,
	ListAll: true,
}

// usdtPoint is the Point.Data of a usdt point: one location of a USDT
// probe (the Point's Module is the binary, its Func "NAMESPACE:PROBE").
type usdtPoint struct {
	usdt.Probe
	// First: the first location of its probe in the binary (the one that
	// counts as an attach point).
	First bool
}

// targetPid returns the -p process of env, 0 for none.
func targetPid(env ExpandEnv) int { return TargetOf(env).Pid }

// usdtSpec is a parsed usdt:BINARY:[NAMESPACE:]PROBE.
type usdtSpec struct {
	binary, ns, name string
}

// parseUSDT splits the parts after the provider; an empty namespace or a
// missing one matches every namespace.
func parseUSDT(raw string, parts []string) (usdtSpec, error) {
	var s usdtSpec
	switch len(parts) {
	case 2:
		s = usdtSpec{parts[0], "*", parts[1]}
	case 3:
		s = usdtSpec{parts[0], parts[1], parts[2]}
	default:
		if len(parts) == 1 {
			return s, fmt.Errorf("usdt probe must have a target function or wildcard")
		}
		return s, fmt.Errorf("usdt probe must be usdt:BINARY:[NAMESPACE:]PROBE, got %q", raw)
	}
	if s.ns == "" {
		s.ns = "*"
	}
	if s.name == "" {
		return s, fmt.Errorf("usdt probe must have a target function or wildcard")
	}
	return s, nil
}

// usdtBinary is one file searched for probes: Path is opened, Name is
// what probe names show.
type usdtBinary struct{ Path, Name string }

// usdtBinaries returns the files a BINARY part names: the executable
// mappings of the -p process for "" or "*", the matches of a glob, or one
// file.
func usdtBinaries(env ExpandEnv, target string, pid int) ([]usdtBinary, error) {
	if target == "" && pid == 0 {
		return nil, fmt.Errorf("usdt probe must specify at least path or pid to probe. To target all paths/pids set the path to '*'.")
	}
	if target == "" || target == "*" {
		if pid == 0 {
			return nil, fmt.Errorf("usdt probes on every process (usdt:*:...) are not supported yet: use -p PID or a path")
		}
		return processBinaries(pid)
	}
	if HasGlob(target) {
		matches, err := filepath.Glob(target)
		if err != nil {
			return nil, fmt.Errorf("bad binary pattern %q: %w", target, err)
		}
		var out []usdtBinary
		for _, m := range matches {
			if strings.HasPrefix(target, "./") && !strings.HasPrefix(m, "./") {
				m = "./" + m
			}
			if fi, err := os.Stat(m); err == nil && fi.Mode().IsRegular() {
				out = append(out, usdtBinary{m, m})
			}
		}
		return out, nil
	}
	b, err := binaries(env)
	if err != nil {
		return nil, err
	}
	bin, err := b.ResolveBinary(target)
	if err != nil && pid != 0 && strings.HasPrefix(target, "/") {
		// A file of the process's mount namespace.
		alt := fmt.Sprintf("/proc/%d/root%s", pid, target)
		if _, serr := os.Stat(alt); serr == nil {
			return []usdtBinary{{alt, target}}, nil
		}
	}
	if err != nil {
		if errors.Is(err, ErrNoHostFiles) {
			return nil, err
		}
		return nil, fmt.Errorf("usdt target file '%s' does not exist or is not executable", target)
	}
	return []usdtBinary{{bin, bin}}, nil
}

// processBinaries lists the files a process maps, as pidBinaries.
func processBinaries(pid int) ([]usdtBinary, error) {
	paths, err := pidBinaries(pid)
	if err != nil {
		return nil, err
	}
	out := make([]usdtBinary, len(paths))
	for i, p := range paths {
		out[i] = usdtBinary{p, p}
	}
	return out, nil
}

// usdtProbes reads the probes of a binary; a file without notes (or not
// an ELF file, when skipBad) has none.
func usdtProbes(path string, skipBad bool) ([]usdt.Probe, error) {
	probes, err := usdt.ReadFile(path)
	if errors.Is(err, usdt.ErrNoNotes) || (err != nil && skipBad) {
		return nil, nil
	}
	return probes, err
}

// expandUSDT expands usdt:BINARY:[NAMESPACE:]PROBE to one point per
// location of every matching probe.
func expandUSDT(env ExpandEnv, raw string, parts []string) ([]*Point, error) {
	spec, err := parseUSDT(raw, parts)
	if err != nil {
		return nil, err
	}
	pid := targetPid(env)
	bins, err := usdtBinaries(env, spec.binary, pid)
	if err != nil {
		return nil, err
	}
	many := len(bins) > 1 || HasGlob(spec.binary) || spec.binary == ""
	var out []*Point
	for _, bin := range bins {
		probes, err := usdtProbes(bin.Path, many)
		if err != nil {
			return nil, err
		}
		first := map[string]bool{}
		for _, p := range probes {
			if !matchGlob(spec.ns, p.Provider) || !matchGlob(spec.name, p.Name) {
				continue
			}
			key := p.Provider + ":" + p.Name
			out = append(out, &Point{
				Name:   "usdt:" + bin.Name + ":" + key,
				Module: bin.Path,
				Func:   key,
				Data:   &usdtPoint{Probe: p, First: !first[key]},
			})
			first[key] = true
		}
	}
	// As bpftrace's matches, probes come sorted by name (the locations of
	// one probe in note order).
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	if len(out) == 0 {
		what := spec.name
		if len(parts) == 3 {
			what = parts[1] + ":" + what
		}
		if spec.binary != "" {
			what = spec.binary + ":" + what
		}
		return nil, fmt.Errorf("No matches for usdt %s.", what)
	}
	return out, nil
}

// attachUSDT attaches a uprobe at each location of the probe's targets,
// with the semaphore as its reference counter, for the -p process only
// when given.
func attachUSDT(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
	n := 0
	for _, pt := range p.Targets {
		t, err := TargetAs[USDTTarget](p, pt)
		if err != nil {
			return n, err
		}
		file, off := t.File, t.Offset
		ex, err := link.OpenExecutable(file)
		if err != nil {
			return n, fmt.Errorf("attach %s: %w", p.Name, err)
		}
		l, err := ex.Uprobe("", prog, &link.UprobeOptions{Address: off, RefCtrOffset: t.Semaphore, PID: tracedPid(a)})
		if err != nil {
			return n, fmt.Errorf("attach %s to %s at 0x%x: %w", p.Name, file, off, err)
		}
		a.Push(l)
		if t.First {
			n++
		}
	}
	return n, nil
}

// listUSDT lists the probes of usdt:BINARY:[NAMESPACE:]PROBE patterns, one
// line per probe (not per location), sorted; "*" lists the probes of the
// -p process (nothing without one).
func listUSDT(w io.Writer, env ListEnv, pattern string, _ bool) error {
	pid := targetPid(env)
	parts := SplitAttach(pattern)
	if pattern == "*" || pattern == "" {
		if pid == 0 {
			return nil
		}
		parts = []string{"*"}
	}
	if len(parts) == 1 {
		parts = append(parts, "*") // usdt:BINARY lists every probe
	}
	spec, err := parseUSDT("usdt:"+pattern, parts)
	if err != nil {
		return err
	}
	bins, err := usdtBinaries(env, spec.binary, pid)
	if err != nil {
		return err
	}
	many := len(bins) > 1 || HasGlob(spec.binary) || spec.binary == "" || spec.binary == "*"
	var lines []string
	for _, bin := range bins {
		probes, err := usdtProbes(bin.Path, many)
		if err != nil {
			return err
		}
		for _, p := range probes {
			if matchGlob(spec.ns, p.Provider) && matchGlob(spec.name, p.Name) {
				lines = append(lines, "usdt:"+bin.Name+":"+p.Provider+":"+p.Name)
			}
		}
	}
	// Sorted and unique, as bpftrace's set of matches.
	sort.Strings(lines)
	for i, l := range lines {
		if i == 0 || l != lines[i-1] {
			fmt.Fprintln(w, l)
		}
	}
	return nil
}
