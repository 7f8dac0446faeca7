// Package sysnum holds the x86-64 syscall table: the checker's __NR_<name>
// macros (lang/cmacro) and the printer's syscall names (output) read it, so
// that neither stage imports the other.
package sysnum
