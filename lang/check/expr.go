package check

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/syntax"
	"github.com/gotrace/gotrace/lang/types"
)

// expr checks e and records its type; it returns nil after an error.
func (c *checker) expr(e ast.Expr) *types.Type {
	t := c.expr1(e)
	if t != nil {
		c.info.Types[e] = t
	}
	return t
}

func (c *checker) expr1(e ast.Expr) *types.Type {
	switch e := e.(type) {
	case *ast.IntLit:
		v, err := scaleDuration(e)
		if err != nil {
			c.errorf(e, "%s", err)
			return nil
		}
		c.info.Consts[e] = builtin.Const{Int: v}
		if v > 1<<63-1 {
			return types.Uint64
		}
		return types.Int64
	case *ast.StrLit:
		c.info.Consts[e] = builtin.Const{IsStr: true, Str: e.Value}
		return types.NewString(len(e.Value) + 1)
	case *ast.BoolLit:
		v := uint64(0)
		if e.Value {
			v = 1
		}
		c.info.Consts[e] = builtin.Const{Int: v}
		return types.BoolT
	case *ast.Paren:
		t := c.expr(e.X)
		if cv, ok := c.info.Consts[e.X]; ok {
			c.info.Consts[e] = cv
		}
		return t
	case *ast.PosParam:
		return c.posParam(e)
	case *ast.Var:
		return c.useVar(e)
	case *ast.MapRef:
		mt := c.mapUse(e, nil, nil)
		if mt == nil {
			return nil
		}
		if mt.Value == nil && c.selfAssign == e.Name {
			// @k = @k + 1 before any other assignment: the read yields
			// the zero value of an integer map, which the assignment
			// makes it.
			return types.Int64
		}
		if mt.Value == nil {
			if !c.quiet {
				c.errorf(e, "map %s is read but never assigned", e.Name)
			}
			return nil
		}
		if e.Keys == nil && mt.Keys != nil && mt.Value.Kind != types.Count {
			c.errorf(e, "map %s has keys: use %s[...]", e.Name, e.Name)
			return nil
		}
		switch mt.Value.Kind {
		case types.Count, types.Sum, types.Min, types.Max, types.Avg:
			// Reading an aggregation yields its integer value, of its
			// sign.
			return types.NewInt(8, mt.Value.Signed)
		case types.Hist, types.Lhist, types.Stats, types.Tseries:
			c.errorf(e, "the value of %s (%s) can only be printed", e.Name, mt.Value)
			return nil
		}
		return mt.Value
	case *ast.Ident:
		if cv, ok := c.defines[e.Name]; ok {
			c.info.Consts[e] = cv
			if en := c.enums[e.Name]; en != nil {
				return types.NewEnum(en, 8)
			}
			if cv.IsStr {
				return types.NewString(len(cv.Str) + 1)
			}
			return types.Int64
		}
		if cv, en := c.enumValue(e.Name); en != nil {
			c.info.Consts[e] = cv
			return types.NewEnum(en, 8)
		}
		return c.ident(e)
	case *ast.Call:
		if f := builtin.LookupFunc(e.Name); f != nil && f.Agg {
			c.errorf(e, "%s() must be assigned to a map, e.g. @x = %s(...)", e.Name, e.Name)
			return nil
		}
		return c.call(e)
	case *ast.Unary:
		return c.unary(e)
	case *ast.Binary:
		return c.binary(e)
	case *ast.Ternary:
		ct := c.expr(e.Cond)
		if then, ok := c.info.Comptime(e.Cond); ok {
			// if comptime c { a } else { b }: the value of the branch taken
			if then {
				return c.expr(e.Then)
			}
			return c.expr(e.Else)
		}
		a, b := c.expr(e.Then), c.expr(e.Else)
		if ct == nil || a == nil || b == nil {
			return nil
		}
		if !isCondition(ct) {
			c.errorf(e.Cond, "condition must be an integer, bool or pointer, not %s", ct)
			return nil
		}
		if a.Kind == types.Void && b.Kind == types.Void {
			return types.VoidT
		}
		if a.IsInt() && b.IsInt() {
			if a.Kind == types.Bool && b.Kind == types.Bool {
				return types.BoolT
			}
			return ternaryType(a, b, c.flexLiteral(e.Then, a), c.flexLiteral(e.Else, b))
		}
		u, ok := unify(a, b)
		if !ok {
			c.errorf(e, "ternary branches have different types: %s and %s", a, b)
			return nil
		}
		return u
	case *ast.Field:
		return c.field(e)
	case *ast.Cast:
		return c.cast(e)
	case *ast.Discard:
		c.errorf(e, "_ can only be assigned to")
		return nil
	case *ast.SizeofExpr:
		return c.sizeof(e)
	case *ast.OffsetofExpr:
		return c.offsetof(e)
	case *ast.TypeArg:
		c.errorf(e, "When used as a call argument, `typeof` builtin only valid for macro calls that are expecting a type parameter")
		return nil
	case *ast.Tuple:
		return c.tuple(e)
	case *ast.BlockExpr:
		return c.blockExpr(e)
	case *ast.Index:
		return c.index(e)
	}
	c.errorf(e, "unexpected expression")
	return nil
}

func exprName(e ast.Expr) string {
	switch e.(type) {
	case *ast.Index:
		return "indexing"
	case *ast.Tuple:
		return "tuples"
	case *ast.SizeofExpr:
		return "sizeof"
	case *ast.OffsetofExpr:
		return "offsetof"
	}
	return "this expression"
}

// scaleDuration applies an integer literal's duration suffix (to nanoseconds).
func scaleDuration(e *ast.IntLit) (uint64, error) {
	mult := map[string]uint64{"": 1, "ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9}[e.Suffix]
	if mult == 0 {
		return 0, fmt.Errorf("unknown duration suffix %q", e.Suffix)
	}
	if e.Value != 0 && e.Value > ^uint64(0)/mult {
		return 0, fmt.Errorf("integer literal %s overflows 64 bits", e.Text)
	}
	return e.Value * mult, nil
}

func (c *checker) posParam(e *ast.PosParam) *types.Type {
	if e.Index == -1 {
		c.info.Consts[e] = builtin.Const{Int: uint64(len(c.opts.Params))}
		return types.Int64
	}
	if e.Index < 1 || e.Index > len(c.opts.Params) {
		// bpftrace: a missing parameter is zero in a numeric context.
		c.info.Consts[e] = builtin.Const{Int: 0}
		return types.Int64
	}
	s := c.opts.Params[e.Index-1]
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		c.info.Consts[e] = builtin.Const{Int: uint64(v)}
		return types.Int64
	}
	if v, err := strconv.ParseUint(s, 0, 64); err == nil {
		c.info.Consts[e] = builtin.Const{Int: v}
		return types.Uint64
	}
	c.info.Consts[e] = builtin.Const{IsStr: true, Str: s}
	return types.NewString(len(s) + 1)
}

func (c *checker) unary(e *ast.Unary) *types.Type {
	switch e.Op {
	case "++", "--":
		c.incDec(e.X, e.Op, e)
		return c.info.Types[e.X]
	case "&":
		if m, ok := ast.Unparen(e.X).(*ast.MapRef); ok {
			return c.mapAddr(e, m)
		}
	}
	t := c.expr(e.X)
	if t == nil {
		return nil
	}
	switch e.Op {
	case "!":
		if !isCondition(t) {
			c.errorf(e, "! needs an integer, bool or pointer operand, not %s", t)
			return nil
		}
		c.foldCondition(e)
		return types.BoolT
	case "~", "-":
		if !t.IsInt() || t.Kind == types.Bool {
			c.errorf(e, "%s needs an integer operand, not %s", e.Op, t)
			return nil
		}
		return c.foldUnary(e, t)
	case "*":
		if t.Kind == types.Int {
			// An integer is an address: bpftrace reads a uint64 there
			// (*kaddr("avenrun")), in the probe's address space.
			return types.Uint64
		}
		if t.Kind != types.Pointer || t.Elem == nil || t.Elem.Kind == types.Void {
			c.errorf(e, "cannot dereference %s", t)
			return nil
		}
		if !t.Elem.IsInt() && t.Elem.Kind != types.Pointer && t.Elem.Kind != types.Struct && !derefable(t.Elem) {
			c.errorf(e, "dereferencing %s is not supported yet", t)
			return nil
		}
		return t.Elem
	case "&":
		return c.addrOf(e, t)
	}
	c.errorf(e, "unary %s is not supported yet", e.Op)
	return nil
}

// sameKindEq are the kinds, each held in one 64-bit integer, whose values
// compare for equality with values of the same kind.
var sameKindEq = map[types.Kind]bool{
	types.Username: true, types.Ksym: true, types.Errno: true,
	types.SyscallName: true, types.SignalName: true, types.Timestamp: true,
}

func (c *checker) binary(e *ast.Binary) *types.Type {
	a, b := c.expr(e.X), c.expr(e.Y)
	if a == nil || b == nil {
		return nil
	}
	c.markFlex(e.X, a)
	c.markFlex(e.Y, b)
	switch e.Op {
	case "&&", "||":
		if !isCondition(a) || !isCondition(b) {
			c.errorf(e, "%s needs integer, bool or pointer operands, not %s and %s", e.Op, a, b)
			return nil
		}
		c.foldCondition(e)
		return types.BoolT
	case "==", "!=":
		if a.Kind == types.String && b.Kind == types.String {
			c.foldCondition(e)
			return types.BoolT
		}
		if comparableValues(a, b) || (a.Kind == b.Kind && a.Size == 8 && sameKindEq[a.Kind]) {
			// arrays, tuples, records and bufs compare by value; two
			// values of a builtin's kind held as one integer (username
			// == username) are equal when the integers are
			return types.BoolT
		}
		fallthrough
	case "<", "<=", ">", ">=":
		if (a.IsInt() || a.Kind == types.Pointer) && (b.IsInt() || b.Kind == types.Pointer) {
			if a.IsInt() && b.IsInt() {
				c.foldCondition(e)
				c.warnOperandCasts(e.Op, e.X, e.Y, a, b, nil)
			}
			return types.BoolT
		}
		c.errorf(e, "cannot compare %s with %s", a, b)
		return nil
	}
	// Pointer arithmetic: p + n, n + p and p - n, scaled by the pointee's
	// size as in C.
	switch {
	case a.Kind == types.Pointer && b.IsInt() && (e.Op == "+" || e.Op == "-"):
		return a
	case b.Kind == types.Pointer && a.IsInt() && e.Op == "+":
		return b
	case a.Kind == types.Pointer || b.Kind == types.Pointer:
		c.errorf(e, "pointer arithmetic allows only pointer + integer and pointer - integer, not %s %s %s", a, e.Op, b)
		return nil
	}
	if !a.IsInt() || !b.IsInt() {
		c.errorf(e, "%s needs integer operands, not %s and %s", e.Op, a, b)
		return nil
	}
	if c.isLiteral(e.X) && c.isLiteral(e.Y) {
		// bpftrace folds arithmetic on literals exactly, and rejects what
		// does not fit.
		r, ok := foldLiterals(e.Op, literalValue(c.info.Consts[e.X], a), literalValue(c.info.Consts[e.Y], b))
		if !ok {
			c.errorf(e, "%s", errFold)
			return nil
		}
		if r != nil {
			cv, t := literalConst(r)
			c.info.Consts[e] = cv
			return t
		}
	}
	xflex, yflex := c.flexLiteral(e.X, a), c.flexLiteral(e.Y, b)
	rt := arithType(e.Op, a, b, xflex, yflex)
	c.warnOperandCasts(e.Op, e.X, e.Y, a, b, rt)
	if c.signedDivWarning(e.Op, e.X, e.Y, a, b) {
		c.warnOnceSpan(bpfSpan(e), fmt.Sprintf("signed operands for '%s' can lead to undefined behavior (cast to unsigned to silence warning)", e.Op))
	}
	x, xok := c.info.Consts[e.X]
	y, yok := c.info.Consts[e.Y]
	if xok && yok && !x.IsStr && !y.IsStr {
		signed := rt.Signed
		switch e.Op {
		case "/", "%", ">>":
			signed = c.info.SignedOperands(e.X, e.Y)
		}
		if v, ok := foldBinary(e.Op, x.Int, y.Int, signed); ok {
			c.info.Consts[e] = builtin.Const{Int: v}
		}
	}
	return rt
}

// flexLiteral reports whether e, of type t, is a non-negative literal,
// which takes the sign of the other operand of a binary operation.
func (c *checker) flexLiteral(e ast.Expr, t *types.Type) bool {
	return c.isLiteral(e) && t.Kind == types.Int && t.Signed && int64(c.info.Consts[e].Int) >= 0 || c.info.FlexVals[e]
}

// markFlex records in Info.FlexVals the operand e, of type t, when it is
// a non-negative integer literal or reads a variable or map whose own type
// is a flexible one.
func (c *checker) markFlex(e ast.Expr, t *types.Type) {
	if t == nil || t.Kind != types.Int || !t.Signed {
		return
	}
	if c.isLiteral(e) {
		// a literal (not a cast: (int32)5 is an int32)
		c.info.FlexVals[e] = int64(c.info.Consts[e].Int) >= 0
		return
	}
	switch ast.Unparen(e).(type) {
	case *ast.Var, *ast.MapRef:
		if c.ownType(e, t).Flexible {
			c.info.FlexVals[e] = true
		}
	}
}

// foldUnary types -x and ~x on an integer x of type t. On a literal they
// fold as bpftrace does: ~ yields the non-negative complement (so ~10 is
// the uint64 18446744073709551605) and - a negative literal, an error
// below MinInt64. Otherwise the result is int64 for a signed operand and
// uint64 for an unsigned one, computed in the operand's width and extended
// (~(uint8)0 is 255).
func (c *checker) foldUnary(e *ast.Unary, t *types.Type) *types.Type {
	cv, isConst := c.info.Consts[e.X]
	if c.isLiteral(e.X) {
		v := literalValue(cv, t)
		if e.Op == "~" {
			if v.Sign() >= 0 {
				v.SetUint64(^v.Uint64())
			} else {
				v.SetUint64(^uint64(v.Int64()))
			}
		} else {
			v.Neg(v)
			if v.Cmp(minInt64) < 0 {
				c.errorf(e, "negative value will underflow")
				return nil
			}
		}
		k, rt := literalConst(v)
		c.info.Consts[e] = k
		return rt
	}
	// computed in the operand's own width (a variable's: 237 for -$x
	// of $x = (uint8)19), and of its type, as bpftrace does
	w := t
	if own := c.ownType(e.X, t); own.Kind == types.Int && own.Size < t.Size {
		w = own
	}
	rt := types.Uint64
	if w.Signed {
		rt = types.Int64
	}
	if w.Size < 8 {
		rt = types.NewInt(w.Size, w.Signed)
	}
	if isConst && !cv.IsStr {
		if e.Op == "~" {
			c.info.Consts[e] = builtin.Const{Int: types.Truncate(^cv.Int, w)}
		} else {
			c.info.Consts[e] = builtin.Const{Int: types.Truncate(-cv.Int, w)}
		}
	}
	return rt
}

// warnf records a warning: a problem that does not stop the script.
func (c *checker) warnf(at srcpos.Spanned, format string, args ...any) {
	if c.quiet {
		return
	}
	sp := at.GetSpan()
	c.prog.Warnings = append(c.prog.Warnings, &syntax.Error{Pos: sp.Start, End: sp.End, Msg: fmt.Sprintf(format, args...)})
}

// tuple types (a, b, ...) and records (x=a, y=b): elements are stored
// widened (integers as 64 bits) and laid out as bpftrace does.
func (c *checker) tuple(e *ast.Tuple) *types.Type {
	elems := make([]*types.Type, 0, len(e.Elems))
	for _, x := range e.Elems {
		t := c.expr(x)
		if t == nil {
			return nil
		}
		switch t.Kind {
		case types.Struct, types.Array:
			if t = c.valueType(x, t); t == nil {
				return nil
			}
		case types.Void, types.Ctx, types.Invalid:
			c.errorf(x, "%s cannot be a tuple element", t)
			return nil
		default:
			if t.IsAggregation() {
				c.errorf(x, "%s cannot be a tuple element", t)
				return nil
			}
		}
		elems = append(elems, c.ownType(x, t))
	}
	return types.NewTuple(elems, e.Names)
}

// tupleElem is the type of x as a tuple element: its own type, not widened,
// as bpftrace lays tuples out; an integer literal takes the smallest signed
// type that holds it (int8 for 1), flexible when it is not negative.
func (c *checker) tupleElem(x ast.Expr, t *types.Type) *types.Type {
	if t.Kind != types.Int || !c.isLiteral(x) || t.Size != 8 || !t.Signed {
		return t
	}
	v := int64(c.info.Consts[x].Int)
	size := 8
	switch {
	case v >= math.MinInt8 && v <= math.MaxInt8:
		size = 1
	case v >= math.MinInt16 && v <= math.MaxInt16:
		size = 2
	case v >= math.MinInt32 && v <= math.MaxInt32:
		size = 4
	}
	nt := types.NewInt(size, true)
	nt.Flexible = v >= 0
	return nt
}

// index types x[i]: an element of a pointer, a kernel or tracepoint array,
// or a byte of a string.
func (c *checker) index(e *ast.Index) *types.Type {
	xt := c.expr(e.X)
	it := c.expr(e.Index)
	if xt == nil || it == nil {
		return nil
	}
	if !it.IsInt() {
		c.errorf(e.Index, "an index must be an integer, not %s", it)
		return nil
	}
	cv, isConst := c.info.Consts[e.Index]
	switch xt.Kind {
	case types.String:
		// an index known only at run time reads 0 past the string
		if isConst && cv.Int >= uint64(xt.Size) {
			c.errorf(e.Index, "the index %d is out of bounds for a string of %d bytes", int64(cv.Int), xt.Size)
			return nil
		}
		return types.Uint8
	case types.Array:
		if isConst && int(cv.Int) >= xt.Len && !(xt.Len == 0 && xt.BTF != nil) { // y[0]: a flexible array member
			c.errorf(e.Index, "the index %d is out of bounds for array of size %d", cv.Int, xt.Len)
			return nil
		}
		if !isConst && xt.BTF == nil && !isArgsField(e.X) {
			c.errorf(e.Index, "an index into a %s value must be a constant", xt)
			return nil
		}
		return xt.Elem
	case types.Tuple:
		if !isConst || int(cv.Int) >= len(xt.Fields) {
			c.errorf(e.Index, "a tuple index must be a constant below %d", len(xt.Fields))
			return nil
		}
		return xt.Fields[cv.Int].Type
	case types.Pointer:
		if xt.Elem == nil || xt.Elem.Kind == types.Void {
			c.errorf(e, "cannot index %s", xt)
			return nil
		}
		return xt.Elem
	}
	c.errorf(e, "cannot index %s", xt)
	return nil
}

// blockExpr checks `{ stmts; value }`: the statements in a scope of their
// own, then the value, the last statement, which must be an expression.
func (c *checker) blockExpr(e *ast.BlockExpr) *types.Type {
	stmts := e.Body.Stmts
	if len(stmts) == 0 {
		c.errorf(e, "a block used as a value must end with an expression")
		return nil
	}
	last, ok := stmts[len(stmts)-1].(*ast.ExprStmt)
	if !ok {
		c.errorf(stmts[len(stmts)-1].Pos(), "a block used as a value must end with an expression")
		return nil
	}
	c.scopes = append(c.scopes, map[string]int{})
	defer func() { c.scopes = c.scopes[:len(c.scopes)-1] }()
	for _, s := range stmts[:len(stmts)-1] {
		c.stmt(s)
	}
	return c.expr(last.X)
}
