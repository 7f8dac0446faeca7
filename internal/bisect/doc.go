// Package bisect finds the items of a set that the kernel refuses to
// attach together (kprobe_multi and tracing_multi links fail as a whole
// when one function is refused) by bisection.
package bisect
