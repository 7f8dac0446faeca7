package codegen

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/object"
)

var (
	insnLineRe = regexp.MustCompile(`^(\d+): \(`)
	srcPosRe   = regexp.MustCompile(`^(.*):(\d+):(\d+) `)
)

// VerifierPosition maps a load error that wraps *ebpf.VerifierError back to
// the script: it finds the program named in the error, the last instruction
// the verifier looked at, and the source tag of the instruction group it
// belongs to. It returns nil when err is not a verifier rejection or the
// position cannot be found.
func VerifierPosition(err error, prog *object.Program) *lang.Error {
	var ve *ebpf.VerifierError
	if !errors.As(err, &ve) || prog == nil {
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
	insn := -1
	for _, l := range ve.Log {
		if m := insnLineRe.FindStringSubmatch(strings.TrimSpace(l)); m != nil {
			insn, _ = strconv.Atoi(m[1])
		}
	}
	if insn < 0 {
		return nil
	}
	src := sourceAt(spec.Instructions, insn)
	m := srcPosRe.FindStringSubmatch(src)
	if m == nil {
		return nil
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
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
	return &lang.Error{
		Pos: ast.Pos{Filename: m[1], Line: line, Column: col},
		Msg: fmt.Sprintf("the BPF verifier rejected the code generated here: %s", cause),
	}
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
