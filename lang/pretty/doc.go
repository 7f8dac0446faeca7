// Package pretty formats gotrace scripts the way `bpftrace --fmt` (0.26,
// 0.27) formats bpftrace scripts: the same line breaks, indentation,
// parentheses, comment placement and wrapping at 90 columns, so that a
// script formatted by either tool is left alone by the other.
//
// Source parses the script with syntax.Parse, reads its comments and blank
// lines from lang.Trivia, and prints the tree. The printer builds each node
// as a Buffer of lines and measures it to choose between one line and
// several, as bpftrace's printer does. Where bpftrace's output would change
// what a script means or lose a comment, this package keeps the script's
// meaning and its comments instead; docs/fmt.md lists each such difference.
//
// `gotrace --fmt` and the language server (package lsp) share Source.
package pretty
