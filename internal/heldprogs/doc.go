// Package heldprogs lists the BPF programs one process holds, for tests
// that look at what the gotrace process they started loaded: other
// processes load programs on the same machine, so a test never counts
// the kernel's programs as a whole.
package heldprogs
