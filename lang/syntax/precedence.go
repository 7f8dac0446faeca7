package syntax

// Precedence returns the precedence of binary operator op as the parser
// applies it, higher binding tighter, or 0 when op is no binary operator.
// The formatter asks it where parentheses are needed.
func Precedence(op string) int { return binaryPrec[op] }
