package provider

import (
	"fmt"

	"github.com/gotrace/gotrace/lang/types"
)

// retvalProto types retval by the return type of the point's BTF
// prototype: an integer or a pointer, else (or without one, or over
// several functions) int64. afterArgs: retval is read from the slot after
// the arguments (fexit), whose position depends on the prototype, so a
// probe of several functions has none.
func retvalProto(afterArgs bool) func(Typer, []*Point) (*types.Type, string) {
	return func(ty Typer, pts []*Point) (*types.Type, string) {
		if proto := pts[0].FuncProto(); len(pts) == 1 && proto != nil {
			if t := ty.KernelType(proto.Return); t != nil && (t.IsInt() || t.Kind == types.Pointer) {
				return t, ""
			}
		}
		if afterArgs && len(pts) > 1 {
			return nil, fmt.Sprintf("retval in %s needs one function per probe (its position depends on the prototype)", pts[0].Provider)
		}
		return types.Int64, ""
	}
}
