package provider

import (
	"fmt"

	"github.com/gotrace/gotrace/lang/types"
)

// retvalProto types retval by the return type of the point's BTF
// prototype: an integer or a pointer, else (or without one) int64.
// afterArgs: retval is in the slot after the arguments (fexit), whose
// position depends on the prototype; a probe of several functions then
// has the type they all have (the program reads it with
// bpf_get_func_ret), and no retval when they differ. A probe of several
// functions without afterArgs (kretprobe's register) has int64.
func retvalProto(afterArgs bool) func(Typer, []*Point) (*types.Type, string) {
	return func(ty Typer, pts []*Point) (*types.Type, string) {
		if proto := pts[0].FuncProto(); len(pts) == 1 && proto != nil {
			if t := ty.KernelType(proto.Return); t != nil && (t.IsInt() || t.Kind == types.Pointer) {
				return t, ""
			}
		}
		if len(pts) > 1 && afterArgs {
			// Functions of one type (lang/check/shape.go): the program
			// reads retval with bpf_get_func_ret, wherever it is.
			t, _ := retvalProto(afterArgs)(ty, pts[:1])
			for _, pt := range pts[1:] {
				if u, _ := retvalProto(afterArgs)(ty, []*Point{pt}); u.String() != t.String() {
					return nil, fmt.Sprintf("retval in %s needs functions of one return type per probe", pts[0].Provider)
				}
			}
			return t, ""
		}
		return types.Int64, ""
	}
}
