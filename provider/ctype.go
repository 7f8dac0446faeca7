package provider

import (
	"fmt"
	"strings"

	"github.com/cilium/ebpf/btf"
)

// Declare renders a C declaration of name with type t the way bpftrace
// lists arguments: "struct file * file", "const char * buf",
// "long unsigned int vlen"; __user and other type tags are dropped.
func Declare(t btf.Type, name string) string {
	return CType(t) + " " + name
}

// CType renders a BTF type as C, as Declare does: "struct file *",
// "const char *"; the language server shows types with it.
func CType(t btf.Type) string { return cType(t, 0) }

// cType renders a BTF type as C.
func cType(t btf.Type, depth int) string {
	if depth > 16 {
		return "?"
	}
	switch v := t.(type) {
	case nil, *btf.Void:
		return "void"
	case *btf.Int:
		return v.Name
	case *btf.Typedef:
		return v.Name
	case *btf.Struct:
		return "struct " + v.Name
	case *btf.Union:
		return "union " + v.Name
	case *btf.Enum:
		return "enum " + v.Name
	case *btf.Fwd:
		return v.Kind.String() + " " + v.Name
	case *btf.Const:
		return "const " + cType(v.Type, depth+1)
	case *btf.Volatile:
		return "volatile " + cType(v.Type, depth+1)
	case *btf.Restrict:
		return cType(v.Type, depth+1)
	case *btf.TypeTag:
		return cType(v.Type, depth+1)
	case *btf.Pointer:
		if _, ok := v.Target.(*btf.FuncProto); ok {
			return "void *" // function pointer
		}
		inner := cType(v.Target, depth+1)
		if strings.HasSuffix(inner, "*") {
			return inner + "*"
		}
		return inner + " *"
	case *btf.Array:
		return fmt.Sprintf("%s[%d]", cType(v.Type, depth+1), v.Nelems)
	case *btf.Float:
		return v.Name
	}
	return t.TypeName()
}
