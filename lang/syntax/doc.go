// Package syntax parses gotrace scripts.
//
// Parse turns source text into a positioned syntax tree (package ast) using
// github.com/alecthomas/participle/v2, and ParseExpr one expression;
// nothing outside this package sees participle's types. Its errors, and
// the checker's, are an ErrorList of Error values at script spans
// (package srcpos), which Render shows as bpftrace does: the location, the
// source line and a row of marks under the span.
package syntax
