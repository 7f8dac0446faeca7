package eval

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gotrace/gotrace/builtin"
	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/check"
	"github.com/gotrace/gotrace/lang/types"
)

// ErrUnsupported is wrapped by the errors of expressions the evaluator does
// not compute (maps, builtins, helper calls, pointers, ...).
var ErrUnsupported = errors.New("not supported by the evaluator")

// Value is the value of an expression.
type Value struct {
	// Type is the checker's type of the expression.
	Type *types.Type
	// Bits holds an integer or bool value as a 64-bit register does: sign-
	// or zero-extended from Type's size.
	Bits uint64
	// Str holds a string value, up to its first NUL.
	Str string
}

// IsString reports whether v is a string.
func (v Value) IsString() bool { return v.Type != nil && v.Type.Kind == types.String }

// Signed reports whether v is a signed integer.
func (v Value) Signed() bool { return v.Type != nil && v.Type.Kind == types.Int && v.Type.Signed }

// String formats v as printf's %lld (signed integers), %llu (unsigned
// integers and bools) or %s (strings) does.
func (v Value) String() string {
	switch {
	case v.IsString():
		return v.Str
	case v.Signed():
		return strconv.FormatInt(int64(v.Bits), 10)
	}
	return strconv.FormatUint(v.Bits, 10)
}

// Env evaluates expressions of one checked probe, with values for its
// scratch variables.
type Env struct {
	Info *check.Info
	// Vars holds the values of scratch variables, by declaration ID
	// (check.Info.VarOf).
	Vars map[int]Value
}

// NewEnv returns an Env for info without variables.
func NewEnv(info *check.Info) *Env { return &Env{Info: info, Vars: map[int]Value{}} }

// Expr evaluates a checked expression that involves no scratch variables.
func Expr(info *check.Info, e ast.Expr) (Value, error) { return NewEnv(info).Expr(e) }

func errorf(e ast.Node, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %w", e.Pos(), fmt.Sprintf(format, args...), ErrUnsupported)
}

// isUnsigned64 reports whether t forces unsigned arithmetic.
func isUnsigned64(t *types.Type) bool {
	return t.Kind == types.Int && !t.Signed && t.Size == 8
}

// Truncate converts the 64-bit value v to the integer or bool type t as a
// cast does (types.Truncate).
func Truncate(v uint64, t *types.Type) uint64 { return types.Truncate(v, t) }

// Expr evaluates a checked expression.
func (env *Env) Expr(e ast.Expr) (Value, error) {
	t := env.Info.TypeOf(e)
	if t == nil {
		return Value{}, errorf(e, "expression has no type (not checked?)")
	}
	v := Value{Type: t}
	switch e := e.(type) {
	case *ast.IntLit, *ast.BoolLit, *ast.PosParam, *ast.Ident:
		cv, ok := env.Info.Consts[e]
		if !ok {
			return Value{}, errorf(e, "%T without a constant value", e)
		}
		if cv.IsStr {
			v.Str = cstring(cv.Str)
		} else {
			v.Bits = cv.Int
		}
		return v, nil
	case *ast.StrLit:
		v.Str = cstring(e.Value)
		return v, nil
	case *ast.Paren:
		x, err := env.Expr(e.X)
		if err != nil {
			return Value{}, err
		}
		x.Type = t
		return x, nil
	case *ast.Var:
		id, _ := env.Info.VarOf(e)
		x, ok := env.Vars[id]
		if !ok {
			return Value{}, fmt.Errorf("%s: variable %s has no value", e.Pos(), e.Name)
		}
		x.Type = t
		return x, nil
	case *ast.Unary:
		return env.unary(e, v)
	case *ast.Binary:
		return env.binary(e, v)
	case *ast.Ternary:
		c, err := env.Expr(e.Cond)
		if err != nil {
			return Value{}, err
		}
		if c.IsString() {
			return Value{}, errorf(e, "string condition")
		}
		b := e.Else
		if c.Bits != 0 {
			b = e.Then
		}
		x, err := env.Expr(b)
		if err != nil {
			return Value{}, err
		}
		x.Type = t
		return x, nil
	case *ast.Cast:
		if !t.IsInt() {
			return Value{}, errorf(e, "cast to %s", t)
		}
		x, err := env.Expr(e.X)
		if err != nil {
			return Value{}, err
		}
		if x.IsString() {
			if t.Kind != types.Bool {
				return Value{}, errorf(e, "cast of a string")
			}
			// true unless the string is empty
			if x.Str != "" {
				v.Bits = 1
			}
			return v, nil
		}
		v.Bits = Truncate(x.Bits, t)
		return v, nil
	case *ast.Call:
		return env.call(e, v)
	}
	return Value{}, errorf(e, "%T", e)
}

// cstring cuts s at its first NUL, as the string's buffer is read.
func cstring(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}

func (env *Env) unary(e *ast.Unary, v Value) (Value, error) {
	switch e.Op {
	case "!", "~", "-":
	default:
		return Value{}, errorf(e, "unary %s", e.Op)
	}
	x, err := env.Expr(e.X)
	if err != nil {
		return Value{}, err
	}
	if x.IsString() || !x.Type.IsInt() {
		return Value{}, errorf(e, "unary %s on %s", e.Op, x.Type)
	}
	switch e.Op {
	case "!":
		if x.Bits == 0 {
			v.Bits = 1
		}
	case "~":
		v.Bits = ^x.Bits
	case "-":
		v.Bits = -x.Bits
	}
	if e.Op != "!" && v.Type.Kind == types.Int {
		v.Bits = Truncate(v.Bits, v.Type) // computed in the operand's own width, the result's type
	}
	return v, nil
}

func (env *Env) binary(e *ast.Binary, v Value) (Value, error) {
	x, err := env.Expr(e.X)
	if err != nil {
		return Value{}, err
	}
	switch e.Op {
	case "&&", "||":
		if x.IsString() || !x.Type.IsInt() {
			return Value{}, errorf(e, "%s on %s", e.Op, x.Type)
		}
		if (x.Bits != 0) == (e.Op == "||") {
			v.Bits = b2u(e.Op == "||")
			return v, nil
		}
		y, err := env.Expr(e.Y)
		if err != nil {
			return Value{}, err
		}
		if y.IsString() || !y.Type.IsInt() {
			return Value{}, errorf(e, "%s on %s", e.Op, y.Type)
		}
		v.Bits = b2u(y.Bits != 0)
		return v, nil
	}
	y, err := env.Expr(e.Y)
	if err != nil {
		return Value{}, err
	}
	if x.IsString() || y.IsString() {
		if !x.IsString() || !y.IsString() {
			return Value{}, errorf(e, "%s on %s and %s", e.Op, x.Type, y.Type)
		}
		switch e.Op {
		case "==":
			v.Bits = b2u(x.Str == y.Str)
		case "!=":
			v.Bits = b2u(x.Str != y.Str)
		default:
			return Value{}, errorf(e, "string %s", e.Op)
		}
		return v, nil
	}
	if !x.Type.IsInt() || !y.Type.IsInt() {
		return Value{}, errorf(e, "%s on %s and %s", e.Op, x.Type, y.Type)
	}
	signed := !isUnsigned64(x.Type) && !isUnsigned64(y.Type)
	switch e.Op {
	case "/", "%", ">>":
		signed = env.Info.SignedOperands(e.X, e.Y)
	case "==", "!=", "<", "<=", ">", ">=":
		signed = env.Info.SignedCompare(e.X, e.Y)
	}
	r, ok := Arith(e.Op, x.Bits, y.Bits, signed)
	if !ok {
		return Value{}, errorf(e, "operator %s", e.Op)
	}
	v.Bits = r
	return v, nil
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Arith computes x op y on 64-bit values, signed or unsigned, for the
// arithmetic, bitwise, shift and comparison operators; comparisons yield 0
// or 1. It reports false for an unknown operator.
func Arith(op string, x, y uint64, signed bool) (uint64, bool) {
	sx, sy := int64(x), int64(y)
	switch op {
	case "+":
		return x + y, true
	case "-":
		return x - y, true
	case "*":
		return x * y, true
	case "/":
		if y == 0 {
			return 1, true
		}
		if signed {
			// Go defines MinInt64 / -1 as MinInt64, as the generated code
			// computes it.
			return uint64(sx / sy), true
		}
		return x / y, true
	case "%":
		if y == 0 {
			return 1, true
		}
		if signed {
			return uint64(sx % sy), true
		}
		return x % y, true
	case "&":
		return x & y, true
	case "|":
		return x | y, true
	case "^":
		return x ^ y, true
	case "<<":
		return x << (y & 63), true
	case ">>":
		if signed {
			return uint64(sx >> (y & 63)), true
		}
		return x >> (y & 63), true
	case "==":
		return b2u(x == y), true
	case "!=":
		return b2u(x != y), true
	case "<":
		if signed {
			return b2u(sx < sy), true
		}
		return b2u(x < y), true
	case "<=":
		if signed {
			return b2u(sx <= sy), true
		}
		return b2u(x <= y), true
	case ">":
		if signed {
			return b2u(sx > sy), true
		}
		return b2u(x > y), true
	case ">=":
		if signed {
			return b2u(sx >= sy), true
		}
		return b2u(x >= y), true
	}
	return 0, false
}

func (env *Env) call(e *ast.Call, v Value) (Value, error) {
	args := make([]Value, len(e.Args))
	for i, a := range e.Args {
		x, err := env.Expr(a)
		if err != nil {
			return Value{}, err
		}
		args[i] = x
	}
	if f := env.Info.Calls[e]; f != nil && f.Eval != nil {
		eargs := make([]builtin.EvalArg, len(args))
		for i, x := range args {
			eargs[i] = builtin.EvalArg{Bits: x.Bits, Str: x.Str, IsStr: x.IsString()}
			if x.Type != nil {
				eargs[i].Size = x.Type.Size
			}
		}
		if bits, ok := f.Eval(eargs, v.Type.Size); ok {
			v.Bits = bits
			return v, nil
		}
	}
	return Value{}, errorf(e, "call to %s()", e.Name)
}

// Exec runs a statement that only computes: let, assignments to scratch
// variables (= and the compound operators) and nested blocks. Other
// statements return an error wrapping ErrUnsupported.
func (env *Env) Exec(s ast.Stmt) error {
	switch s := s.(type) {
	case *ast.LetStmt:
		id, t := env.Info.VarOf(s.Var)
		if t == nil {
			return nil
		}
		if s.Init == nil {
			env.Vars[id] = Value{Type: t}
			return nil
		}
		x, err := env.Expr(s.Init)
		if err != nil {
			return err
		}
		x.Type = t
		if t.Kind == types.Int {
			x.Bits = Truncate(x.Bits, t) // a declared narrow type wraps
		}
		env.Vars[id] = x
		return nil
	case *ast.AssignStmt:
		l, ok := s.Lhs.(*ast.Var)
		if !ok {
			return errorf(s, "assignment to %T", s.Lhs)
		}
		id, t := env.Info.VarOf(l)
		x, err := env.Expr(s.Rhs)
		if err != nil {
			return err
		}
		if s.Op != "=" {
			old, ok := env.Vars[id]
			if !ok {
				return fmt.Errorf("%s: variable %s has no value", l.Pos(), l.Name)
			}
			if x.IsString() || old.IsString() {
				return errorf(s, "%s on a string", s.Op)
			}
			signed := !isUnsigned64(t) && !isUnsigned64(x.Type)
			switch s.Op {
			case "/=", "%=", ">>=":
				cv, isConst := env.Info.Consts[s.Rhs]
				flex := isConst && !cv.IsStr && x.Type.Kind == types.Int && x.Type.Signed && int64(cv.Int) >= 0
				signed = check.SignedPair(t, x.Type, false, flex)
			}
			r, ok := Arith(s.Op[:len(s.Op)-1], old.Bits, x.Bits, signed)
			if !ok {
				return errorf(s, "operator %s", s.Op)
			}
			x.Bits = r
		}
		x.Type = t
		if t.Kind == types.Int {
			x.Bits = Truncate(x.Bits, t)
		}
		env.Vars[id] = x
		return nil
	case *ast.BlockStmt:
		for _, st := range s.Body.Stmts {
			if err := env.Exec(st); err != nil {
				return err
			}
		}
		return nil
	}
	return errorf(s, "%T", s)
}
