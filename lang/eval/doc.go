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
//   - The result of a binary arithmetic operation is a 64-bit integer
//     (bpftrace 0.26's rule): signed when an operand is signed, and always
//     for -; unsigned otherwise. A non-negative literal takes the other
//     operand's sign. Comparisons are signed when an operand is signed
//     (lang.Info.SignedCompare: bpftrace promotes a uint64 and an int64 to
//     int64), unsigned otherwise.
//   - Operations on literals alone are folded by the checker exactly (a
//     result out of [MinInt64, MaxUint64], a division by a literal zero or
//     a shift by 64 or more is an error); the evaluator computes them as
//     the generated code would, which gives the same value.
//   - / and % divide as C does (truncation toward zero, the remainder takes
//     the dividend's sign) when both operands are signed
//     (lang.Info.SignedOperands), as unsigned 64-bit numbers otherwise, as
//     bpftrace does. A zero divisor yields 1 (bpftrace's result, with its
//     run-time warning); MinInt64 / -1 is MinInt64 and MinInt64 % -1 is 0.
//   - Shift counts are taken modulo 64 (the low 6 bits of the count). This
//     is what the kernel does for 64-bit BPF shifts by a register: the
//     interpreter masks the count with 63 and the x86-64 JIT's shl/shr/sar
//     by %cl does the same; the verifier accepts counts of 64 and more in a
//     register (it only loses track of the result). The e2e differential
//     test checks this against the running kernel.
//   - >> is arithmetic when both operands are signed, logical otherwise.
//   - Unary - and ~ are computed in the operand's own width (a
//     variable's own type: uint8 for $x = (uint8)19) and yield that type,
//     or int64 or uint64 for 64-bit operands (~(uint8)0 is 255,
//     -(-(uint8)19) is 19, -(int8)-128 is -128; on a literal, ~ is the
//     non-negative complement: ~10 is a uint64); they are errors on bools.
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
