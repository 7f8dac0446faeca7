// Package object is the contract between the stages after the checker:
// what codegen hands to runtime and output. A compiled Program holds the
// BPF collection spec, its probes (with their wildcard groups), the user
// maps, the printf and strftime specs decoded from event records, the
// names of the runtime's own maps and the layout of the globals value.
//
// The package is a leaf: it imports the AST positions and types of lang
// (lang/ast, lang/types), the format-string grammar (package format) and
// cilium/ebpf, never the parser, so the formatter and the loader do not
// link it.
package object
