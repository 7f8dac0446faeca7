// Package debuginfo reads the DWARF debug information of user binaries for
// uprobes: function parameters with their C types, named struct, union,
// enum and typedef types, and source line addresses. Types are converted to
// BTF types (github.com/cilium/ebpf/btf) so that the checker handles them
// like kernel types.
//
// A binary's DWARF comes from the binary itself or from a separate debug
// file found through its .gnu_debuglink or build id (the directories given
// by the caller, the binary's directory and its .debug subdirectory, and
// /usr/lib/debug). Files are opened once per process and decoded lazily:
// only the functions and types a script names are converted.
package debuginfo
