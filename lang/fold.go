package lang

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
