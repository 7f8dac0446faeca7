package lang

import (
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/internal/btfnames"
)

// enumValue looks up a kernel enum constant (e.g. TASK_RUNNING,
// SKB_DROP_REASON_NOT_SPECIFIED) in BTF, decoding only the enum that
// declares it.
func (c *checker) enumValue(name string) (Const, bool) {
	if _, ok := c.builtinTab[name]; ok || c.env == nil {
		return Const{}, false
	}
	spec, err := c.env.BTF()
	if err != nil || spec == nil {
		return Const{}, false
	}
	ix, err := btfnames.For(spec)
	if err != nil {
		return Const{}, false
	}
	id, ok := ix.Enumerator(name)
	if !ok {
		return Const{}, false
	}
	t, err := spec.TypeByID(id)
	if err != nil {
		return Const{}, false
	}
	if en, ok := t.(*btf.Enum); ok {
		for _, v := range en.Values {
			if v.Name == name {
				return Const{Int: v.Value}, true
			}
		}
	}
	return Const{}, false
}

// foldBinary computes a binary operation on constants, when it is one the
// checker folds (integer arithmetic and bitwise operations).
func foldBinary(op string, x, y uint64, signed bool) (uint64, bool) {
	switch op {
	case "+":
		return x + y, true
	case "-":
		return x - y, true
	case "*":
		return x * y, true
	case "/", "%":
		if y == 0 {
			return 0, false
		}
		if signed {
			a, b := int64(x), int64(y)
			if op == "/" {
				return uint64(a / b), true
			}
			return uint64(a % b), true
		}
		if op == "/" {
			return x / y, true
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
			return uint64(int64(x) >> (y & 63)), true
		}
		return x >> (y & 63), true
	}
	return 0, false
}
