// Package eval is a reference evaluator for checked gotrace expressions:
// it computes, in Go, what the code generator's BPF computes for integer,
// bool and string expressions, so that tests can compare the two (see
// e2e/diff_test.go).
//
// The evaluator works on the checker's output (lang.Info): it takes every
// type from info.TypeOf and only the values of leaves (literals,
// positional parameters, defines, enum constants) from info.Consts; every
// operation is computed here, independently of the checker's constant
// folding. The semantics are gotrace's:
//
//   - Integers are 64-bit registers. A value of a narrower type is held
//     sign- or zero-extended; every arithmetic operation is done in 64 bits.
//   - A binary arithmetic operation is unsigned when an operand is an
//     unsigned 64-bit integer (the checker's promote); otherwise it is
//     signed. Comparisons are signed only when neither side is an unsigned
//     64-bit integer.
//   - Signed division truncates toward zero and the remainder takes the
//     dividend's sign (C). Division by zero yields 0 and remainder by zero
//     yields the dividend, as the BPF ALU does; MinInt64 / -1 is MinInt64
//     and MinInt64 % -1 is 0.
//   - Shift counts are taken modulo 64 (the low 6 bits of the count). This
//     is what the kernel does for 64-bit BPF shifts by a register: the
//     interpreter masks the count with 63 and the x86-64 JIT's shl/shr/sar
//     by %cl does the same; the verifier accepts counts of 64 and more in a
//     register (it only loses track of the result). The e2e differential
//     test checks this against the running kernel.
//   - >> is arithmetic when the operation is signed, logical otherwise.
//   - Unary - yields int64; ~ flips all 64 bits and keeps the operand's
//     storage type (so ~true is a bool whose register holds -2, which
//     printf shows as 1 and arithmetic as -2, as the generated code does);
//     ! yields a bool.
//   - A cast to an integer type truncates to its size and sign- or
//     zero-extends back to 64 bits; a cast to bool yields 0 or 1.
//   - Strings compare as C strings (up to the first NUL); strlen counts the
//     bytes before the NUL; strncmp(a, b, n) is 0 when the first n bytes
//     (up to a NUL) are equal and 1 otherwise.
//
// Expressions with side effects or run-time inputs (maps, builtins such as
// pid, helper calls, pointers) are not evaluated: Expr returns an error for
// them. Scratch variables are evaluated through an Env that holds their
// values.
package eval
