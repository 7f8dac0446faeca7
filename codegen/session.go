package codegen

import (
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
)

// Sessions: a kprobe and a kretprobe of the script on the same functions
// (the same names, or the same wildcard) become one program attached
// through one kprobe_multi link with the session attach type, as bpftrace
// 0.26 makes them (Features.KprobeSession); an fentry and an fexit on
// the same kernel functions likewise become one program on one
// tracing_multi link of attach type AttachTraceFsessionMulti
// (Features.Fsession), which reads arguments with bpf_get_func_arg and
// retval with bpf_get_func_ret. The kernel runs the program at entry and
// at return of each function; it asks the kfunc bpf_session_is_return
// (found in the kernel's BTF; without it the probes stay apart) which,
// and runs the return probe's block or the entry probe's. Each block is
// compiled as it would be alone, with its own labels, frame and scratch
// map (only one of them runs in a run of the program), and the two are
// laid one after the other behind the test. The entry block returns 0,
// which tells the kernel to run the program again at the function's
// return.

// sessionKind is a pair of providers whose probes become sessions.
type sessionKind struct {
	entry, ret string
	progType   ebpf.ProgramType
	attach     ebpf.AttachType
	// module reports whether a point's module can be in a session.
	module func(m string) bool
}

var (
	kprobeSession = sessionKind{entry: "kprobe", ret: "kretprobe", progType: ebpf.Kprobe,
		attach: ebpf.AttachTraceKprobeSession,
		module: func(m string) bool { return m == "" }}
	fsession = sessionKind{entry: "fentry", ret: "fexit", progType: ebpf.Tracing,
		attach: provider.AttachTraceFsessionMulti,
		// a tracing_multi link names functions of vmlinux
		module: func(m string) bool { return m == "" || m == "vmlinux" }}
)

// sessionPlan pairs the probes that become sessions: by the index of an
// entry probe, the index of its return probe; ret holds the return
// probes' indexes.
type sessionPlan struct {
	pair map[int]int
	ret  map[int]bool
}

// planSessions finds the entry/return pairs on the same functions, each
// probe in at most one pair, in the order of the script.
func (c *compiler) planSessions() {
	c.sess = sessionPlan{pair: map[int]int{}, ret: map[int]bool{}}
	var kinds []sessionKind
	if c.opts.KprobeSession && c.opts.KprobeMulti {
		kinds = append(kinds, kprobeSession)
	}
	if c.opts.Fsession && c.opts.TracingMulti {
		kinds = append(kinds, fsession)
	}
	for _, kind := range kinds {
		c.planSessionsOf(kind)
	}
}

// planSessionsOf pairs the probes of one kind of session.
func (c *compiler) planSessionsOf(kind sessionKind) {
	key := func(p *check.Probe, name string) (string, bool) {
		if len(p.Points) == 0 || p.Points[0].Provider != name {
			return "", false
		}
		if max := c.opts.TracingMultiMax; kind.progType == ebpf.Tracing && max > 0 && len(p.Points) > max {
			return "", false
		}
		k := ""
		for _, pt := range p.Points {
			if pt.Provider != name || pt.NoFtrace || pt.Offset != 0 || !kind.module(pt.Module) || pt.Func == "" {
				return "", false
			}
			k += pt.Func + "\x00"
		}
		return k, true
	}
	rets := map[string][]int{}
	for j, p := range c.prog.Probes {
		if k, ok := key(p, kind.ret); ok {
			rets[k] = append(rets[k], j)
		}
	}
	for i, p := range c.prog.Probes {
		k, ok := key(p, kind.entry)
		if !ok || len(rets[k]) == 0 {
			continue
		}
		j := rets[k][0]
		rets[k] = rets[k][1:]
		c.sess.pair[i], c.sess.ret[j] = j, true
	}
}

// compileSession compiles the entry probe at index i and the return probe
// at index j into one session program. ok is false when the pair cannot
// be one program (a block that has callbacks, or one too long to jump
// over); the caller then compiles them apart.
func (c *compiler) compileSession(i, j int) (ok bool, err error) {
	kp, kr := c.prog.Probes[i], c.prog.Probes[j]
	kind := kprobeSession
	if kp.Provider() == fsession.entry {
		kind = fsession
	}
	pt := kp.Points[0]
	probe := &object.Probe{Name: pt.Name, Program: fmt.Sprintf("p%d", i), Function: c.function(i, 0)}
	// The providers name the targets; a kprobe's may be an address.
	f := c.features(kp)
	f.FentryMultiThreshold = 0
	entryProg := provider.Lookup(kind.entry).Compile(kp.Points, f, probe)
	var retProbe object.Probe
	retProg := provider.Lookup(kind.ret).Compile(kr.Points, c.features(kr), &retProbe)
	if kind.progType == ebpf.Kprobe && (entryProg.Type != ebpf.Kprobe || retProg.Type != ebpf.Kprobe) {
		return false, nil
	}
	for _, t := range probe.Targets {
		if ft, isFunc := t.(provider.FuncTarget); !isFunc || ft.ByAddr {
			return false, nil // kprobe:0xADDRESS: one kprobe at an address
		}
	}
	// Each block has its provider's context (pt_regs, or the
	// trampoline's, read through bpf_get_func_arg).
	body := func(p *check.Probe, name string) (asm.Instructions, error) {
		return c.compileFrame(func() *gen {
			g := newGen(c, p)
			g.ctx, g.progType = p.Def().Ctx, kind.progType
			g.tracingMulti = provider.IsTracingMulti(kind.attach)
			g.progName, g.labelPrefix = name, name+"_"
			return g
		})
	}
	entry, err := body(kp, probe.Program)
	if err != nil {
		return false, err
	}
	ret, err := body(kr, probe.Program+"_ret")
	if err != nil {
		return false, err
	}
	for _, insns := range []asm.Instructions{entry, ret} {
		for _, ins := range insns {
			if btf.FuncMetadata(&ins) != nil {
				return false, nil // callbacks: a program of several functions
			}
		}
	}
	if rawLen(entry) >= 1<<15-1 || rawLen(entry)+rawLen(ret)+4 > MaxInstructions {
		return false, nil
	}
	isReturn, found := c.kfuncID("bpf_session_is_return")
	if !found {
		return false, nil
	}
	retLbl := probe.Program + "_return"
	// R1 (the context, also the kfunc's argument where it takes one) is
	// saved in R6 across the kfunc call; each block starts by copying R1
	// to R6, so R1 is restored first.
	prologue := asm.Instructions{
		asm.Mov.Reg(asm.R6, asm.R1),
		{OpCode: asm.OpCode(asm.JumpClass).SetJumpOp(asm.Call), Src: asm.PseudoKfuncCall, Constant: int64(isReturn)},
		asm.Mov.Reg(asm.R1, asm.R6),
		asm.JNE.Imm(asm.R0, 0, retLbl),
	}
	// The kernel wants line info on the first instruction: the entry
	// block's first source tag moves to the prologue.
	if src := entry[0].Source(); src != nil {
		prologue[0] = prologue[0].WithSource(src)
		entry[0] = entry[0].WithSource(nil)
	}
	// BTF function info names the program in full, as bpftrace's, where
	// the kernel's name is cut at 15 characters: bpftool prog shows
	// "kprobe_ksys_read_1", not "kprobe_ksys_rea".
	prologue[0] = btf.WithFuncMetadata(prologue[0], &btf.Func{
		Name: probe.Function, Linkage: btf.GlobalFunc,
		Type: &btf.FuncProto{Return: btfLong, Params: []btf.FuncParam{{Name: "ctx", Type: btfVoidPtr}}},
	})
	ret[0] = ret[0].WithSymbol(retLbl)
	insns := append(append(prologue, entry...), ret...)
	probe.Provider, probe.Via = kind.entry, ""
	probe.Order = c.order[kind.entry]
	c.order[kind.entry]++
	c.order[kind.ret]++
	probe.Group = &object.Group{Written: written(kp), Size: len(probe.Targets)}
	c.out.Collection.Programs[probe.Program] = &ebpf.ProgramSpec{
		Name:         probe.Function,
		Type:         kind.progType,
		AttachType:   kind.attach,
		Instructions: insns,
		License:      "GPL",
	}
	c.out.Probes = append(c.out.Probes, probe)
	return true, nil
}

// kfuncID is the ID in the kernel's BTF (Options.BTF) of the kfunc name.
func (c *compiler) kfuncID(name string) (btf.TypeID, bool) {
	if c.opts.BTF == nil {
		return 0, false
	}
	var fn *btf.Func
	if err := c.opts.BTF.TypeByName(name, &fn); err != nil {
		return 0, false
	}
	id, err := c.opts.BTF.TypeID(fn)
	return id, err == nil
}
