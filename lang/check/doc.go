// Package check checks gotrace scripts.
//
// Check takes the syntax tree syntax.Parse built, runs the preamble passes
// over a clone of it (package preamble: imports, the preprocessor, macros),
// defines the script's C definitions as types, resolves every name,
// type, probe and BTF lookup and returns a Program that code generation can
// compile without guessing. Its errors, like the parser's, are a
// syntax.ErrorList: every user-facing error comes from these two stages and
// carries a source position.
package check
