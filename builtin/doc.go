// Package builtin is the table of gotrace's builtin variables (pid, comm,
// args, ...) and functions (printf, str, count, ...): one definition per
// builtin, read by every stage, as ply's struct func.
//
// Each entry names the builtin, types and validates a use of it (Check or
// Type, run by the checker in package lang/check through the Checker interface),
// emits its value (Emit, Buffer, run by package codegen through the Emitter
// interface), names the kind of its result (Result: the types.Kind that
// routes how package output decodes and prints the value) and carries a
// script that uses it (Example), which the table test checks, compiles and,
// where the probe exists on the host, runs.
//
// The package imports neither lang nor codegen: lang's checker and
// codegen's generator implement the two interfaces. Adding a builtin is
// adding one entry here, plus its example.
package builtin
