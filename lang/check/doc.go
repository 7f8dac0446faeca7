// Package check checks gotrace scripts.
//
// Check takes the syntax tree syntax.Parse built, runs the preamble passes
// (the preprocessor, C definitions, macros, imports), resolves every name,
// type, probe and BTF lookup and returns a Program that code generation can
// compile without guessing. Its errors, like the parser's, are a
// syntax.ErrorList: every user-facing error comes from these two stages and
// carries a source position.
package check
