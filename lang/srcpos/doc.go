// Package srcpos holds the positions of a script: Pos, a place in a file,
// and Span, the range a syntax tree node or a diagnostic covers, with the
// renderings bpftrace's diagnostics use. It imports nothing of the parser,
// so that the stages after the checker (object, output, runtime, provider)
// can carry a script position without linking the language.
package srcpos
