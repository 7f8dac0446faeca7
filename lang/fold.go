package lang

import (
	"github.com/cilium/ebpf/btf"

	"github.com/gotrace/gotrace/builtin"
)

// enumValue looks up a kernel enum constant (e.g. TASK_RUNNING,
// SKB_DROP_REASON_NOT_SPECIFIED) in BTF. The table is built on first use.
func (c *checker) enumValue(name string) (Const, bool) {
	if builtin.LookupVar(name) != nil {
		return Const{}, false
	}
	if c.enums == nil {
		c.enums = map[string]uint64{}
		if c.env == nil {
			return Const{}, false
		}
		spec, err := c.env.BTF()
		if err != nil || spec == nil {
			return Const{}, false
		}
		for t, err := range spec.All() {
			if err != nil {
				break
			}
			if en, ok := t.(*btf.Enum); ok {
				for _, v := range en.Values {
					c.enums[v.Name] = v.Value
				}
			}
		}
	}
	v, ok := c.enums[name]
	return Const{Int: v}, ok
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
