package check

import (
	"fmt"
	"strings"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/srcpos"
	"github.com/gotrace/gotrace/lang/types"
)

func isCondition(t *types.Type) bool {
	return t.IsInt() || t.Kind == types.Pointer
}

func (c *checker) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.ExprStmt:
		c.exprStmt(s.X)
	case *ast.AssignStmt:
		c.assign(s)
	case *ast.IncDecStmt:
		c.incDec(s.X, s.Op, s)
	case *ast.IfStmt:
		if t := c.expr(s.Cond); t != nil && !isCondition(t) {
			c.errorf(s.Cond, "condition must be an integer, bool or pointer, not %s", t)
		}
		if then, ok := c.info.Comptime(s.Cond); ok {
			// if comptime: only the branch taken is checked
			if then {
				c.block(s.Then)
			} else if s.Else != nil {
				c.stmt(s.Else)
			}
			return
		}
		c.block(s.Then)
		if s.Else != nil {
			c.stmt(s.Else)
		}
	case *ast.BlockStmt:
		c.block(s.Body)
	case *ast.ReturnStmt:
		// A probe's return value is evaluated, then ignored: the
		// probe ends as with a bare return.
		if s.X != nil {
			if t := c.expr(s.X); t != nil && !t.IsInt() {
				c.errorf(s.X, "a probe returns an integer, not %s", t)
			}
		}
	case *ast.LetStmt:
		c.let(s)
	case *ast.WhileStmt:
		// bpftrace 0.27's deprecation, at the whole loop
		c.warnOnceSpan(s.Span, "While loops are deprecated and may be removed in the future.",
			"For loops support ranges (e.g. `for ($x : $start..$end) { ... }`), and can be used in place of while. These are more easily proven to be bounded by the verifier.")
		if t := c.expr(s.Cond); t != nil && !isCondition(t) {
			c.errorf(s.Cond, "condition must be an integer, bool or pointer, not %s", t)
		}
		if cv, ok := c.info.Consts[s.Cond]; ok && !cv.IsStr && cv.Int != 0 && !leaves(s.Body) {
			c.errorf(s, "this loop never ends: the verifier rejects loops it cannot bound (use for ($i : 0..N) or break)")
		}
		c.loops++
		c.block(s.Body)
		c.loops--
	case *ast.ForRangeStmt:
		c.forRange(s)
	case *ast.UnrollStmt:
		c.unroll(s)
	case *ast.BranchStmt:
		if c.loops == 0 {
			c.errorf(s, "%s outside of a loop", s.Tok)
		}
	case *ast.ForMapStmt:
		c.forMap(s)
	default:
		c.errorf(s, "unexpected statement")
	}
}

// MaxLoopIterations bounds for-range loops, which the verifier walks
// iteration by iteration.
const MaxLoopIterations = 1024

// MaxUnroll is bpftrace's limit for unroll(n).
const MaxUnroll = 100

func (c *checker) let(s *ast.LetStmt) {
	var t, declared *types.Type
	if s.Type != nil {
		if t = c.resolveType(s.Type); t == nil {
			return
		}
		if t.Kind == types.Pointer {
			// let $p: struct C *: a pointer into the probe's own address
			// space, as a cast of an integer makes
			t = types.WithAS(t, c.probeAddrSpace())
		}
		if s.Type.IsArray && s.Type.ArrayLen > 0 {
			// let $a: struct W[10]: an array value
			t = &types.Type{Kind: types.Array, Size: t.Size * s.Type.ArrayLen, Len: s.Type.ArrayLen, Elem: copiedType(t, 0)}
			if !c.fitsValue(s.Type, t) {
				return
			}
		}
		if t = c.valueType(s.Type, t); t == nil {
			return
		}
		declared = t
		if !t.IsInt() {
			t = types.Storage(t)
		}
	}
	var rt *types.Type
	if s.Init != nil {
		if rt = c.expr(s.Init); rt == nil {
			return
		}
		if rt = c.valueType(s.Init, rt); rt == nil {
			return
		}
	}
	if _, ok := c.scopes[len(c.scopes)-1][s.Var.Name]; ok {
		c.errorf(s.Var, "variable %s is already declared in this block", s.Var.Name)
		return
	}
	if _, ok := c.lookupVar(s.Var.Name); ok {
		c.errorf(s.Var, "variable %s shadows a variable of an enclosing block", s.Var.Name)
		return
	}
	if t == nil && rt == nil {
		// let $x; takes its type from the first assignment.
		c.declareVar(s.Var, nil)
		return
	}
	own := declared
	if t == nil {
		t, own = types.Storage(rt), c.ownType(s.Init, rt)
	} else if rt != nil {
		// A declared integer type is kept: values are truncated to it.
		if _, ok := unify(t, types.Storage(rt)); !ok || (t.IsInt() != rt.IsInt()) {
			c.errorf(s.Init, "cannot initialise %s of type %s with %s", s.Var.Name, t, rt)
			return
		}
	}
	if declared != nil && declared.IsInt() && rt != nil && !c.fitsInt(s, s.Var.Name, s.Init, rt, declared) {
		return
	}
	id := c.declareVar(s.Var, t)
	c.info.Types[s.Var] = t
	c.info.VarOwnTypes[id] = own
	if declared != nil && declared.IsInt() {
		c.declared[id] = declared
	}
}

func (c *checker) forRange(s *ast.ForRangeStmt) {
	lo, hi := c.expr(s.Lo), c.expr(s.Hi)
	if lo == nil || hi == nil {
		return
	}
	if !lo.IsInt() || !hi.IsInt() {
		c.errorf(s.Lo, "for range bounds must be integers, not %s and %s", lo, hi)
		return
	}
	// Bounds known only at run time make a bpf_loop call.
	lv, lok := c.info.Consts[s.Lo]
	hv, hok := c.info.Consts[s.Hi]
	if n := int64(hv.Int) - int64(lv.Int); lok && hok && n > MaxLoopIterations {
		c.errorf(s.Hi, "for range of %d iterations is too long for the verifier (at most %d)", n, MaxLoopIterations)
		return
	}
	c.scopes = append(c.scopes, map[string]int{})
	c.declareVar(s.Var, types.Int64)
	c.info.Types[s.Var] = types.Int64
	c.loops++
	c.block(s.Body)
	c.loops--
	c.scopes = c.scopes[:len(c.scopes)-1]
}

// forMap checks for ($kv : @map): $kv is the tuple (key, value), with the
// keys of a multi-key map as a nested tuple.
func (c *checker) forMap(s *ast.ForMapStmt) {
	mt := c.prog.Maps[s.Map.Name]
	if s.Map.Keys != nil {
		c.errorf(s.Map, "for iterates over a whole map: write %s without keys", s.Map.Name)
		return
	}
	if mt == nil || mt.Value == nil {
		if !c.quiet {
			c.errorf(s.Map, "undefined map %s", s.Map.Name)
		}
		return
	}
	if mt.Keys == nil {
		c.errorf(s.Map, "map %s has no keys to iterate over", s.Map.Name)
		return
	}
	val := mt.Value
	switch val.Kind {
	case types.Count, types.Sum, types.Min, types.Max, types.Avg:
		// the value is the aggregate over the CPUs (the sum, minimum,
		// maximum or average), as bpftrace 0.26 reads it
		val = types.NewInt(8, val.Kind != types.Count && val.Signed)
	default:
		if val.IsAggregation() {
			c.errorf(s.Map, "Loop expression does not support type: %s", mt.Value)
			return
		}
	}
	key := mt.Keys[0]
	if len(mt.Keys) > 1 {
		key = types.NewTuple(mt.Keys, nil)
	}
	kv := types.NewTuple([]*types.Type{key, val}, nil)
	c.info.Types[s.Map] = mt.Value
	c.scopes = append(c.scopes, map[string]int{})
	c.declareVar(s.Var, kv)
	c.info.Types[s.Var] = kv
	c.loops++
	c.block(s.Body)
	c.loops--
	c.scopes = c.scopes[:len(c.scopes)-1]
}

func (c *checker) unroll(s *ast.UnrollStmt) {
	if t := c.expr(s.Count); t == nil {
		return
	}
	cv, ok := c.info.Consts[s.Count]
	switch {
	case !ok || cv.IsStr:
		c.errorf(s.Count, "unroll() needs a constant between 1 and %d", MaxUnroll)
		return
	case int64(cv.Int) < 1:
		c.errorf(s.Count, "unroll minimum value is 1")
		return
	case int64(cv.Int) > MaxUnroll:
		c.errorf(s.Count, "unroll maximum value is %d", MaxUnroll)
		return
	}
	c.block(s.Body)
}

func stmtName(s ast.Stmt) string {
	switch s := s.(type) {
	case *ast.LetStmt:
		return "let"
	case *ast.ForRangeStmt, *ast.ForMapStmt:
		return "for"
	case *ast.WhileStmt:
		return "while"
	case *ast.UnrollStmt:
		return "unroll"
	case *ast.BranchStmt:
		return s.Tok
	}
	return "statement"
}

func (c *checker) exprStmt(e ast.Expr) {
	if u, ok := e.(*ast.Unary); ok && (u.Op == "++" || u.Op == "--") {
		c.incDec(u.X, u.Op, u)
		c.info.Types[e] = types.VoidT
		return
	}
	if call, ok := e.(*ast.Call); ok {
		if f := builtin.LookupFunc(call.Name); f != nil && f.Agg {
			c.errorf(call, "%s() must be assigned to a map, e.g. @x = %s(...)", call.Name, call.Name)
			return
		}
	}
	if t := c.expr(e); t != nil && t.Kind != types.Void {
		// bpftrace 0.27 warns about a value nothing uses
		c.warnOnceSpan(e.GetSpan(), "Return value discarded.")
	}
}

// incDec checks x++ / x-- on a map or variable; at is the whole x++, where
// a type mismatch is reported.
func (c *checker) incDec(x ast.Expr, op string, at srcpos.Spanned) {
	switch x := x.(type) {
	case *ast.MapRef:
		vt := flexibleInt64()
		if pt := c.mapPointer(x.Name); pt != nil {
			vt = pt // p++ steps a pointer by the size of what it points to
		} else if xt := c.lhsInt(x); xt != nil {
			vt = incDecType(op, xt) // @x-- of a uint64 holds -1
		}
		nerr := len(c.errs)
		mt := c.mapUse(x, vt, at)
		if mt != nil && vt.Kind == types.Int && !vt.Flexible {
			mt.ownValue = promoteOwn(mt.ownValue, vt)
		}
		c.info.Types[x] = types.Int64
		if mt != nil && mt.Value != nil && mt.Value.Kind == types.Pointer {
			c.info.Types[x] = mt.Value
		} else if mt != nil && mt.Value != nil && !mt.Value.IsInt() && len(c.errs) == nerr {
			// (a type mismatch reported by mapUse says it already)
			c.errorf(x, "%s needs an integer or pointer map, %s holds %s", op, x.Name, mt.Value)
		}
	case *ast.Var:
		t := c.useVar(x)
		if t == nil {
			return
		}
		c.info.Types[x] = t
		if !t.IsInt() && t.Kind != types.Pointer {
			c.errorf(x, "%s needs an integer or pointer variable, %s is %s", op, x.Name, t)
		}
		if id := c.info.VarIDs[x]; t.Kind == types.Int && c.declared[id] == nil {
			// $x-- of a uint64 holds -1
			c.assignVar(x, incDecType(op, t), incDecType(op, t), "+=", at)
		}
	default:
		c.errorf(x, "%s can only be applied to a map or a variable", op)
	}
}

func (c *checker) assign(s *ast.AssignStmt) {
	// Aggregations: @m[...] = count() etc.
	if call, ok := s.Rhs.(*ast.Call); ok {
		if f := builtin.LookupFunc(call.Name); f != nil && f.Agg {
			m, ok := s.Lhs.(*ast.MapRef)
			if !ok || s.Op != "=" {
				c.errorf(call, "%s() must be assigned to a map with =, e.g. @x = %s(...)", call.Name, call.Name)
				return
			}
			vt := c.call(call)
			if vt == nil {
				return
			}
			c.mapUse(m, vt, call) // bpftrace places a mismatch at the call
			c.info.Types[m] = vt
			return
		}
	}
	if m, ok := s.Lhs.(*ast.MapRef); ok {
		c.selfAssign = m.Name
	}
	rt := c.expr(s.Rhs)
	c.selfAssign = ""
	if rt != nil {
		rt = c.valueType(s.Rhs, rt) // a struct or array is copied
	}
	if rt == nil {
		// Declare the variable anyway so that its uses do not report
		// follow-on errors.
		if v, ok := s.Lhs.(*ast.Var); ok {
			if _, found := c.lookupVar(v.Name); !found {
				id := c.declareVar(v, nil)
				if c.info.VarTypes[id] == nil {
					c.info.VarTypes[id] = poisoned
				}
			}
		}
		return
	}
	if rt.Kind == types.Void {
		c.errorf(s.Rhs, "expression has no value to assign")
		return
	}
	rhsType := rt
	if s.Op != "=" {
		if !rt.IsInt() {
			c.errorf(s.Rhs, "%s needs an integer operand, not %s", s.Op, rt)
			return
		}
		rt = flexibleInt64() // x op= y on a map of no type yet
		if xt := c.lhsInt(s.Lhs); xt != nil {
			// x op= y is x = x op y: x's type is promoted with the type of
			// x op y, as bpftrace 0.27 does ($a = (uint64)1; $a -= 5
			// holds -4)
			rt = arithType(strings.TrimSuffix(s.Op, "="), xt, rhsType, c.ownType(s.Lhs, xt).Flexible, c.flexLiteral(s.Rhs, rhsType))
		}
		if pt := c.lhsPointer(s.Lhs); pt != nil {
			if s.Op != "+=" && s.Op != "-=" {
				c.errorf(s.Lhs, "%s is not defined on a pointer (%s): only += and -= are", s.Op, pt)
				return
			}
			rt = pt // p += n steps n times the size of *p
		}
	}
	if s.Op == "=" {
		rt = c.flexible(s.Rhs, rt)
	}
	switch l := s.Lhs.(type) {
	case *ast.MapRef:
		if rt.IsAggregation() {
			c.errorf(s.Rhs, "cannot assign %s to a map; use the aggregation function directly", rt)
			return
		}
		nerr := len(c.errs)
		mt := c.mapUse(l, types.Storage(rt), s)
		if mt != nil && mt.Value != nil {
			if s.Op == "=" {
				own := c.ownType(s.Rhs, rt)
				mt.ownValue = promoteOwn(mt.ownValue, own)
				// converted to the map's type, which other
				// assignments may have promoted
				if t := mt.ownValue; own.Kind == types.Int && t.Kind == types.Int && !c.isLiteral(s.Rhs) && !intFitsInto(own, t) {
					c.warnCast(bpfSpan(s.Rhs), own, t)
				}
			} else if rt.Kind == types.Int && !rt.Flexible {
				mt.ownValue = promoteOwn(mt.ownValue, rt)
			}
			c.info.Types[l] = mt.Value
			if s.Op != "=" && !mt.Value.IsInt() && mt.Value.Kind != types.Pointer && len(c.errs) == nerr {
				c.errorf(l, "%s needs an integer or pointer map, %s holds %s", s.Op, l.Name, mt.Value)
			} else if s.Op != "=" {
				c.compoundCasts(s, mt.Value, rhsType, nil)
			}
		}
	case *ast.Var:
		own := rt // x op y
		if s.Op == "=" {
			own = c.ownType(s.Rhs, rt)
		}
		c.assignVar(l, rt, own, s.Op, s)
		if id, ok := c.info.VarIDs[l]; ok && s.Op == "=" {
			// its declared type, else its values' types promoted (all of
			// them: pass 1 kept them)
			target := c.declared[id]
			if target == nil && id < len(c.info.VarOwnTypes) {
				target = c.info.VarOwnTypes[id]
			}
			if target != nil {
				c.fitsInt(s, l.Name, s.Rhs, rt, target)
			}
		} else if ok {
			c.compoundCasts(s, c.info.VarTypes[id], rhsType, c.declared[id])
		}
	case *ast.Discard:
		c.info.Types[l] = rt
	default:
		c.errorf(s.Lhs, "cannot assign to this expression")
	}
}

// incDecType is the type of x + 1 (op "++") or x - 1 (op "--") for x of
// integer type t: x++ and x-- promote x's type with it, as x += 1 does.
func incDecType(op string, t *types.Type) *types.Type {
	return arithType(op[:1], t, types.Int64, false, true)
}

// lhsInt returns the integer type the target of a compound assignment (a
// variable or a map) holds so far, or nil.
func (c *checker) lhsInt(x ast.Expr) *types.Type {
	var t *types.Type
	switch x := x.(type) {
	case *ast.MapRef:
		if mt := c.prog.Maps[x.Name]; mt != nil {
			t = mt.Value
		}
	case *ast.Var:
		if id, ok := c.lookupVar(x.Name); ok {
			t = c.info.VarTypes[id]
		}
	}
	if t == nil || t == poisoned || t.Kind != types.Int {
		return nil
	}
	return t
}

// mapPointer returns the pointer type map name holds so far, or nil.
func (c *checker) mapPointer(name string) *types.Type {
	if mt := c.prog.Maps[name]; mt != nil && mt.Value != nil && mt.Value.Kind == types.Pointer {
		return mt.Value
	}
	return nil
}

// lhsPointer returns the pointer type of the target of a compound
// assignment (a map or variable holding a pointer), or nil.
func (c *checker) lhsPointer(x ast.Expr) *types.Type {
	switch x := x.(type) {
	case *ast.MapRef:
		return c.mapPointer(x.Name)
	case *ast.Var:
		if id, ok := c.lookupVar(x.Name); ok {
			if t := c.info.VarTypes[id]; t != nil && t != poisoned && t.Kind == types.Pointer {
				return t
			}
		}
	}
	return nil
}

// assignVar assigns a value of type rt (own type own, before storage
// widens it) to a variable, declaring it in the current block when it is
// not visible yet. A type mismatch is reported at the assignment at, as
// bpftrace does.
func (c *checker) assignVar(l *ast.Var, rt, own *types.Type, op string, at srcpos.Spanned) {
	id, ok := c.lookupVar(l.Name)
	if !ok {
		if op != "=" {
			c.errorf(l, "variable %s is used before it is assigned", l.Name)
			return
		}
		id = c.declareVar(l, nil)
	}
	c.info.VarIDs[l] = id
	old := c.info.VarTypes[id]
	if old == poisoned {
		old = nil
	}
	if op != "=" && old != nil && (c.declared[id] != nil || rt.Kind != types.Int || rt.Flexible) {
		// x op= y keeps a declared type or a pointer's: the result wraps
		// to it.
		c.info.Types[l] = old
		return
	}
	nt := types.Storage(rt)
	if old != nil {
		u, ok := unify(old, nt)
		if !ok {
			c.errorf(at, "Type mismatch for %s: trying to assign value of type '%s' when variable already has a type '%s'", l.Name, rt, old)
			return
		}
		nt = u
	}
	c.info.VarTypes[id] = nt
	c.info.Types[l] = nt
	c.assignOwnType(id, own)
}

// leaves reports whether a loop body contains a break, return or exit()
// (outside nested loops, for break).
func leaves(b *ast.Block) bool {
	found := false
	var walk func(n ast.Node, inLoop bool)
	walk = func(n ast.Node, inLoop bool) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.BranchStmt:
				if m.Tok == "break" && !inLoop {
					found = true
				}
			case *ast.ReturnStmt:
				found = true
			case *ast.Call:
				if callEnds(m) {
					found = true
				}
			case *ast.WhileStmt:
				walk(m.Body, true)
				return false
			case *ast.ForRangeStmt:
				walk(m.Body, true)
				return false
			case *ast.ForMapStmt:
				walk(m.Body, true)
				return false
			}
			return !found
		})
	}
	walk(b, false)
	return found
}

// fitsInt checks a value assigned to the variable name whose type is
// target, as bpftrace does: an integer literal that the type cannot hold
// is an error at the assignment; another integer whose own type does not
// fit in it (a signed value into an unsigned variable, uint64 into int64)
// is converted with a warning at the value.
func (c *checker) fitsInt(stmt srcpos.Spanned, name string, rhs ast.Expr, rt, target *types.Type) bool {
	if !target.IsInt() || !rt.IsInt() || target.Kind == types.Bool || rt.Kind == types.Bool {
		return true
	}
	own := c.ownType(rhs, rt)
	if c.isLiteral(rhs) {
		if !literalFits(c.info.Consts[rhs].Int, own.Signed, target) {
			c.errorf(stmt, "Type mismatch for %s: trying to assign value of type '%s' when variable already has a type '%s'", name, own, target)
			return false
		}
		return true
	}
	if !intFitsInto(own, target) {
		c.warnCast(bpfSpan(rhs), own, target)
	}
	return true
}

// warnCast is bpftrace 0.27's warning for an integer of type from that it
// converts implicitly to type to, which does not hold all its values.
func (c *checker) warnCast(sp srcpos.Span, from, to *types.Type) {
	c.warnOnceSpan(sp, fmt.Sprintf("Expression of type: %s being cast to type: %s. This may cause unexpected results. Use an explicit cast to suppress this warning.", from, to))
}

// compoundCasts gives bpftrace 0.27's warnings for x op= y, which it
// reads as x = x op y (x of type xt, y of type yt): an operand converted
// with a loss to the type of x op y, and x op y converted with a loss to
// declared, the type a let gave x (nil when none), placed from the
// operator to the end of y.
func (c *checker) compoundCasts(s *ast.AssignStmt, xt, yt, declared *types.Type) {
	if xt == nil || xt.Kind != types.Int || yt.Kind != types.Int {
		return
	}
	op := strings.TrimSuffix(s.Op, "=")
	rt := arithType(op, xt, yt, c.ownType(s.Lhs, xt).Flexible, c.flexLiteral(s.Rhs, yt))
	c.warnOperandCasts(op, s.Lhs, s.Rhs, xt, yt, rt)
	if c.signedDivWarning(op, s.Lhs, s.Rhs, xt, yt) && s.OpPos.Line > 0 {
		c.warnOnceSpan(srcpos.Span{Start: s.OpPos, End: s.Rhs.GetSpan().End}, fmt.Sprintf("signed operands for '%s' can lead to undefined behavior (cast to unsigned to silence warning)", op))
	}
	if declared != nil && declared.Kind == types.Int && !intFitsInto(rt, declared) && s.OpPos.Line > 0 {
		c.warnCast(srcpos.Span{Start: s.OpPos, End: s.Rhs.GetSpan().End}, rt, declared)
	}
}

// warnOperandCast warns, as bpftrace 0.27 does, when the operand x (of
// type t) of a binary operation is converted to the operation's type to
// and does not fit in it: (uint64)5 in $i + (uint64)5 with $i an int64.
// Literals and aggregations (@c = count()) convert silently.
func (c *checker) warnOperandCast(x ast.Expr, t, to *types.Type) {
	if t == nil || t.Kind != types.Int || to == nil || to.Kind != types.Int || c.isLiteral(x) {
		return
	}
	if m, ok := ast.Unparen(x).(*ast.MapRef); ok {
		if mt := c.prog.Maps[m.Name]; mt != nil && mt.Value.IsAggregation() {
			return
		}
	}
	if own := c.ownType(x, t); !intFitsInto(own, to) {
		c.warnCast(bpfSpan(x), own, to)
	}
}

// warnOperandCasts warns about the operands of x op y (of types a and b)
// that bpftrace converts with a loss: to the result type rt of arithmetic,
// to the promoted type of both for a comparison.
func (c *checker) warnOperandCasts(op string, x, y ast.Expr, a, b, rt *types.Type) {
	switch op {
	case "==", "!=", "<", "<=", ">", ">=":
		if a.Kind != types.Int || b.Kind != types.Int {
			return
		}
		rt = promoteInt(c.ownType(x, a), c.ownType(y, b))
	}
	c.warnOperandCast(x, a, rt)
	c.warnOperandCast(y, b, rt)
}

// literalFits reports whether the integer literal v (negative when signed
// and its top bit is set) is in the range of t.
func literalFits(v uint64, signed bool, t *types.Type) bool {
	bits := uint(8 * t.Size)
	neg := signed && int64(v) < 0
	switch {
	case neg && !t.Signed:
		return false
	case neg:
		return bits == 64 || int64(v) >= -1<<(bits-1)
	case t.Signed:
		return v <= 1<<(bits-1)-1
	default:
		return bits == 64 || v <= 1<<bits-1
	}
}

// intFitsInto is bpftrace's SizedType::FitsInto for integers: same sign
// (or a flexible one) and no larger, or unsigned into a larger signed type.
func intFitsInto(a, b *types.Type) bool {
	if a.Signed == b.Signed || a.Flexible {
		return a.Size <= b.Size
	}
	return !a.Signed && a.Size < b.Size
}
