// Package format is the one grammar of bpftrace printf format strings. The
// checker (lang) validates printf, errorf, warnf, system and cat calls with
// it, and the formatter (output) prints events with it, so the two always
// agree on what a conversion is.
//
// The grammar is bpftrace 0.26's: a conversion is
//
//	%[-][+][ ][#][0][width][.precision][length]verb
//
// with the flags in exactly that order, width and precision a decimal
// number or '*' (accepted and ignored: it takes no argument), length any
// run of h l L j z t, and verb one of d i o u x X e E f F G a A c s p n %,
// or one of the bpftrace verbs gr g rh rx r. Text that does not match a
// conversion stays literal: "100%" prints "100%", and "%0-5d" (flags out of
// order) is five literal characters, not a conversion.
//
// Parse never fails; Check reports the conversions gotrace does not print
// and widths or precisions past MaxWidth.
package format
