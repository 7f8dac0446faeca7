package builtin

import (
	"fmt"
	"strings"

	"github.com/gotrace/gotrace/lang/ast"
	"github.com/gotrace/gotrace/lang/types"
)

// typeinfo(x) is bpftrace 0.26's record describing the type of a value or
// of a type written as its operand: { .btf_id, .base_type, .full_type },
// constants (typeinfo(e).base_type == "string" folds at compile time).
// bpftrace has no global numbering of types: btf_id is always 0. An
// unstable feature (config unstable_typeinfo, default error).
func init() {
	defFuncs(&Func{Name: "typeinfo", Result: types.Record,
		Check: func(c Checker, e *ast.Call) *types.Type {
			if !c.WantArgs(e, 1, 1) {
				return nil
			}
			if !c.Unstable(e, "typeinfo", "unstable_typeinfo", "error") {
				return nil
			}
			t := c.TypeOperand(e.Args[0])
			if t == nil {
				return nil
			}
			sp := e.Span
			return c.ConstRecord(CallRecordKey(e), e, []string{"btf_id", "base_type", "full_type"}, []ast.Expr{
				&ast.IntLit{Span: sp, Text: "0"},
				&ast.StrLit{Span: sp, Value: BaseTypeName(t)},
				&ast.StrLit{Span: sp, Value: FullTypeName(t)},
			})
		},
		Buffer:  func(g Emitter, e *ast.Call) int16 { return g.Record(CallRecordKey(e), e.Pos()) },
		Example: `config = { unstable_typeinfo = enable } BEGIN { print(typeinfo(1).full_type) }`,
		Doc: Doc{Sig: "typeinfo(x: any | type): record { btf_id, base_type, full_type }",
			Text: "A record describing the type of a value or of a type: its kind (base_type) and its full name (full_type), as bpftrace names them."}})
}

// CallRecordKey is the key under which the record of constants a call
// builds (typeinfo) is kept: one per call node.
func CallRecordKey(e *ast.Call) string { return fmt.Sprintf("%s@%p", e.Name, e) }

// BaseTypeName is bpftrace's name for the kind of type t (typeinfo's
// base_type).
func BaseTypeName(t *types.Type) string {
	switch t.Kind {
	case types.Int:
		return "int"
	case types.Bool:
		return "bool"
	case types.String:
		return "string"
	case types.Pointer, types.Ctx:
		return "pointer"
	case types.Array:
		return "array"
	case types.Tuple:
		return "tuple"
	case types.Record:
		return "record"
	case types.Struct:
		return "c_type"
	case types.Stack:
		if t.UserStack {
			return "ustack"
		}
		return "kstack"
	case types.Username:
		return "username_t"
	case types.MacAddr:
		return "mac_address"
	case types.Buf:
		return "buffer"
	}
	return t.String()
}

// FullTypeName is bpftrace's full name of type t (typeinfo's full_type):
// int8, string[4], (int8,string[2]), record { .a = int8 }, struct
// task_struct *.
func FullTypeName(t *types.Type) string {
	switch t.Kind {
	case types.Pointer:
		return FullTypeName(t.Elem) + " *"
	case types.Tuple:
		names := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			names[i] = FullTypeName(f.Type)
		}
		return "(" + strings.Join(names, ",") + ")"
	case types.Record:
		names := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			names[i] = "." + f.Name + " = " + FullTypeName(f.Type)
		}
		return "record { " + strings.Join(names, ", ") + " }"
	}
	return t.String()
}
