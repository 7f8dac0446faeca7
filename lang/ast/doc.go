// Package ast declares the syntax tree of a gotrace script.
//
// The tree is produced by syntax.Parse and consumed by check.Check. Every node
// knows its span in the source (Span), so later stages can point errors and
// generated instructions back at the script. The tree is deliberately
// permissive: it records what was written, and the checker decides what is
// allowed.
package ast
