package codegen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
)

// Options are the kernel-dependent inputs of code generation, decided by the
// runtime from feature probes.
type Options struct {
	// BTF is the kernel's BTF, used for typed arguments and struct members.
	BTF *btf.Spec
	// RingbufSize is the size of the event ring buffer in bytes (a power of
	// two multiple of the page size); 0 means 1 MiB.
	RingbufSize uint32
	// Features are the kernel-dependent choices (kprobe_multi, direct BTF
	// loads, long jumps, the syscall dispatchers).
	provider.Features
	// HelperWarnings: report failing probe reads and map updates at run
	// time with their script position (bpftrace -k).
	HelperWarnings bool
	// ThreadStatusOffset is the offset of thread_info.status in
	// task_struct, which the syscall dispatchers read to skip compat
	// syscalls, when the caller knows it without a decoded BTF spec
	// (btfnames.MemberOffset reads it from the raw blob in a few
	// milliseconds); 0 means unknown, and it is then looked up in BTF.
	ThreadStatusOffset int
	// Maps are the kernel layouts of maps that exist before the program
	// (a session's live maps, check.Options.Maps), by name ("@x"): a map
	// of the program with that name gets the same layout, so that the
	// runtime can give it the live map. A use that needs another kind
	// of map is an error.
	Maps map[string]*ebpf.MapSpec
	// HashMaps keeps every user map a hash (no per-CPU array for a keyless
	// aggregation; see arrayEntries), so that programs added to a session
	// later can use it any way.
	HashMaps bool
	// HistSum keeps, beside each hist() and lhist() bucket's count, the
	// sum of the values it recorded (object.Map.HistSum), for the _sum of
	// a Prometheus histogram (gotrace --metrics). It costs one add per
	// event; bpftrace's histograms do not keep it.
	HistSum bool
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
	Pos srcpos.Pos
	Err error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: error: %v", e.Pos, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Compile generates BPF for a checked program. It never touches the kernel.
func Compile(prog *check.Program, opts Options) (*object.Program, error) {
	if opts.RingbufSize == 0 {
		opts.RingbufSize = 1 << 20
	}
	c := &compiler{
		prog:  prog,
		opts:  opts,
		order: map[string]int{},
		out: &object.Program{
			Collection: &ebpf.CollectionSpec{
				Maps:     map[string]*ebpf.MapSpec{},
				Programs: map[string]*ebpf.ProgramSpec{},
			},
			EventsMap:     eventsMapName,
			DroppedMap:    droppedMapName,
			MissingProbes: prog.Config.MissingProbes,
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
		Type:       ebpf.Array,
		KeySize:    4,
		ValueSize:  8,
		MaxEntries: 1,
	}
	c.out.Globals = object.GlobalsLayout{Size: 16, StartNsOffset: 0, StartBootOffset: 8}
	c.needHash = mapsNeedingHash(prog)
	for _, name := range prog.MapNames() {
		if err := c.declareMap(prog.Maps[name]); err != nil {
			return nil, err
		}
	}
	c.planSyscalls()
	c.planSessions()
	c.planNames()
	for i, p := range prog.Probes {
		if c.sess.ret[i] {
			continue // compiled with its kprobe
		}
		if j, ok := c.sess.pair[i]; ok {
			merged, err := c.compileSession(i, j)
			if err != nil {
				return nil, err
			}
			if !merged {
				if err := c.compileProbe(i, p); err != nil {
					return nil, err
				}
				if err := c.compileProbe(j, prog.Probes[j]); err != nil {
					return nil, err
				}
			}
			continue
		}
		if err := c.compileProbe(i, p); err != nil {
			return nil, err
		}
	}
	c.emitDispatchers()
	return c.out, nil
}

type compiler struct {
	prog     *check.Program
	opts     Options
	out      *object.Program
	mapIndex map[string]int  // user map name → index in out.Maps
	needHash map[string]bool // maps used in ways a per-CPU array cannot serve
	printfs  map[string]int  // dedup key → index in out.Printfs
	order    map[string]int  // instances compiled so far, by provider
	sys      syscallPlan     // blocks served by the syscall dispatchers
	sess     sessionPlan     // kprobe/kretprobe pairs made one session program
	fnIndex  []int           // by instance, bpftrace's index of its first program (planNames)
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

func (c *compiler) declareMap(mt *check.MapType) error {
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
	if c.opts.HistSum && (m.Value.Kind == types.Hist || m.Value.Kind == types.Lhist) {
		m.HistSum = true
		spec.ValueSize = histSumValueSize
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
	if n := c.arrayEntries(mt); n > 0 {
		m.Key = types.Uint32
		spec.Type, spec.KeySize, spec.MaxEntries = ebpf.PerCPUArray, 4, uint32(n)
	}
	if live := c.opts.Maps[mt.Name]; live != nil {
		if err := c.liveLayout(mt, m, spec, live); err != nil {
			return err
		}
	}
	c.mapIndex[mt.Name] = len(c.out.Maps)
	c.out.Maps = append(c.out.Maps, m)
	c.out.Collection.Maps[m.BPFName] = spec
	return nil
}

// arrayEntries returns the number of entries of the per-CPU array that
// holds a keyless aggregation, or 0 when the map stays a hash.
//
// A keyless count(), min(), max(), avg(), stats(), hist() or lhist() needs
// no hash: its value, or each histogram bucket, is one per-CPU array slot
// indexed by 0 or by the bucket, and an event costs one lookup and an
// in-place update, with no insertion path. A slot that was never written is
// all zeros on every CPU, and only then (counts and the set flags of min,
// max, avg and stats are non-zero once written); the runtime reads such a
// slot as a missing entry, so a map whose probe never fired prints
// nothing, as a hash with no entry does, and clear() (zeroing the slots)
// empties it. Kept as hashes: sum() (a written sum can be 0), tseries, maps
// declared with an explicit type, and maps that zero() (which must keep
// the entry, printing 0), delete(), len(), has_key() or for would see
// differently.
func (c *compiler) arrayEntries(mt *check.MapType) int {
	if len(mt.Keys) > 0 || mt.Decl != "" || c.needHash[mt.Name] || c.opts.HashMaps {
		return 0
	}
	switch v := mt.Value; v.Kind {
	case types.Count, types.Min, types.Max, types.Avg, types.Stats:
		return 1
	case types.Hist:
		if v.Bits == 0 {
			return 65 // buckets 0 (negative), 1 (zero), 2+log2(v) up to 64
		}
	case types.Lhist:
		if v.LStep > 0 && v.LMax >= v.LMin {
			return int((v.LMax-v.LMin)/v.LStep) + 2
		}
	}
	return 0
}

// liveLayout gives map m (spec) the layout of live, the existing map of the
// same name (Options.Maps).
func (c *compiler) liveLayout(mt *check.MapType, m *object.Map, spec, live *ebpf.MapSpec) error {
	if live.Type == ebpf.PerCPUArray && spec.Type != ebpf.PerCPUArray {
		if c.needHash[mt.Name] {
			return &Error{Pos: mt.Pos, Err: fmt.Errorf("%s is a per-CPU array in this session: zero(), delete(), len(), has_key() and for need a hash map", mt.Name)}
		}
		m.Key = types.Uint32
		spec.KeySize = 4
	}
	if live.Type != ebpf.PerCPUArray && spec.Type == ebpf.PerCPUArray {
		m.Key = mapKeyType(mt.Keys, mt.Value)
		spec.KeySize = uint32(m.Key.Size)
	}
	spec.Type, spec.MaxEntries = live.Type, live.MaxEntries
	if spec.KeySize != live.KeySize || spec.ValueSize != live.ValueSize {
		return &Error{Pos: mt.Pos, Err: fmt.Errorf("%s is a map of this session with %d-byte keys and %d-byte values, not %d and %d", mt.Name, live.KeySize, live.ValueSize, spec.KeySize, spec.ValueSize)}
	}
	return nil
}

// isArray reports whether a user map is a per-CPU array (arrayEntries).
func (c *compiler) isArray(m *object.Map) bool {
	return c.out.Collection.Maps[m.BPFName].Type == ebpf.PerCPUArray
}

// mapsNeedingHash returns the maps whose uses need a hash map: zero(),
// delete(), len(), has_key() and for.
func mapsNeedingHash(prog *check.Program) map[string]bool {
	need := map[string]bool{}
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Call:
			if f := builtin.LookupFunc(n.Name); f != nil && f.MapNeedsHash && len(n.Args) > 0 {
				if m, ok := n.Args[0].(*ast.MapRef); ok {
					need[m.Name] = true
				}
			}
		case *ast.ForMapStmt:
			need[n.Map.Name] = true
		}
		return true
	}
	// The probes as compiled (macros expanded), and the file as written.
	for _, p := range prog.Probes {
		ast.Inspect(p.AST, visit)
	}
	ast.Inspect(prog.File, visit)
	return need
}

func bpfMapName(i int) string { return fmt.Sprintf("m%d", i) }

// histSumValueSize is the size of a histogram bucket's value with its sum
// (Options.HistSum): {count uint64; sum int64}.
const histSumValueSize = 16

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

func (c *compiler) compileProbe(i int, p *check.Probe) error {
	if c.skipSyscall(p) {
		return nil // served by another instance's program (syscalls.go)
	}
	pt := p.Points[0]
	probe := &object.Probe{Name: pt.Name, Program: fmt.Sprintf("p%d", i), Function: c.function(i, 0)}
	def := provider.Lookup(pt.Provider)
	if def == nil || !def.Supported() {
		return &Error{Pos: pt.Pos, Err: fmt.Errorf("%s probes are not supported by the code generator", pt.Provider)}
	}
	// The provider says what to emit; Order counts the instances of a
	// provider (BEGIN and END run in order of appearance).
	prog := def.Compile(p.Points, c.features(p), probe)
	typ, attach := prog.Type, prog.AttachType
	probe.Order = c.order[pt.Provider]
	c.order[pt.Provider]++
	probe.Group = &object.Group{Written: written(p), Size: len(probe.Targets)}
	insns, err := c.compileFrame(func() *gen {
		g := newGen(c, p)
		g.ctx, g.progType = prog.Ctx, prog.Type
		g.tracingMulti = provider.IsTracingMulti(prog.AttachType)
		g.progName = probe.Program
		if prog.Ctx.SyscallRegs() {
			c.syscallBody(g, p, probe)
		}
		return g
	})
	if err != nil {
		return err
	}
	spec := &ebpf.ProgramSpec{
		Name:         probe.Function, // the kernel's name (bpftool prog), as bpftrace's
		Type:         typ,
		AttachType:   attach,
		Instructions: named(insns, probe.Function),
		License:      "GPL",
	}
	if typ == ebpf.Tracing && !provider.IsTracingMulti(attach) {
		// A trampoline or BTF raw tracepoint is bound to its target at load
		// time: one program per target, sharing the instructions (a
		// tracing_multi program is bound to its targets by its link).
		for j, target := range probe.Targets {
			one := *probe
			one.Name = p.Points[j].Name
			one.Function = c.function(i, j)
			one.Targets = []object.Target{target}
			if len(probe.Targets) > 1 {
				one.Program = fmt.Sprintf("%s_%d", probe.Program, j)
			}
			s := spec.Copy()
			s.Name = one.Function
			s.Instructions = named(s.Instructions, one.Function)
			s.AttachTo = target.String()
			if one.Program != probe.Program {
				c.ownScratch(s, one.Program, probe.Program)
			}
			c.out.Collection.Programs[one.Program] = s
			c.out.Probes = append(c.out.Probes, &one)
		}
		if len(probe.Targets) > 1 {
			delete(c.out.Collection.Maps, "scratch_"+probe.Program) // each copy has its own
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
		fmt.Fprintf(&key, "|%s%s@%d", a.Type, stackSig(a.Type), a.Offset)
	}
	if i, ok := c.printfs[key.String()]; ok {
		return i
	}
	c.out.Printfs = append(c.out.Printfs, p)
	c.printfs[key.String()] = len(c.out.Printfs) - 1
	return len(c.out.Printfs) - 1
}

// stackSig tells apart the stacks in a type, which print differently
// by limit and mode but share a type name.
func stackSig(t *types.Type) string {
	if t == nil {
		return ""
	}
	switch {
	case t.Kind == types.Stack:
		return fmt.Sprintf("(%v %v %d %s)", t.UserStack, t.DWARF, t.Len, t.StackMode)
	case t.Elem != nil:
		return stackSig(t.Elem)
	}
	var b strings.Builder
	for _, f := range t.Fields {
		b.WriteString(stackSig(f.Type))
	}
	return b.String()
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

// constsMapName is a one-element array whose value is the words 0, 1, 2,
// ... (at least as many as there are user maps): helper arguments that
// point at a constant (the value 1 inserted by a first count, the index of
// a counter) point into it with one instruction instead of a stack store
// and a frame pointer computation. Direct map value access needs Linux 5.2.
const constsMapName = "consts"

// useConsts makes sure the constants map exists.
func (c *compiler) useConsts() {
	if _, ok := c.out.Collection.Maps[constsMapName]; ok {
		return
	}
	n := max(len(c.out.Maps), 2)
	words := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(words[8*i:], uint64(i))
	}
	c.out.Collection.Maps[constsMapName] = &ebpf.MapSpec{
		Name:       constsMapName,
		Type:       ebpf.Array,
		KeySize:    4,
		ValueSize:  uint32(len(words)),
		MaxEntries: 1,
		Contents:   []ebpf.MapKV{{Key: uint32(0), Value: words}},
	}
}

// packetMapName is the perf event array of skboutput().
const packetMapName = "packets"

// pcap registers a pcap file that skboutput() writes to and returns the
// id its packets carry and the perf event array they go through, which
// the first call adds (one entry per possible CPU).
func (c *compiler) pcap(file string, offset int) (int, string) {
	if c.out.PacketMap == "" {
		c.out.PacketMap = packetMapName
		c.out.Collection.Maps[packetMapName] = &ebpf.MapSpec{Name: packetMapName, Type: ebpf.PerfEventArray}
	}
	c.out.Pcaps = append(c.out.Pcaps, object.Pcap{File: file, Offset: offset})
	return len(c.out.Pcaps) - 1, packetMapName
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
		ValueSize:  uint32(8 * builtin.MaxStackFrames),
		MaxEntries: uint32(c.prog.MaxMapKeys),
	}
}

// stackSinkName is a one-element array that bpf_get_stack writes frames
// into when only their number is wanted (len() of a stack): nobody reads
// it, so the CPUs may share it.
const stackSinkName = "stack_sink"

// useStackSink makes sure the stack sink exists, large enough for the
// deepest stack of build id frames.
func (c *compiler) useStackSink() {
	if _, ok := c.out.Collection.Maps[stackSinkName]; ok {
		return
	}
	c.out.Collection.Maps[stackSinkName] = &ebpf.MapSpec{
		Name:       stackSinkName,
		Type:       ebpf.Array,
		KeySize:    4,
		ValueSize:  uint32(object.BuildIDFrameSize * builtin.MaxStackFrames),
		MaxEntries: 1,
	}
}

// buildIDStackMapName is the stack trace map of ustack(build_id).
const buildIDStackMapName = "stacks_buildid"

// useBuildIDStacks makes sure the build id stack trace map exists: the
// kernel records each user frame as the build id of its file and the
// offset in it (BPF_F_STACK_BUILD_ID; Linux 4.17 or later).
func (c *compiler) useBuildIDStacks() {
	if c.out.BuildIDStackMap != "" {
		return
	}
	c.out.BuildIDStackMap = buildIDStackMapName
	c.out.Collection.Maps[buildIDStackMapName] = &ebpf.MapSpec{
		Name:       buildIDStackMapName,
		Type:       ebpf.StackTrace,
		KeySize:    4,
		ValueSize:  uint32(object.BuildIDFrameSize * builtin.MaxStackFrames),
		MaxEntries: uint32(c.prog.MaxMapKeys),
		Flags:      1 << 5, // BPF_F_STACK_BUILD_ID
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
func written(p *check.Probe) string {
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
