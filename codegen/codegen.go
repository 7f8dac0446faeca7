package codegen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
)

// Options are the kernel-dependent inputs of code generation, decided by the
// runtime from feature probes.
type Options struct {
	// BTF is the kernel's BTF, used for typed arguments and struct members.
	BTF *btf.Spec
	// RingbufSize is the size of the event ring buffer in bytes (a power of
	// two multiple of the page size); 0 means 1 MiB.
	RingbufSize uint32
	// KprobeMulti: the kernel has kprobe_multi links (Linux 5.18 with
	// CONFIG_FPROBE); kprobe wildcards then compile to one program attached
	// through one link instead of one kprobe per function.
	KprobeMulti bool
	// FentryMultiThreshold: an fentry wildcard of at least this many
	// functions is served by one kprobe_multi program (arguments read from
	// pt_regs) instead of one trampoline per function; 0 disables it.
	// Needs KprobeMulti.
	FentryMultiThreshold int
	// HelperWarnings: report failing probe reads and map updates at run
	// time with their script position (bpftrace -k).
	HelperWarnings bool
	// DirectBTFLoads: in trampoline (fentry/fexit) and BTF raw tracepoint
	// programs, members reached through BTF-typed pointers (args and the
	// pointers loaded from them) are read with plain loads, which the
	// verifier checks against BTF, instead of bpf_probe_read_kernel.
	DirectBTFLoads bool
}

// Map names used in the collection for the runtime's own maps.
const (
	eventsMapName  = "events"
	globalsMapName = "globals"
	droppedMapName = "dropped"
)

// ErrStackLimit is returned (wrapped, with the script position) when a probe
// needs more than the 512 bytes of BPF stack.
var ErrStackLimit = errors.New("BPF stack limit of 512 bytes exceeded")

// Error is a code generation failure tied to a script position.
type Error struct {
	Pos ast.Pos
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: error: %v", e.Pos, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Compile generates BPF for a checked program. It never touches the kernel.
func Compile(prog *lang.Program, opts Options) (*object.Program, error) {
	if opts.RingbufSize == 0 {
		opts.RingbufSize = 1 << 20
	}
	c := &compiler{
		prog: prog,
		opts: opts,
		out: &object.Program{
			Collection: &ebpf.CollectionSpec{
				Maps:     map[string]*ebpf.MapSpec{},
				Programs: map[string]*ebpf.ProgramSpec{},
			},
			EventsMap:  eventsMapName,
			DroppedMap: droppedMapName,
		},
		mapIndex: map[string]int{},
		printfs:  map[string]int{},
	}
	if prog.File != nil {
		c.out.Source = prog.File.Src
	}
	c.out.Collection.Maps[eventsMapName] = &ebpf.MapSpec{
		Name:       eventsMapName,
		Type:       ebpf.RingBuf,
		MaxEntries: opts.RingbufSize,
	}
	c.out.Collection.Maps[droppedMapName] = &ebpf.MapSpec{
		Name:       droppedMapName,
		Type:       ebpf.PerCPUArray,
		KeySize:    4,
		ValueSize:  8,
		MaxEntries: 1,
	}
	c.out.Globals = object.GlobalsLayout{Size: 16, StartNsOffset: 0, StartBootOffset: 8}
	for _, name := range prog.MapNames() {
		if err := c.declareMap(prog.Maps[name]); err != nil {
			return nil, err
		}
	}
	for i, p := range prog.Probes {
		if err := c.compileProbe(i, p); err != nil {
			return nil, err
		}
	}
	return c.out, nil
}

type compiler struct {
	prog     *lang.Program
	opts     Options
	out      *object.Program
	mapIndex map[string]int // user map name → index in out.Maps
	printfs  map[string]int // dedup key → index in out.Printfs
	begins   int
	ends     int
}

// mapKeyType returns the BPF key layout for a map.
func mapKeyType(keys []*types.Type, v *types.Type) *types.Type {
	elems := append([]*types.Type(nil), keys...)
	if v.Kind == types.Hist || v.Kind == types.Lhist || v.Kind == types.Tseries {
		elems = append(elems, types.Uint64)
	}
	if len(elems) == 0 {
		return types.Uint64
	}
	return types.NewTuple(elems, nil)
}

func (c *compiler) declareMap(mt *lang.MapType) error {
	if mt.Value == nil {
		return &Error{Pos: mt.Pos, Err: fmt.Errorf("map %s is never assigned a value", mt.Name)}
	}
	m := &object.Map{
		Name:    mt.Name,
		BPFName: bpfMapName(len(c.out.Maps)),
		Keys:    mt.Keys,
		Key:     mapKeyType(mt.Keys, mt.Value),
		Value:   mt.Value,
		PerCPU:  mt.Value.IsAggregation(),
	}
	spec := &ebpf.MapSpec{
		Name:       m.BPFName,
		Type:       ebpf.Hash,
		KeySize:    uint32(m.Key.Size),
		ValueSize:  uint32(valueSize(m.Value)),
		MaxEntries: uint32(c.prog.MaxMapKeys),
	}
	if m.PerCPU {
		spec.Type = ebpf.PerCPUHash
	}
	if mt.MaxEntries > 0 {
		spec.MaxEntries = uint32(mt.MaxEntries)
	}
	switch mt.Decl {
	case "lruhash", "percpulruhash":
		spec.Type = ebpf.LRUHash
		if m.PerCPU {
			spec.Type = ebpf.LRUCPUHash
		}
	}
	c.mapIndex[mt.Name] = len(c.out.Maps)
	c.out.Maps = append(c.out.Maps, m)
	c.out.Collection.Maps[m.BPFName] = spec
	return nil
}

func bpfMapName(i int) string { return fmt.Sprintf("m%d", i) }

// valueSize is the stored size of a map value.
func valueSize(t *types.Type) int {
	switch t.Kind {
	case types.Count, types.Sum, types.Hist, types.Lhist:
		return 8
	case types.Min, types.Max, types.Avg, types.Stats:
		return 16
	case types.Tseries:
		return 24
	case types.Int:
		return 8
	case types.Bool:
		return 8
	}
	return roundUp(t.Size, 8)
}

func roundUp(n, a int) int { return (n + a - 1) / a * a }

func (c *compiler) compileProbe(i int, p *lang.Probe) error {
	pt := p.Points[0]
	probe := &object.Probe{Name: pt.Name, Program: fmt.Sprintf("p%d", i)}
	var typ ebpf.ProgramType
	var attach ebpf.AttachType
	switch pt.Provider {
	case "begin":
		probe.Kind, typ, probe.Order = object.ProbeBegin, ebpf.RawTracepoint, c.begins
		c.begins++
	case "end":
		probe.Kind, typ, probe.Order = object.ProbeEnd, ebpf.RawTracepoint, c.ends
		c.ends++
	case "tracepoint":
		probe.Kind, typ = object.ProbeTracepoint, ebpf.TracePoint
		for _, p := range p.Points {
			probe.Targets = append(probe.Targets, p.Category+":"+p.Event)
		}
	case "interval", "profile":
		probe.Kind, typ = object.ProbeInterval, ebpf.PerfEvent
		if pt.Provider == "profile" {
			probe.Kind = object.ProbeProfile
		}
		switch pt.Unit {
		case "s":
			probe.Period = pt.Value * 1e9
		case "ms":
			probe.Period = pt.Value * 1e6
		case "us":
			probe.Period = pt.Value * 1e3
		case "hz":
			if probe.Kind == object.ProbeProfile {
				probe.Freq = pt.Value
			} else {
				probe.Period = 1e9 / pt.Value
			}
		}
	case "software":
		probe.Kind, typ = object.ProbeSoftware, ebpf.PerfEvent
		probe.Config = lang.SoftwareEvents()[pt.Event][0]
		probe.Period = pt.Value
	case "kprobe", "kretprobe", "fentry", "fexit", "rawtracepoint", "uprobe", "uretprobe":
		typ, attach = c.kernelProbe(p, probe)
	default:
		return &Error{Pos: pt.Pos, Err: fmt.Errorf("%s probes are not supported by the code generator", pt.Provider)}
	}
	probe.Group = &object.Group{Written: written(p), Size: len(probe.Targets)}
	g := newGen(c, p)
	insns, err := g.program()
	if err != nil {
		return err
	}
	spec := &ebpf.ProgramSpec{
		Name:         probe.Program,
		Type:         typ,
		AttachType:   attach,
		Instructions: insns,
		License:      "GPL",
	}
	if typ == ebpf.Tracing {
		// A trampoline or BTF raw tracepoint is bound to its target at load
		// time: one program per target, sharing the instructions.
		for j, target := range probe.Targets {
			one := *probe
			one.Name = p.Points[j].Name
			one.Targets = []string{target}
			if len(probe.Targets) > 1 {
				one.Program = fmt.Sprintf("%s_%d", probe.Program, j)
			}
			s := spec.Copy()
			s.Name = one.Program
			s.AttachTo = target
			c.out.Collection.Programs[one.Program] = s
			c.out.Probes = append(c.out.Probes, &one)
		}
		return nil
	}
	c.out.Collection.Programs[probe.Program] = spec
	c.out.Probes = append(c.out.Probes, probe)
	return nil
}

// addPrintf registers a printf-style event layout and returns its index.
func (c *compiler) addPrintf(p *object.Printf) int {
	var key strings.Builder
	fmt.Fprintf(&key, "%q %v %v", p.Format, p.Pos, p.Expanded)
	for _, a := range p.Args {
		fmt.Fprintf(&key, "|%s@%d", a.Type, a.Offset)
	}
	if i, ok := c.printfs[key.String()]; ok {
		return i
	}
	c.out.Printfs = append(c.out.Printfs, p)
	c.printfs[key.String()] = len(c.out.Printfs) - 1
	return len(c.out.Printfs) - 1
}

func (c *compiler) addTime(format string) int {
	for i, f := range c.out.Times {
		if f == format {
			return i
		}
	}
	c.out.Times = append(c.out.Times, format)
	return len(c.out.Times) - 1
}

// fullMapName counts, per user map, the updates dropped because the map
// was full.
const fullMapName = "full"

// useFullMap makes sure the dropped-updates counters exist.
func (c *compiler) useFullMap() {
	if c.out.FullMap != "" {
		return
	}
	c.out.FullMap = fullMapName
	c.out.Collection.Maps[fullMapName] = &ebpf.MapSpec{
		Name:       fullMapName,
		Type:       ebpf.PerCPUArray,
		KeySize:    4,
		ValueSize:  8,
		MaxEntries: uint32(max(len(c.out.Maps), 1)),
	}
}

// stackMapName is the stack trace map of kstack.
const stackMapName = "stacks"

// useStacks makes sure the stack trace map exists.
func (c *compiler) useStacks() {
	if c.out.StackMap != "" {
		return
	}
	c.out.StackMap = stackMapName
	c.out.Collection.Maps[stackMapName] = &ebpf.MapSpec{
		Name:       stackMapName,
		Type:       ebpf.StackTrace,
		KeySize:    4,
		ValueSize:  uint32(8 * lang.MaxStackFrames),
		MaxEntries: uint32(c.prog.MaxMapKeys),
	}
}

// useGlobals makes sure the globals map exists.
func (c *compiler) useGlobals() {
	if c.out.GlobalsMap != "" {
		return
	}
	c.out.GlobalsMap = globalsMapName
	c.out.Collection.Maps[globalsMapName] = &ebpf.MapSpec{
		Name:       globalsMapName,
		Type:       ebpf.Array,
		KeySize:    4,
		ValueSize:  uint32(c.out.Globals.Size),
		MaxEntries: 1,
	}
}

// written returns the attach points of p as the script wrote them: those
// of the AST probe that p's points were expanded from.
func written(p *lang.Probe) string {
	var raws []string
	for _, a := range p.AST.Attach {
		for _, pt := range p.Points {
			if pt.Pos == a.Pos() {
				raws = append(raws, a.Raw)
				break
			}
		}
	}
	if len(raws) == 0 {
		for _, a := range p.AST.Attach {
			raws = append(raws, a.Raw)
		}
	}
	return strings.Join(raws, ", ")
}
