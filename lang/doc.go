// Package lang parses and checks gotrace scripts.
//
// Parse turns source text into a positioned syntax tree (package ast) using
// github.com/alecthomas/participle/v2; Check resolves every name, type, probe
// and BTF lookup and returns a Program that code generation can compile
// without guessing. Every user-facing error comes from these two stages and
// carries a source position.
package lang
