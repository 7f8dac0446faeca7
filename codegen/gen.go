package codegen

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
	"github.com/gotrace/gotrace/object"
	"github.com/gotrace/gotrace/provider"
)

// Register roles. R1–R5 are helper arguments and clobbered by calls, R0 holds
// results; R6 keeps the context pointer for the whole program.
const rCtx = asm.R6

const stackLimit = 512

// A probe whose values do not fit in the 512 bytes of BPF stack keeps its
// whole frame in a map value instead (scratch.go): up to scratchLimit
// bytes in a per-CPU array, and up to bigScratchLimit in an array with
// one value per CPU (a per-CPU value is at most 32 KiB).
const (
	scratchLimit    = 32 << 10
	bigScratchLimit = 64 << 10
)

// frameMode says where a probe's frame lives.
type frameMode int

const (
	onStack      frameMode = iota // R10's 512 bytes
	scratchFrame                  // a per-CPU array value, offsets below R9
	bigScratch                    // an array value of this CPU, R9 at its middle
	// bigFlat is bigScratch with the scalars in the value too, for a
	// single value over 32 KiB: it fits neither above nor below the real
	// stack's offsets, which split the value's (slots.go). The verifier
	// then bounds no loop whose counter is in the frame.
	bigFlat
)

// split reports whether the frame is split between the real stack and
// a scratch value (slots.go).
func (m frameMode) split() bool { return m == scratchFrame || m == bigScratch }

// big reports whether the frame is in an array of one value per CPU.
func (m frameMode) big() bool { return m == bigScratch || m == bigFlat }

// gen emits the instructions of one program.
type gen struct {
	c     *compiler
	probe *check.Probe
	info  *check.Info
	ctx   provider.CtxKind // what R1 points to, as the provider compiled it
	// progType is the program's type, as the provider compiled it.
	progType ebpf.ProgramType
	// tracingMulti: a tracing_multi program, whose context has no
	// parameters; arguments are read with bpf_get_func_arg.
	tracingMulti bool

	insns   asm.Instructions
	pending []string // labels waiting for the next instruction
	aliases map[string]string
	source  asm.Comment // source tag waiting for the next instruction
	nlabel  int
	frame   int // bytes of the frame in use (grows downwards from fp)
	maxSP   int
	vars    []int16 // scratch variable slots by declaration ID
	// real is the bytes in use of the current context's real stack in a
	// scratch mode, realLimit its share (slots.go); cbCtx is the context
	// being compiled (0: the probe, else a callback body, numbered by
	// ctxOf and described by ctxs) and cbCopy its copies of its caller's
	// variables. varHome is the home context of each variable and
	// cbDepth the deepest nesting of callbacks, as planVars found them;
	// varOwner is the context whose stack holds vars[id] (ctxShared: the
	// frame).
	real, realLimit int
	cbCtx, cbDepth  int
	cbCopy          cbCopies
	ctxOf           map[*ast.Block]int
	ctxs            []ctxInfo
	varHome         []int
	varOwner        []int
	// callbacks holds the for-map callback functions, emitted after the
	// program's own code.
	callbacks asm.Instructions
	// fp addresses the probe's frame: R10 in the program, and in a
	// callback a register holding the program's frame pointer; in a
	// scratch mode R9, the scratch value, but for the slots on the real
	// stack (base gives the register of a slot, slots.go).
	fp    asm.Register
	loops []loopLabels
	// stmtPos is the position of the statement being compiled, for errors
	// raised by code that has no node of its own.
	stmtPos srcpos.Pos
	// stmtSpan is the statement's span and exprSpan the span of the
	// innermost expression being evaluated (zero outside one): a failed
	// helper call is reported at exprSpan, else at stmtSpan (-k).
	stmtSpan, exprSpan srcpos.Span
	errPos             srcpos.Pos
	err                error
	exitLbl            string
	// positions maps source tags back to script positions, for errors
	// found after layout.
	positions map[asm.Comment]srcpos.Pos
	// epilogue, when set, emits code run when the probe ends (the tail
	// calls of a syscall block, syscalls.go); sysDir is the raw
	// tracepoint of a syscall block.
	epilogue func()
	sysDir   string
	sysNames bool // probe is read from the names map (syscalls.go)
	// mode says where the frame lives; in a scratch mode fp is R9 and
	// fpFix indexes the instruction that sets it past the frame, patched
	// once the frame's size is known (scratch.go).
	mode     frameMode
	fpFix    int
	bail     string // bailLabel
	progName string // the program's name, which names its scratch map
	// labelPrefix starts every label, for a block laid in the program of
	// another (a kprobe session's, session.go).
	labelPrefix string
}

func newGen(c *compiler, p *check.Probe) *gen {
	return &gen{c: c, probe: p, info: p.Info, aliases: map[string]string{}, fp: asm.RFP, positions: map[asm.Comment]srcpos.Pos{}}
}

// emit appends instructions, attaching pending labels and source tags.
//
// After an error nothing is kept: the probe fails anyway, and code for a
// value too large for the stack (a 100 MB struct copied 8 bytes at a
// time) would otherwise take gigabytes before the error is reported.
func (g *gen) emit(ins ...asm.Instruction) {
	if g.err != nil {
		return
	}
	if len(g.insns) > MaxInstructions {
		g.fail(g.stmtPos, fmt.Errorf("%w: this probe needs more than %d BPF instructions, the most the kernel loads: split it into smaller probes", ErrTooLarge, MaxInstructions))
		return
	}
	for _, in := range ins {
		if len(g.pending) > 0 {
			in = in.WithSymbol(g.pending[0])
			for _, l := range g.pending[1:] {
				g.aliases[l] = g.pending[0]
			}
			g.pending = g.pending[:0]
		}
		if g.source != "" {
			in = in.WithSource(g.source)
			g.source = ""
		}
		g.insns = append(g.insns, in)
	}
}

func (g *gen) newLabel(prefix string) string {
	g.nlabel++
	return fmt.Sprintf("%s%s_%d", g.labelPrefix, prefix, g.nlabel)
}

// mark places label l on the next emitted instruction.
func (g *gen) mark(l string) { g.pending = append(g.pending, l) }

// maxTagText bounds the script text quoted in a source tag.
const maxTagText = 160

// tag labels the next instruction with the script position and text of n.
func (g *gen) tag(n ast.Node) {
	sp := n.GetSpan()
	text := ""
	src := sp.Start.FileText(g.c.prog.File.Src) // an imported file's own text
	if sp.Start.Offset >= 0 && sp.End.Offset <= len(src) && sp.Start.Offset < sp.End.Offset {
		text = src[sp.Start.Offset:sp.End.Offset]
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			text = text[:i] + " ..."
		}
		if len(text) > maxTagText {
			// An else-if chain on one line would repeat the rest of the
			// line at every branch: quadratic in the script's size.
			text = strings.ToValidUTF8(text[:maxTagText], "") + " ..."
		}
	}
	g.source = asm.Comment(sp.Start.String() + " " + text)
	g.positions[g.source] = sp.Start
}

// fail records the first error; code generation stops at the probe's end.
func (g *gen) fail(pos srcpos.Pos, err error) {
	if g.err == nil {
		g.err, g.errPos = err, pos
	}
}

// alloc reserves size bytes (rounded to 8) in the frame and returns their
// offset from the frame pointer (R10 on the stack, R9 in a scratch value).
func (g *gen) alloc(size int, pos srcpos.Pos) int16 {
	size = roundUp(max(size, 1), 8)
	g.frame += size
	if off := g.frameBias() - g.frame; g.mode == bigScratch && off < 0 && off+size > -stackLimit {
		// R9 is in the middle of the value: skip the offsets of the real
		// stack's slots, which base gives to R10
		g.frame = g.frameBias() + stackLimit + size
	}
	if g.frame > g.maxSP {
		g.maxSP = g.frame
	}
	if limit := g.frameLimit(); g.frame > limit {
		if !pos.IsValid() {
			pos = g.stmtPos
		}
		if g.mode == onStack {
			g.fail(pos, fmt.Errorf("%w: this probe needs %d bytes", ErrStackLimit, g.frame))
		} else {
			g.fail(pos, fmt.Errorf("%w: this probe needs %d bytes", ErrScratchLimit, g.frame))
		}
		g.frame = limit // keep offsets valid for the rest of the walk
	}
	return int16(g.frameBias() - g.frame)
}

// zero stores zeros over [off, off+size) (size a multiple of 8).
func (g *gen) zero(off int16, size int) {
	if size > zeroLoopMin {
		g.zeroLoop(off, roundUp(size, 8))
		return
	}
	for i := 0; i < roundUp(size, 8); i += 8 {
		g.emit(g.st(off+int16(i), 0))
	}
}

// copyStack copies n bytes (a multiple of 8) between stack slots via R1.
func (g *gen) copyMem(dstReg asm.Register, dst int16, srcReg asm.Register, src int16, n int) {
	// The widest access both offsets are aligned for: a field of a packed
	// tuple (after a bool, say) is not 8-byte aligned, and the verifier
	// rejects misaligned stack accesses.
	if n > copyHelperMin {
		g.copyHelper(dstReg, dst, srcReg, src, n)
		return
	}
	w, size := int16(8), asm.DWord
	for (dst%w != 0 || src%w != 0) && w > 1 {
		w /= 2
		size = map[int16]asm.Size{4: asm.Word, 2: asm.Half, 1: asm.Byte}[w]
	}
	for i := 0; i < n && g.err == nil; i += int(w) {
		if i > 1<<15 {
			// past any stack or map value offset: the value cannot fit
			g.fail(g.stmtPos, fmt.Errorf("%w: a copy of %d bytes", ErrStackLimit, n))
			return
		}
		g.emit(
			asm.LoadMem(asm.R1, srcReg, src+int16(i), size),
			asm.StoreMem(dstReg, dst+int16(i), asm.R1, size),
		)
	}
}

func (g *gen) program() (asm.Instructions, error) {
	g.exitLbl = g.newLabel("exit")
	// The kernel wants line info on the first instruction.
	g.tag(g.probe.AST)
	g.emit(asm.Mov.Reg(rCtx, asm.R1))
	if g.ctx.EndsWithEmptyRun() {
		// An iterator's program runs once more after the last object,
		// with no object (its pointer after the meta one is NULL): that
		// run does nothing, as bpftrace skips it.
		g.emit(asm.LoadMem(asm.R0, rCtx, 8, asm.DWord), asm.JEq.Imm(asm.R0, 0, g.exitLbl))
	}
	g.scratchPrologue()
	// Scratch variables live for the whole program (or callback), below
	// every temporary; each declaration has its own slot.
	g.planVars()
	g.real, g.realLimit, g.cbCtx = realReserved, g.realBudget(), 0
	n := len(g.info.VarTypes)
	g.vars, g.varOwner = make([]int16, n), make([]int, n)
	g.allocVars()
	if pred := g.probe.AST.Pred; pred != nil {
		mark := g.markFrame()
		g.tag(pred)
		g.branch(pred, g.exitLbl, false)
		g.release(mark) // the predicate's temporaries die here
	}
	g.block(g.probe.AST.Body)
	g.mark(g.exitLbl)
	if g.epilogue != nil {
		g.epilogue()
	}
	if g.mode != onStack {
		g.mark(g.bailLabel())
	}
	g.emit(asm.Mov.Imm(asm.R0, 0), asm.Return())
	if g.err != nil {
		return nil, &Error{Pos: g.errPos, Err: g.err}
	}
	if g.scratchFinish(); g.err != nil {
		return nil, &Error{Pos: g.errPos, Err: g.err}
	}
	// Callbacks come after the probe's function, each with its BTF
	// function info; the compiler gives the probe's its name (named).
	g.insns = append(g.insns, g.callbacks...)
	// Resolve label aliases created when two labels met on one instruction.
	for i := range g.insns {
		if ref := g.insns[i].Reference(); ref != "" {
			if to, ok := g.aliases[ref]; ok {
				g.insns[i] = g.insns[i].WithReference(to)
			}
		}
	}
	insns, at, err := relaxJumps(peephole(g.insns), g.c.opts.LongJumps, func() string { return g.newLabel("far") })
	if err != nil {
		return nil, &Error{Pos: g.sourcePos(insns, at), Err: err}
	}
	if n := rawLen(insns); n > MaxInstructions {
		return nil, &Error{Pos: g.probe.AST.Pos(), Err: fmt.Errorf("%w: this probe compiles to %d BPF instructions, the kernel loads at most %d: split it into smaller probes", ErrTooLarge, n, MaxInstructions)}
	}
	return insns, nil
}

// MaxInstructions is the kernel's limit on a program's size
// (BPF_COMPLEXITY_LIMIT_INSNS); a larger program fails to load with E2BIG.
const MaxInstructions = 1_000_000

// ErrTooLarge is returned (wrapped, with the probe's position) for a probe
// that compiles to more than MaxInstructions instructions.
var ErrTooLarge = errors.New("program too large")

// rawLen counts instructions as the kernel does (a 64-bit load is two).
func rawLen(insns asm.Instructions) int {
	n := 0
	for _, ins := range insns {
		n += int(ins.Size() / asm.InstructionSize)
	}
	return n
}

// sourcePos is the script position of the code that insns[i] belongs to:
// the nearest source tag at or before it.
func (g *gen) sourcePos(insns asm.Instructions, i int) srcpos.Pos {
	for ; i >= 0 && i < len(insns); i-- {
		if c, ok := insns[i].Source().(asm.Comment); ok {
			if pos, ok := g.positions[c]; ok {
				return pos
			}
		}
	}
	return g.probe.AST.Pos()
}

func (g *gen) block(b *ast.Block) {
	for _, s := range b.Stmts {
		if g.err != nil {
			return // the probe fails at its first error
		}
		mark := g.markFrame()
		g.stmtPos, g.stmtSpan = s.Pos(), s.GetSpan()
		g.tag(s)
		g.stmt(s)
		g.release(mark) // statement temporaries die here
		if endsProbe(s) {
			return // the rest is unreachable, which the verifier rejects
		}
	}
}

// blockEnds and endsProbe tell whether a block or a statement always
// leaves (the code after it is unreachable); see check.StmtEnds.
func blockEnds(b *ast.Block) bool { return check.BlockEnds(b) }

func endsProbe(s ast.Stmt) bool { return check.StmtEnds(s) }

func (g *gen) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.ExprStmt:
		g.exprStmt(s.X)
	case *ast.AssignStmt:
		g.assign(s)
	case *ast.IncDecStmt:
		g.incDec(s.X, s.Op)
	case *ast.IfStmt:
		g.ifStmt(s)
	case *ast.BlockStmt:
		g.block(s.Body)
	case *ast.ReturnStmt:
		if s.X != nil {
			g.exprStmt(s.X)
		}
		g.emit(asm.Ja.Label(g.exitLbl))
	case *ast.LetStmt:
		g.let(s)
	case *ast.WhileStmt:
		g.while(s)
	case *ast.ForRangeStmt:
		g.forRange(s)
	case *ast.UnrollStmt:
		n := int(g.info.Consts[s.Count].Int)
		for i := 0; i < n; i++ {
			g.block(s.Body)
		}
	case *ast.ForMapStmt:
		g.forMap(s)
	case *ast.BranchStmt:
		l := g.loops[len(g.loops)-1]
		if l.callback {
			ret := int32(0)
			if s.Tok == "break" {
				ret = 1
			}
			g.cbReturn(ret)
			return
		}
		if s.Tok == "break" {
			g.emit(asm.Ja.Label(l.brk))
		} else {
			g.emit(asm.Ja.Label(l.cont))
		}
	default:
		g.fail(s.Pos(), fmt.Errorf("statement not supported by the code generator"))
	}
}

func (g *gen) ifStmt(s *ast.IfStmt) {
	if then, ok := g.info.Comptime(s.Cond); ok {
		// if comptime: only the branch taken exists
		if then {
			g.block(s.Then)
		} else if s.Else != nil {
			g.tag(s.Else)
			g.stmt(s.Else)
		}
		return
	}
	elseL, endL := g.newLabel("else"), g.newLabel("endif")
	g.branch(s.Cond, elseL, false)
	g.block(s.Then)
	if s.Else != nil && !blockEnds(s.Then) {
		g.emit(asm.Ja.Label(endL))
	}
	g.mark(elseL)
	if s.Else != nil {
		g.tag(s.Else)
		g.stmt(s.Else)
	}
	g.mark(endL)
	// The labels need an instruction; the next statement or the exit
	// sequence provides it.
}

func (g *gen) exprStmt(e ast.Expr) {
	if u, ok := e.(*ast.Unary); ok && (u.Op == "++" || u.Op == "--") {
		g.incDec(u.X, u.Op)
		return
	}
	t := g.info.TypeOf(e)
	if t != nil && t.IsBuffer() {
		g.buffer(e)
		return
	}
	g.scalar(e)
}

// varSlot returns the stack slot and type of a scratch variable.
func (g *gen) varSlot(v *ast.Var) (int16, *types.Type) {
	id, t := g.info.VarOf(v)
	if id < 0 {
		g.fail(v.Pos(), fmt.Errorf("unresolved variable %s", v.Name))
		return 0, types.Int64
	}
	return g.varOffset(id, v.Pos()), t
}

// slotSize is the stack size of a value of type t.
func slotSize(t *types.Type) int {
	if t.IsBuffer() {
		return roundUp(t.Size, 8)
	}
	return 8
}

// stImm stores a sign-extended 32-bit immediate as a 64-bit word
// (BPF_ST | BPF_MEM | BPF_DW), which asm.StoreImm does not emit.
func stImm(dst asm.Register, off int16, v int64) asm.Instruction {
	return asm.Instruction{OpCode: asm.StoreImmOp(asm.DWord), Dst: dst, Offset: off, Constant: v}
}

// let initialises a declared variable (to zero without an initialiser).
func (g *gen) let(s *ast.LetStmt) {
	off, t := g.varSlot(s.Var)
	if t == nil {
		return // never assigned: no slot
	}
	switch {
	case s.Init == nil:
		g.zero(off, slotSize(t))
	case t.IsBuffer():
		g.copyAs(off, t, s.Init)
	default:
		g.scalar(s.Init)
		if t.Kind == types.Int {
			g.extend(asm.R0, t.Size, t.Signed) // let $x: uint8 = 300 keeps 44
		}
		g.emit(g.stx(off, asm.R0, asm.DWord))
	}
}

// checkHelper reports a negative helper result in R0 as an
// EventHelperError, with -k (Options.HelperWarnings); R0 is kept.
func (g *gen) checkHelper(helper string) {
	if !g.c.opts.HelperWarnings {
		return
	}
	sp := g.exprSpan
	if !sp.Start.IsValid() {
		sp = g.stmtSpan
	}
	id := len(g.c.out.HelperSites)
	g.c.out.HelperSites = append(g.c.out.HelperSites, object.HelperSite{Helper: helper, Pos: sp.Start, End: sp.End})
	ok := g.newLabel("helperok")
	rec := g.alloc(object.EventHeaderSize+8, g.stmtPos)
	g.emit(
		asm.JSGE.Imm(asm.R0, 0, ok),
		g.st(rec, int64(object.EventHelperError)),
		g.st(rec+8, int64(id)),
		g.stx(rec+16, asm.R0, asm.DWord),
		asm.LoadMapPtr(asm.R1, 0).WithReference(eventsMapName),
		asm.Mov.Reg(asm.R2, g.base(rec)),
		asm.Add.Imm(asm.R2, int32(rec)),
		asm.Mov.Imm(asm.R3, object.EventHeaderSize+8),
		asm.Mov.Imm(asm.R4, 0),
		asm.FnRingbufOutput.Call(),
	)
	g.mark(ok)
	g.emit(asm.Mov.Imm(asm.R0, 0))
}

// enterExpr makes e the innermost expression being evaluated, for the
// position of a failed helper call, and returns the span to restore when
// it is done. The span is bpftrace's: a member access or an index starts
// where its base expression does, without the parentheses around it.
func (g *gen) enterExpr(e ast.Expr) srcpos.Span {
	prev := g.exprSpan
	if _, ok := e.(*ast.Paren); !ok {
		g.exprSpan = srcpos.Span{Start: exprStart(e), End: e.GetSpan().End}
	}
	return prev
}

// exprStart is where bpftrace's parser starts e: parentheses are not part
// of an expression, and postfix operators start at their base.
func exprStart(e ast.Expr) srcpos.Pos {
	for {
		switch x := e.(type) {
		case *ast.Paren:
			e = x.X
		case *ast.Field:
			e = x.X
		case *ast.Index:
			e = x.X
		default:
			return e.Pos()
		}
	}
}
