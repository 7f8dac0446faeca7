package codegen

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"golang.org/x/sys/unix"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/object"
)

var (
	insnLineRe = regexp.MustCompile(`^(\d+): \(`)
	srcPosRe   = regexp.MustCompile(`^(.*):(\d+):(\d+) `)
)

// VerifierPosition maps a load error that wraps *ebpf.VerifierError back to
// the script: it finds the program named in the error, the last instruction
// the verifier looked at, and the source tag of the instruction group it
// belongs to. The verifier's limits on a whole program (instructions
// explored, pending branches), whichever errno and wording the kernel picks
// for them (E2BIG with a log line, or EFAULT without a log), are reported
// in plain words at the first statement of the probe. It
// returns nil when err is not a load failure of a known program or no
// position can be found.
func VerifierPosition(err error, prog *object.Program) *syntax.Error {
	if err == nil || prog == nil {
		return nil
	}
	name := ""
	msg := err.Error()
	for n := range prog.Collection.Programs {
		if len(n) > len(name) && strings.Contains(msg, "program "+n+":") {
			name = n
		}
	}
	spec := prog.Collection.Programs[name]
	if spec == nil {
		return nil
	}
	if m := ksymRe.FindStringSubmatch(msg); m != nil {
		if e := ksymError(spec.Instructions, m[1]); e != nil {
			return e
		}
	}
	var ve *ebpf.VerifierError
	if !errors.As(err, &ve) {
		// Past the pending-branch limit some kernels fail the load with
		// EFAULT and no log; others say E2BIG with the jump-sequence line.
		if errors.Is(err, unix.EFAULT) || errors.Is(err, unix.E2BIG) {
			return probeError(spec.Instructions, "this probe is too large or has too many branches for the kernel's BPF verifier; "+splitAdvice)
		}
		return nil
	}
	for _, l := range ve.Log {
		if m := tooLargeRe.FindStringSubmatch(l); m != nil {
			return probeError(spec.Instructions, fmt.Sprintf("this probe is too complex for the kernel's BPF verifier: it explored %s instructions without finishing (its limit is 1000000); "+
				"use fewer branches (if/else chains, ?:, loops) in one probe, or "+splitAdvice, m[1]))
		}
		if m := jumpSeqRe.FindStringSubmatch(l); m != nil {
			return probeError(spec.Instructions, fmt.Sprintf("this probe has too many branches for the kernel's BPF verifier (%s pending in a row, its limit is 8192); "+
				splitAdvice, m[1]))
		}
	}
	insn := -1
	for _, l := range ve.Log {
		if m := insnLineRe.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			insn, _ = strconv.Atoi(m[1])
		}
	}
	if insn < 0 {
		return nil
	}
	if e := helperRefusal(ve.Log, spec.Instructions, insn); e != nil {
		return e
	}
	pos, ok := sourcePos(sourceAt(spec.Instructions, insn))
	if !ok {
		return nil
	}
	cause := "the program was rejected"
	if len(ve.Log) > 0 {
		cause = strings.TrimSpace(ve.Log[len(ve.Log)-1])
		// The last line is usually a summary; the cause precedes it.
		for i := len(ve.Log) - 1; i >= 0; i-- {
			l := strings.TrimSpace(ve.Log[i])
			if l != "" && !strings.HasPrefix(l, "processed ") && !strings.HasPrefix(l, "verification time") && !insnLineRe.MatchString(l) {
				cause = l
				break
			}
		}
	}
	return &syntax.Error{Pos: pos, Msg: fmt.Sprintf("the BPF verifier rejected the code generated here: %s", cause)}
}

// splitAdvice ends the messages for the verifier's limits on a whole probe.
const splitAdvice = "split the probe's work across several probes"

// helperRefusalRe is the verifier's refusal of a helper in this kind of
// program (bpf_d_path outside its allowed functions); helperCallRe is the
// call it refuses, as the log prints it ("call bpf_d_path#147").
var (
	helperRefusalRe = regexp.MustCompile(`helper call is not allowed in probe|program of this type cannot use helper`)
	helperCallRe    = regexp.MustCompile(` call ([a-z_0-9]+)#\d+`)
)

// helperRefusal is bpftrace's error for a helper the verifier refuses in
// this program ("helper bpf_d_path not allowed in probe"), at the builtin
// call that emitted the helper call at raw instruction offset insn, or nil.
func helperRefusal(log []string, insns asm.Instructions, insn int) *syntax.Error {
	helper := ""
	refused := false
	for _, l := range log {
		if m := helperCallRe.FindStringSubmatch(l); m != nil {
			helper = m[1]
		}
		if helperRefusalRe.MatchString(l) {
			refused = true
			break
		}
	}
	if !refused || helper == "" {
		return nil
	}
	iter := insns.Iterate()
	for iter.Next() {
		if int(iter.Offset) != insn {
			continue
		}
		sp, ok := iter.Ins.Metadata.Get(callSpan{}).(srcpos.Span)
		if !ok {
			return nil
		}
		return &syntax.Error{Pos: sp.Start, End: sp.End, Msg: fmt.Sprintf("helper %s not allowed in probe", helper)}
	}
	return nil
}

var (
	tooLargeRe = regexp.MustCompile(`BPF program is too large\. Processed (\d+) insn`)
	jumpSeqRe  = regexp.MustCompile(`The sequence of (\d+) jumps is too complex`)
)

// ksymRe is the kernel's refusal of a 64-bit load of a kernel variable's
// address (BPF_PSEUDO_BTF_ID) that kallsyms does not list.
var ksymRe = regexp.MustCompile(`ldimm64 failed to find the address for kernel symbol '([^']+)'`)

// ksymError is the error for a kernel variable without an address, at the
// code that loads its address (percpu_kaddr tags it with the call): the
// load whose tag quotes the name, else the first.
func ksymError(insns asm.Instructions, name string) *syntax.Error {
	src := ""
	iter := insns.Iterate()
	for iter.Next() {
		if in := iter.Ins; in.OpCode.IsDWordLoad() && in.Src == builtin.PseudoBTFID {
			s := sourceAt(insns, int(iter.Offset))
			if src == "" || strings.Contains(s, `"`+name+`"`) {
				src = s
			}
			if strings.Contains(s, `"`+name+`"`) {
				break
			}
		}
	}
	pos, ok := sourcePos(src)
	if !ok {
		return nil
	}
	var end srcpos.Pos
	// The tag quotes the call in full when it fits one line.
	if text := strings.TrimPrefix(src, srcPosRe.FindString(src)); !strings.HasSuffix(text, " ...") {
		end = pos
		end.Column += len(text)
	}
	return &syntax.Error{Pos: pos, End: end, Msg: fmt.Sprintf("the kernel has no address for the variable %s: its kallsyms lists variables only with CONFIG_KALLSYMS_ALL", name)}
}

// probeError is an error at the first statement of a program.
func probeError(insns asm.Instructions, msg string) *syntax.Error {
	for _, ins := range insns {
		if src := ins.Source(); src != nil {
			if pos, ok := sourcePos(src.String()); ok {
				return &syntax.Error{Pos: pos, Msg: msg}
			}
		}
	}
	return nil
}

// sourcePos reads the position a source tag starts with.
func sourcePos(src string) (srcpos.Pos, bool) {
	m := srcPosRe.FindStringSubmatch(src)
	if m == nil {
		return srcpos.Pos{}, false
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	return srcpos.Pos{Filename: m[1], Line: line, Column: col}, true
}

// sourceAt returns the source tag in effect at raw instruction offset off.
func sourceAt(insns asm.Instructions, off int) string {
	src := ""
	iter := insns.Iterate()
	for iter.Next() {
		if int(iter.Offset) > off {
			break
		}
		if s := iter.Ins.Source(); s != nil {
			src = s.String()
		}
	}
	return src
}
