// Package preamble runs the passes over a parsed script that come before
// its checking: imports (the files and standard library entries a script
// imports, merged into it), the C preprocessor over its preamble and the
// headers it includes (conditionals, #define constants and expression
// macros, kernel macros) and the expansion of its macros.
//
// The checker (package check) drives the passes on its clone of the
// script and defines the C types of the definitions the preprocessor
// leaves active; the passes report their errors into the checker's list.
package preamble
