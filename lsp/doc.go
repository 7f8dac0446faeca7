// Package lsp is gotrace's language server (`gotrace lsp`): the Language
// Server Protocol over a stream, with github.com/tliron/glsp's protocol
// types and github.com/sourcegraph/jsonrpc2's connection.
//
// The server parses and checks each open script in-process, against this
// machine's kernel BTF and tracefs tracepoint formats when it can read them
// (BTF is world-readable; tracefs usually needs root), so it needs no
// privileges. It publishes every parse and check error with the checker's
// spans, and says which checks it could not make (a tracepoint's fields
// when tracefs is unreadable). It completes providers, attach points
// (a USDT binary's probes from its notes after usdt:BINARY:),
// struct members after '.' and '->', builtins with their signatures, maps,
// variables, macros and config keys; hovers types, builtin documentation
// and struct layouts; finds the definitions of macros, maps and imports;
// and formats with package pretty, as `gotrace --fmt` does.
//
// A script being typed rarely parses. The server blanks out the top-level
// item (probe, macro, ...) holding a parse error and parses the rest again,
// so the other probes are still checked; completion parses a copy of the
// script cut at the cursor and closed.
package lsp
