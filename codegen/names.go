package codegen

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/provider"
)

// Programs are named as bpftrace 0.26-0.27 names them (bpftool prog shows
// the names, and scripts grep them): the probe's name with every character
// but letters, digits and '_' made '_', then '_' and the probe's 1-based
// index. bpftrace counts its probes after expansion: each attach point of
// a probe is a probe, a wildcard expanded function by function (a
// tracepoint, a trampoline, a kprobe without kprobe_multi) is a probe per
// function, a wildcard attached through one multi link (kprobe_multi,
// uprobe_multi) is one probe named after the wildcard, and the kretprobe
// merged into a kprobe session is no probe of its own. A trampoline and
// a raw tracepoint are named with their module (fentry:vmlinux:vfs_read).

// planNames gives each probe instance the index bpftrace gives its first
// program, after planSessions.
func (c *compiler) planNames() {
	c.fnIndex = make([]int, len(c.prog.Probes))
	next := 1
	for i, p := range c.prog.Probes {
		c.fnIndex[i] = next
		if c.sess.ret[i] {
			continue // in its kprobe's session
		}
		if c.multiWritten(p) != "" {
			next += writtenPoints(p)
		} else {
			next += len(p.Points)
		}
	}
}

// function is bpftrace's name of the program of instance i, the j-th of
// its points for a program per point (object.Probe.Function).
func (c *compiler) function(i, j int) string {
	p := c.prog.Probes[i]
	if name := c.multiWritten(p); name != "" {
		return bpftraceFunction(name, c.fnIndex[i])
	}
	return bpftraceFunction(bpftraceProbeName(p.Points[j]), c.fnIndex[i]+j)
}

// multiWritten returns the name of the wildcard attach point whose
// functions instance p attaches through one multi link, as bpftrace
// names it, or "" when p's points are probes of their own in bpftrace.
func (c *compiler) multiWritten(p *check.Probe) string {
	pt := p.Points[0]
	prov := provider.Lookup(pt.Provider)
	if !prov.WildcardIsOneProbe(c.opts.KprobeMulti) {
		return ""
	}
	ap := writtenOf(p, pt)
	if ap == nil {
		return ""
	}
	parts := provider.SplitAttach(ap.Raw)
	if len(parts) < 2 || !provider.HasGlob(parts[len(parts)-1]) {
		return ""
	}
	if prov.UserBinary {
		// the binary as resolved: uprobe:/usr/bin/bash:read*
		return pt.Provider + ":" + pt.Module + ":" + parts[len(parts)-1]
	}
	return pt.Provider + ":" + strings.Join(parts[1:], ":")
}

// writtenOf returns the attach point of p's probe that pt expands.
func writtenOf(p *check.Probe, pt *provider.Point) *ast.AttachPoint {
	for _, ap := range p.AST.Attach {
		if ap.Pos() == pt.Pos {
			return ap
		}
	}
	return nil
}

// writtenPoints counts the attach points of p's probe that p's points
// expand.
func writtenPoints(p *check.Probe) int {
	n := 0
	for _, ap := range p.AST.Attach {
		for _, pt := range p.Points {
			if ap.Pos() == pt.Pos {
				n++
				break
			}
		}
	}
	return max(n, 1)
}

// bpftraceProbeName is bpftrace's name of one attach point: its own, with
// the module of a trampoline or raw tracepoint in the kernel proper.
func bpftraceProbeName(pt *provider.Point) string {
	if provider.Lookup(pt.Provider).VmlinuxInName {
		if kind, fn, _ := strings.Cut(pt.Name, ":"); !strings.Contains(fn, ":") {
			return kind + ":vmlinux:" + fn
		}
	}
	return pt.Name
}

// bpftraceFunction is the name bpftrace gives the program of the probe
// name at 1-based position index (object.Probe.Function).
func bpftraceFunction(name string, index int) string {
	b := []byte(name)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			b[i] = '_'
		}
	}
	suffix := fmt.Sprintf("_%d", index)
	if len(b)+len(suffix) > maxFuncName {
		// As bpftrace: a name too long for the kernel keeps its start and
		// ends with a hash of the whole.
		h := fnv.New64a()
		h.Write(b)
		b = fmt.Appendf(b[:maxFuncName-len(suffix)-17], "_%016x", h.Sum64())
	}
	return string(b) + suffix
}

// named gives insns, a program's instructions, the BTF function info
// that names its first function name in full: the kernel's own name of
// a program is cut at 15 characters (BPF_OBJ_NAME_LEN), bpftool prog
// shows the function's. It also lets a program have callbacks, which the
// kernel accepts only in a program with function info throughout.
func named(insns asm.Instructions, name string) asm.Instructions {
	if len(insns) == 0 {
		return insns
	}
	insns[0] = btf.WithFuncMetadata(insns[0], &btf.Func{Name: name, Linkage: btf.GlobalFunc, Type: mainProto})
	return insns
}

// maxFuncName is the longest BTF function name every kernel takes
// (KSYM_NAME_LEN was 128 before Linux 6.1): bpftraceFunction keeps to it.
const maxFuncName = 127

// mainProto is the prototype of a program's main function: long f(void *ctx).
var mainProto = &btf.FuncProto{Return: btfLong, Params: []btf.FuncParam{{Name: "ctx", Type: btfVoidPtr}}}
