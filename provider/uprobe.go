package provider

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// uprobeProvider is uprobe:BINARY:FUNCTION[+OFFSET] or
// uprobe:BINARY:0xADDRESS: arguments in pt_regs, user memory.
var uprobeProvider = uprobe("uprobe", "u", false)

// uretprobeProvider is uretprobe:BINARY:FUNCTION: retval in pt_regs.
var uretprobeProvider = uprobe(uretprobeKind, "ur", true)

// uretprobeKind names the return probe, which takes no offset.
const uretprobeKind = "uretprobe"

func uprobe(name, alias string, ret bool) *Provider {
	p := &Provider{
		Name:    name,
		Aliases: []string{alias},
		Expand: func(env ExpandEnv, raw string, parts []string) ([]*Point, error) {
			return expandUprobe(name, env, raw, parts)
		},
		Ctx:           CtxPtRegs,
		Func:          true,
		UserArgs:      always, // pointers in registers are user memory
		ProbeType:     name,
		UserBinary:    true,
		Binaries:      targetFiles,
		MultiLink:     UprobeMultiLink,
		SharesProgram: true,
		Compile: func(pts []*Point, _ Features, probe *object.Probe) Program {
			probe.Provider = name
			for _, pp := range pts {
				probe.Targets = append(probe.Targets, BinaryTarget{File: pp.Module, Func: pp.Func, Offset: pp.Offset})
			}
			return Program{Type: ebpf.Kprobe, AttachType: ebpf.AttachNone, Ctx: CtxPtRegs}
		},
		Attach: func(a Attacher, p *object.Probe, prog *ebpf.Program) (int, error) {
			syms := uprobeSymbols{}
			if a.AttachType(p) == ebpf.AttachTraceUprobeMulti {
				return attachUprobeMulti(a, p, prog, ret, syms)
			}
			for _, t := range p.Targets {
				if err := attachUprobe(a, p, prog, t, ret, syms); err != nil {
					return 0, err
				}
			}
			return len(p.Targets), nil
		},
		List: func(w io.Writer, env ListEnv, pattern string, verbose bool) error {
			return listUprobes(w, name, env, pattern, verbose && !ret)
		},
		Listing: func(pt *Point) (string, bool) {
			if pt.Lang != LangCpp {
				return pt.Name, true
			}
			// quoted, so that the line is an attach point as written
			return name + ":" + pt.Module + ":" + pt.Lang + ":\"" + Demangle(pt.Func) + "\"", true
		},
		ListUser:      !ret, // bpftrace's user-space list has uprobe, not uretprobe
		AttachReverse: true,
	}
	if ret {
		// the return register of a user function, without a prototype
		p.RetvalType = func(Typer, []*Point) (*types.Type, string) { return types.Uint64, "" }
		p.ArgsErr = "args is not available in uretprobe probes (the argument registers are overwritten when the function returns): use a uprobe"
	} else {
		p.ArgN = true
		p.ArgsType = ArgsBuilder.DWARFArgs
		p.ArgsErr = "args needs DWARF debug information: the binary has none (build it with -g, or give its debug file with --debuginfo): use arg0...arg5"
	}
	return p
}

// targetFiles are the files of a uprobe's targets.
func targetFiles(p *object.Probe) []string {
	var out []string
	for _, t := range p.Targets {
		if t, ok := t.(BinaryTarget); ok {
			out = append(out, t.File)
		}
	}
	return out
}

// binaries returns the environment's Binaries.
func binaries(env ExpandEnv) (Binaries, error) {
	if b, ok := env.(Binaries); ok {
		return b, nil
	}
	return nil, ErrNoHostFiles
}

// elfFunctions lists the function symbols of an ELF file.
func elfFunctions(b Binaries, file string) (map[string]bool, error) {
	syms, err := b.ELFSymbols(file)
	if err != nil {
		return nil, err
	}
	funcs := map[string]bool{}
	for _, s := range syms {
		if s.Func {
			funcs[s.Name] = true
		}
	}
	return funcs, nil
}

// expandUprobe expands uprobe:BINARY:FUNC[+OFF], uprobe:BINARY:0xADDR and
// wildcards over the binary's function symbols (uretprobe likewise).
func expandUprobe(kind string, env ExpandEnv, raw string, parts []string) ([]*Point, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("%s must be %s:BINARY:FUNCTION, got %q", kind, kind, raw)
	}
	ret := kind == uretprobeKind
	if target, src, ok := strings.Cut(parts[0], "@"); ok && target != "" {
		if ret {
			return nil, fmt.Errorf("Source code location not allowed")
		}
		return expandSourceLine(kind, env, target, src, parts[1:])
	}
	parts = pidExecutable(TargetOf(env).Pid, parts)
	lang := ""
	if len(parts) == 3 {
		lang, parts = parts[1], []string{parts[0], parts[2]}
		if lang != LangCpp {
			return nil, fmt.Errorf("unsupported language type: %s", lang)
		}
	}
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("%s must be %s:BINARY:[cpp:]FUNCTION, got %q", kind, kind, raw)
	}
	b, err := binaries(env)
	if err != nil {
		return nil, err
	}
	bins, err := uprobeBinaries(env, b, parts[0])
	if err != nil {
		return nil, err
	}
	fn := parts[1]
	if addr, ok := parseUprobeAddress(fn); ok {
		if len(bins) != 1 {
			return nil, fmt.Errorf("%s: an address needs one binary, %q matches %d", kind, parts[0], len(bins))
		}
		bin := bins[0]
		fn = fmt.Sprintf("0x%x", addr)
		return []*Point{{Name: kind + ":" + bin + ":" + fn, Module: bin, Func: fn}}, nil
	}
	var offset uint64
	if i := strings.IndexByte(fn, '+'); i >= 0 {
		if ret {
			// as bpftrace: a return probe is at a function's entry
			return nil, fmt.Errorf("Offset not allowed")
		}
		v, err := strconv.ParseUint(fn[i+1:], 0, 64)
		if err != nil {
			return nil, fmt.Errorf("invalid uprobe offset %q", fn[i+1:])
		}
		fn, offset = fn[:i], v
	}
	var out []*Point
	for _, bin := range bins {
		funcs, err := binaryFuncs(b, bin)
		if err != nil {
			if len(bins) > 1 {
				continue // not every mapped or matched file is ELF
			}
			return nil, err
		}
		var names []string
		switch {
		case lang == LangCpp:
			// a C++ name may match several symbols without a
			// wildcard: overloads
			for name := range funcs {
				if cppMatch(fn, name) {
					names = append(names, name)
				}
			}
			sort.Strings(names)
		case HasGlob(fn):
			for name := range funcs {
				if ok, _ := path.Match(fn, name); ok {
					names = append(names, name)
				}
			}
			sort.Strings(names)
		default:
			if _, ok := funcs[fn]; ok {
				names = []string{fn}
			}
		}
		prefix := kind + ":" + bin + ":"
		if lang != "" {
			prefix += lang + ":"
		}
		for _, n := range names {
			pt := &Point{Name: prefix + n, Module: bin, Func: n, Offset: offset, Lang: lang}
			if Mangled(n) && !TargetOf(env).NoCppDemangle {
				pt.Demangled = Demangle(n)
			}
			if offset != 0 {
				pt.Name += fmt.Sprintf("+%d", offset)
			}
			out = append(out, pt)
		}
	}
	if len(out) == 0 {
		where := parts[0]
		if len(bins) == 1 {
			where = bins[0]
		}
		if lang != "" {
			where += ":" + lang
		}
		msg := fmt.Sprintf("No matches for %s %s:%s.", kind, where, parts[1])
		if lang != "" || HasGlob(fn) {
			// expanded as a wildcard (a C++ name as one too, for its
			// overloads): dropped quietly beside other attach points
			return nil, noMatch(msg)
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

// listUprobes lists the functions of binaries as bpftrace -l does: the
// pattern is BINARY:FUNCTION-GLOB, or FUNCTION-GLOB alone for every binary
// of the -p process; BINARY may be a glob over files, or * with -p.
// verbose lists the parameters DWARF gives each function.
func listUprobes(w io.Writer, kind string, env ListEnv, pattern string, verbose bool) error {
	target, fnPattern, ok := strings.Cut(pattern, ":")
	if !ok {
		target, fnPattern = "*", pattern
	}
	if target == "" || target == "*" && TargetOf(env).Pid == 0 {
		return fmt.Errorf("%s listing needs a binary or -p: %s:BINARY:FUNCTION", kind, kind)
	}
	lang := ""
	if l, rest, ok := strings.Cut(fnPattern, ":"); ok && l == LangCpp {
		lang, fnPattern = l, rest
	}
	if fnPattern == "" {
		fnPattern = "*"
	}
	b, err := binaries(env)
	if err != nil {
		return err
	}
	bins, err := uprobeBinaries(env, b, target)
	if err != nil {
		return err
	}
	for _, bin := range bins {
		funcs, err := elfFunctions(b, bin)
		if err != nil {
			if len(bins) > 1 {
				continue
			}
			return err
		}
		names := make([]string, 0, len(funcs))
		for n := range funcs {
			if lang == LangCpp && cppMatch(fnPattern, n) || lang == "" && matchGlob(fnPattern, n) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		var params func(string) []string
		if verbose {
			params = dwarfParams(env, bin)
		}
		for _, n := range names {
			if lang == LangCpp {
				// as a program's C++ probes list (the Listing hook)
				fmt.Fprintf(w, "%s:%s:%s:\"%s\"\n", kind, bin, lang, Demangle(n))
			} else {
				fmt.Fprintf(w, "%s:%s:%s\n", kind, bin, n)
			}
			if params != nil {
				for _, p := range params(n) {
					fmt.Fprintf(w, "    %s\n", p)
				}
			}
		}
	}
	return nil
}

// dwarfParams returns a function listing the parameters of a function of
// bin as -lv shows them ("int* n"), or nil (with a warning on stderr, as
// bpftrace) when bin has no DWARF.
func dwarfParams(env ListEnv, bin string) func(string) []string {
	di, ok := env.(DebugInfo)
	if !ok {
		return nil
	}
	f, err := di.DebugInfo(bin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "WARNING: No DWARF found for \"%s\", cannot show parameter info\n", bin)
		return nil
	}
	return func(fn string) []string {
		fd, err := f.Func(fn)
		if err != nil {
			return nil
		}
		out := make([]string, len(fd.Params))
		for i, p := range fd.Params {
			out[i] = p.Decl()
		}
		return out
	}
}

// uprobeTarget is a uprobe target resolved for attaching: the file on disk
// and either the file offset (Address, when the symbol tables read here
// give it) or the symbol and offset in it for the library to find; atZero:
// an address probe at file offset 0, which the library takes for "none".
type uprobeTarget struct {
	file   string // the path on disk (an archive for "ARCHIVE!/ENTRY")
	sym    string
	opts   link.UprobeOptions
	atZero bool
}

// resolveUprobe resolves a target "PATH:SYMBOL", "PATH:SYMBOL+OFFSET" or
// "PATH:0xADDRESS" of p, with bpftrace's checks and messages (the
// symbol's bounds, --unsafe for a symbol without size).
func resolveUprobe(a Attacher, p *object.Probe, target object.Target, ret bool, syms uprobeSymbols) (uprobeTarget, error) {
	bt, err := TargetAs[BinaryTarget](p, target)
	if err != nil {
		return uprobeTarget{}, err
	}
	file, sym := bt.File, bt.Func
	onDisk, _, inArchive := strings.Cut(file, "!/") // the probe is on the archive at the entry's offset
	t := uprobeTarget{file: onDisk, opts: link.UprobeOptions{PID: tracedPid(a)}}
	if addr, ok := parseUprobeAddress(sym); ok {
		if t.opts.Address, err = syms.address(file, addr, ret, a.Unsafe()); err != nil {
			return uprobeTarget{}, err
		}
		t.atZero = t.opts.Address == 0
		return t, nil
	}
	off := bt.Offset
	addr, err := syms.symbol(file, sym, off, ret, a.Unsafe())
	if err != nil {
		return uprobeTarget{}, err
	}
	switch {
	case addr != 0:
		t.opts.Address = addr
	case inArchive:
		return uprobeTarget{}, fmt.Errorf("attach %s: no function %s in %s", p.Name, sym, file)
	default:
		t.sym, t.opts.Offset = sym, off // not in the symbol tables read here: let the library find it
	}
	return t, nil
}

// attachUprobe attaches to a target PATH:SYMBOL, PATH:SYMBOL+OFFSET or
// PATH:0xADDRESS (a BinaryTarget), for the -p process only when given.
func attachUprobe(a Attacher, p *object.Probe, prog *ebpf.Program, target object.Target, ret bool, syms uprobeSymbols) error {
	t, err := resolveUprobe(a, p, target, ret, syms)
	if err != nil {
		return err
	}
	if t.atZero {
		if err := attachUprobeAt(a, prog, t.file, 0, ret); err != nil {
			return fmt.Errorf("attach %s: %w", p.Name, err)
		}
		return nil
	}
	ex, err := link.OpenExecutable(t.file)
	if err != nil {
		return fmt.Errorf("attach %s: %w", p.Name, err)
	}
	var l link.Link
	if ret {
		l, err = ex.Uretprobe(t.sym, prog, &t.opts)
	} else {
		l, err = ex.Uprobe(t.sym, prog, &t.opts)
	}
	if err != nil {
		return fmt.Errorf("attach %s to %s: %w", p.Name, target, err)
	}
	a.Push(l)
	return nil
}

// expandSourceLine expands uprobe:BINARY@FILE:LINE[:COL]: the address the
// binary's DWARF line table gives the first statement of the line, as an
// offset in the function symbol that holds it.
func expandSourceLine(kind string, env ExpandEnv, target, src string, rest []string) ([]*Point, error) {
	if src == "" || len(rest) < 1 || len(rest) > 2 || rest[0] == "" {
		return nil, fmt.Errorf("invalid uprobe arguments, expected format: %s:TARGET@FILE:LINE[:COL]", kind)
	}
	if HasGlob(target) {
		return nil, fmt.Errorf("cannot use wildcards with source code location")
	}
	line, err := strconv.Atoi(rest[0])
	if err != nil || line <= 0 {
		return nil, fmt.Errorf("invalid line number %q", rest[0])
	}
	col := 0
	if len(rest) == 2 {
		if col, err = strconv.Atoi(rest[1]); err != nil || col <= 0 {
			return nil, fmt.Errorf("invalid column number %q", rest[1])
		}
	}
	b, err := binaries(env)
	if err != nil {
		return nil, err
	}
	bin, err := b.ResolveBinary(target)
	if err != nil {
		return nil, err
	}
	di, ok := env.(DebugInfo)
	if !ok {
		return nil, ErrNoHostFiles
	}
	f, err := di.DebugInfo(bin)
	if err != nil {
		return nil, fmt.Errorf("no DWARF debug info found for '%s', cannot attach by source code location: %w", target, err)
	}
	addr, err := f.LineAddress(src, line, col)
	if err != nil {
		return nil, err
	}
	syms, err := b.ELFSymbols(bin)
	if err != nil {
		return nil, err
	}
	var best *ELFSymbol
	for i, s := range syms {
		if s.Func && s.Value <= addr && (best == nil || s.Value > best.Value) {
			best = &syms[i]
		}
	}
	if best == nil {
		return nil, fmt.Errorf("no function symbol of %s holds address 0x%x (%s:%d)", bin, addr, src, line)
	}
	name := fmt.Sprintf("%s:%s@%s:%s", kind, bin, src, strings.Join(rest, ":"))
	return []*Point{{Name: name, Module: bin, Func: best.Name, Offset: addr - best.Value}}, nil
}
